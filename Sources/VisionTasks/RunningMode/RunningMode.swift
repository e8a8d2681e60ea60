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
