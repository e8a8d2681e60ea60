/// How a task (the face detector, the landmarker) is fed, fixed when it is created:
/// MediaPipe's `RunningMode` (mediapipe/tasks/cc/vision/core/running_mode.h).
public enum RunningMode: String, Sendable, Equatable, CaseIterable {
    /// Single images: `detect(image:)`.
    case image
    /// Decoded video frames with strictly increasing timestamps: `detect(videoFrame:timestampInMilliseconds:)`.
    case video
    /// A live camera feed: `detectAsync(image:timestampInMilliseconds:)`, results delivered asynchronously.
    case liveStream

    /// Throws `.wrongRunningMode` unless this is `mode`: the one check every task's verbs make
    /// (MediaPipe's base_vision_task_api.h); `call` names the verb in the error.
    public func require(_ mode: RunningMode, for call: String) throws(VisionTaskError) {
        guard self == mode else { throw .wrongRunningMode(called: call, mode: self) }
    }

    /// Throws `.invalidOption` for a live-stream handler given to a task in another mode (as
    /// MediaPipe's tasks refuse a result callback outside LIVE_STREAM); a live stream may go
    /// without one, since its results are also an AsyncStream.
    public func validateHandler(isSet: Bool) throws(VisionTaskError) {
        if self != .liveStream, isSet {
            throw .invalidOption(name: "liveStreamHandler", value: "set in \(rawValue) mode",
                                 allowed: "nil unless runningMode is liveStream")
        }
    }
}

/// One live-stream outcome of a task: the frame's timestamp and its result, or the error it
/// gave (`FaceDetector`'s `LiveStreamResult`, `FaceLandmarker`'s live stream).
public struct TimestampedResult<Output: Sendable>: Sendable {
    /// The timestamp the frame was handed over with.
    public var timestampInMilliseconds: Int
    /// The frame's result, or why it failed.
    public var result: Result<Output, VisionTaskError>

    public init(timestampInMilliseconds: Int, result: Result<Output, VisionTaskError>) {
        (self.timestampInMilliseconds, self.result) = (timestampInMilliseconds, result)
    }
}

/// The strictly-increasing timestamp rule of MediaPipe's video and live-stream modes
/// (task_runner.cc: "Input timestamp must be monotonically increasing"): the one place every
/// timestamped entry point (detector, landmarker, trackers, live streams) checks it, with the one
/// error `VisionTaskError.nonIncreasingTimestamp`.
public struct TimestampGate: Sendable {
    /// The last timestamp accepted; nil before the first.
    public private(set) var last: Int?

    public init() {}

    /// Throws unless `timestamp` is past the last one accepted, naming both; records nothing.
    public func check(_ timestamp: Int) throws(VisionTaskError) {
        if let last, timestamp <= last { throw .nonIncreasingTimestamp(previous: last, current: timestamp) }
    }

    /// Records `timestamp` as the last accepted (after `check`).
    public mutating func record(_ timestamp: Int) { last = timestamp }

    /// `check`, then `record`.
    public mutating func admit(_ timestamp: Int) throws(VisionTaskError) {
        try check(timestamp)
        record(timestamp)
    }

    /// Forgets the last timestamp (a reset stream starts anew).
    public mutating func reset() { last = nil }
}
