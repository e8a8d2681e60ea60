/// How a detector is fed, fixed when it is created: MediaPipe's `RunningMode`
/// (mediapipe/tasks/cc/vision/core/running_mode.h).
public enum RunningMode: String, Sendable, Equatable, CaseIterable {
    /// Single images: `detect(image:)`.
    case image
    /// Decoded video frames with strictly increasing timestamps: `detect(videoFrame:timestampInMilliseconds:)`.
    case video
    /// A live camera feed: `detectAsync(image:timestampInMilliseconds:)`, results delivered asynchronously.
    case liveStream
}

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

/// The strictly-increasing timestamp rule of MediaPipe's video and live-stream modes
/// (task_runner.cc: "Input timestamp must be monotonically increasing"): the one place every
/// timestamped entry point (detector, landmarker, trackers, live streams) checks it, with the one
/// error `DetectorError.nonIncreasingTimestamp`.
package struct TimestampGate: Sendable {
    /// The last timestamp accepted; nil before the first.
    package private(set) var last: Int?

    package init() {}

    /// Throws unless `timestamp` is past the last one accepted, naming both; records nothing.
    package func check(_ timestamp: Int) throws(DetectorError) {
        if let last, timestamp <= last { throw .nonIncreasingTimestamp(previous: last, current: timestamp) }
    }

    /// Records `timestamp` as the last accepted (after `check`).
    package mutating func record(_ timestamp: Int) { last = timestamp }

    /// `check`, then `record`.
    package mutating func admit(_ timestamp: Int) throws(DetectorError) {
        try check(timestamp)
        record(timestamp)
    }

    /// Forgets the last timestamp (a reset stream starts anew).
    package mutating func reset() { last = nil }
}
