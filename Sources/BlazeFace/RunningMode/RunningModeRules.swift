import VisionTasks

extension FaceDetectorOptions {
    /// MediaPipe's rules (face_detector.cc, `ConvertFaceDetectorGraphOptionsProto` and
    /// `BaseVisionTaskApi`): a result handler belongs to the live-stream mode only. Unlike
    /// MediaPipe, a live stream may go without one, since its results are also an AsyncStream.
    func validateRunningMode() throws(DetectorError) {
        if runningMode != .liveStream, liveStreamHandler != nil {
            throw .invalidOption(name: "liveStreamHandler", value: "set in \(runningMode.rawValue) mode",
                                 allowed: "nil unless runningMode is liveStream")
        }
    }
}

extension FaceDetector {
    /// The running mode the detector was created with.
    public var runningMode: RunningMode { options.runningMode }

    /// Throws `.wrongRunningMode` unless the detector runs in `mode` (base_vision_task_api.h).
    func requireMode(_ mode: RunningMode, for call: String) throws(DetectorError) {
        guard options.runningMode == mode else { throw .wrongRunningMode(called: call, mode: options.runningMode) }
    }
}
