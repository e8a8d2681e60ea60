import VisionTasks

extension FaceDetectorOptions {
    /// MediaPipe's rules (face_detector.cc, `ConvertFaceDetectorGraphOptionsProto` and
    /// `BaseVisionTaskApi`): a result handler belongs to the live-stream mode only. Unlike
    /// MediaPipe, a live stream may go without one, since its results are also an AsyncStream.
    func validateRunningMode() throws(DetectorError) {
        try runningMode.validateHandler(isSet: liveStreamHandler != nil)
    }
}

extension FaceDetector {
    /// The running mode the detector was created with.
    public var runningMode: RunningMode { options.runningMode }

    /// Throws `.wrongRunningMode` unless the detector runs in `mode` (base_vision_task_api.h).
    func requireMode(_ mode: RunningMode, for call: String) throws(DetectorError) {
        try options.runningMode.require(mode, for: call)
    }
}
