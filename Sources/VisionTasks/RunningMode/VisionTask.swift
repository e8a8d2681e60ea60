import BlazeImage

/// The shape every task shares (MediaPipe's base_vision_task_api.h): a running mode fixed at
/// creation, three verbs (one per mode), one error type (`VisionTaskError`), and in live-stream
/// mode a `LiveStreamRunner` whose results arrive in timestamp order. A task that conforms gets
/// the live-stream members written once here: `liveStreamResults`, `droppedFrameCount`,
/// `deliveredResultCount` and `close()`.
public protocol VisionTask: AnyObject, Sendable {
    /// What one frame gives (a task's result type).
    associatedtype Output: Sendable
    /// How frames arrive, fixed at creation.
    var runningMode: RunningMode { get }
    /// The live-stream machinery; nil unless `runningMode` is `.liveStream`.
    var liveStream: LiveStreamRunner<TimestampedResult<Output>>? { get }
}

extension VisionTask {
    /// Live-stream results as an AsyncStream (one consumer), in timestamp order; it finishes at
    /// `close()`. Empty and finished in the other modes.
    public var liveStreamResults: AsyncStream<TimestampedResult<Output>> {
        liveStream?.results ?? LiveStreamRunner<TimestampedResult<Output>>.finished
    }

    /// Frames dropped so far because one was in flight (live stream; 0 in the other modes).
    public var droppedFrameCount: Int { liveStream?.counts.dropped ?? 0 }

    /// Results and errors delivered so far (live stream; 0 in the other modes).
    public var deliveredResultCount: Int { liveStream?.counts.delivered ?? 0 }

    /// Ends a live stream: later frames are refused with `.closed`, the frame in flight is
    /// discarded, and once this returns nothing more is delivered (called from the result
    /// handler itself, it takes effect as that handler returns). Does nothing in other modes.
    public func close() { liveStream?.close() }

    /// Hands `work` to the live stream, to run later on its serial queue, its result (or error)
    /// delivered with `timestamp`; throws `.wrongRunningMode` naming `call` outside live-stream
    /// mode, and the runner's errors (`.closed`, `.nonIncreasingTimestamp`).
    public func submitToLiveStream(_ call: String, timestamp: Int,
                                   _ work: @escaping @Sendable () throws(VisionTaskError) -> Output) throws(VisionTaskError) {
        guard let liveStream else { throw .wrongRunningMode(called: call, mode: runningMode) }
        try liveStream.submit(timestamp) {
            TimestampedResult(timestampInMilliseconds: timestamp, result: Result { () throws(VisionTaskError) in try work() })
        }
    }

    /// `submitToLiveStream` for a decoded picture, turned upright for `orientation` when the
    /// stream runs `work` on it.
    public func submitToLiveStream(_ call: String, timestamp: Int, image: RGBImage, orientation: ImageOrientation = .up,
                                   _ work: @escaping @Sendable (RGBImage) throws(VisionTaskError) -> Output) throws(VisionTaskError) {
        try submitToLiveStream(call, timestamp: timestamp) { () throws(VisionTaskError) in
            try work(orientation == .up ? image : RGBImage(upright: image, orientation: orientation))
        }
    }

    /// `submitToLiveStream` for a camera frame: its planes are copied before this returns (not
    /// converted), so the camera may reuse its memory at once; turned upright for `orientation`
    /// when the stream runs `work` on it.
    public func submitToLiveStream(_ call: String, timestamp: Int, pixelBuffer: PixelBuffer, orientation: ImageOrientation,
                                   _ work: @escaping @Sendable (RGBImage) throws(VisionTaskError) -> Output) throws(VisionTaskError) {
        let frame = OwnedPixelBuffer(copying: pixelBuffer)
        try submitToLiveStream(call, timestamp: timestamp) { () throws(VisionTaskError) in
            try work(try frame.withPixelBuffer { buffer throws(VisionTaskError) in RGBImage(upright: buffer, orientation: orientation) })
        }
    }
}
