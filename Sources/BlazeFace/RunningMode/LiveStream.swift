import BlazeImage
import Dispatch
import Synchronization

/// One live-stream outcome: the frame's timestamp and its detections or the error it gave.
public struct LiveStreamResult: Sendable {
    public var timestampInMilliseconds: Int
    public var result: Result<FaceDetectorResult, DetectorError>

    public init(timestampInMilliseconds: Int, result: Result<FaceDetectorResult, DetectorError>) {
        (self.timestampInMilliseconds, self.result) = (timestampInMilliseconds, result)
    }
}

extension FaceDetector {
    /// Live-stream mode: hands a camera frame over and returns at once, never waiting for the
    /// detector. Timestamps must strictly increase (else `.nonIncreasingTimestamp`, thrown here).
    /// While a frame is in flight, newer frames are dropped (MediaPipe's FlowLimiterCalculator
    /// with one frame in flight) and counted in `droppedFrameCount`. Results arrive in timestamp
    /// order on one serial queue, through `options.liveStreamHandler` and `liveStreamResults`.
    public func detectAsync(image: RGBImage, timestampInMilliseconds: Int) throws(DetectorError) {
        try submitLive("detectAsync(image:timestampInMilliseconds:)", timestampInMilliseconds) { pipeline, result throws(DetectorError) in
            try pipeline.detect(image, into: &result)
        }
    }

    /// Live-stream mode on any input, turned and cropped as `options` say. A pixel buffer's planes
    /// are copied before this returns (not converted: sampled in their own format later), so the
    /// camera may reuse its memory at once.
    public func detectAsync(pixelBuffer: PixelBuffer, options: ImageProcessingOptions = ImageProcessingOptions(),
                            timestampInMilliseconds: Int) throws(DetectorError) {
        let frame = OwnedPixelBuffer(copying: pixelBuffer)
        try submitLive("detectAsync(pixelBuffer:options:timestampInMilliseconds:)", timestampInMilliseconds) {
            pipeline, result throws(DetectorError) in
            try frame.withPixelBuffer { buffer throws(DetectorError) in try pipeline.detect(sampled: buffer, options: options, into: &result) }
        }
    }

    /// Live-stream mode on an `RGBImage` with an orientation and a region of interest.
    public func detectAsync(image: RGBImage, options: ImageProcessingOptions, timestampInMilliseconds: Int) throws(DetectorError) {
        try Self.requireWhole(image)
        try submitLive("detectAsync(image:options:timestampInMilliseconds:)", timestampInMilliseconds) {
            pipeline, result throws(DetectorError) in
            try pipeline.detect(sampled: image, options: options, into: &result)
        }
    }

    /// Hands `detect` to the live stream: run later on its queue, under the pipeline's lock, its
    /// result (or error) delivered with the timestamp. `call` names the entry point for the
    /// wrong-mode error.
    private func submitLive(_ call: String, _ timestamp: Int,
                            _ detect: @escaping @Sendable (inout Pipeline, inout FaceDetectorResult) throws(DetectorError) -> Void)
        throws(DetectorError) {
        guard let liveStream else { throw .wrongRunningMode(called: call, mode: runningMode) }
        try liveStream.submit(timestamp) { [self] in
            LiveStreamResult(timestampInMilliseconds: timestamp, result: Result { () throws(DetectorError) in
                var result = FaceDetectorResult()
                try state.withLock { pipeline throws(DetectorError) in try detect(&pipeline, &result) }
                return result
            })
        }
    }

    /// Live-stream results as an AsyncStream (one consumer), in timestamp order; it finishes at
    /// `close()`. Empty and finished in the other modes.
    public var liveStreamResults: AsyncStream<LiveStreamResult> { liveStream?.results ?? LiveStreamRunner<LiveStreamResult>.finished }

    /// Frames dropped so far because one was in flight (live stream; 0 in the other modes).
    public var droppedFrameCount: Int { liveStream?.counts.dropped ?? 0 }

    /// Results and errors delivered so far (live stream; 0 in the other modes).
    public var deliveredResultCount: Int { liveStream?.counts.delivered ?? 0 }

    /// Ends a live stream: later `detectAsync` calls throw `.closed`, the frame in flight is
    /// discarded, and once this returns nothing more is delivered (called from the result
    /// handler itself, it takes effect after that handler returns). Does nothing in other modes.
    public func close() { liveStream?.close() }
}

/// The live-stream plumbing every live mode shares (the detector's, the face analysis's),
/// data-race free by construction: all mutable state sits in one mutex; the work and the
/// delivery run on one serial queue; at most one frame is in flight, and a frame that comes
/// while one is (MediaPipe's FlowLimiterCalculator) is dropped and counted. Timestamps must
/// strictly increase (`TimestampGate`). Outputs go to a handler and an AsyncStream, in order.
package final class LiveStreamRunner<Output: Sendable>: Sendable {
    private struct State {
        var timestamps = TimestampGate()
        var inFlight = false
        var closed = false
        var dropped = 0
        var delivered = 0
    }

    private let state = Mutex(State())
    private let queue: DispatchQueue
    private let onQueue = DispatchSpecificKey<Bool>()
    private let handler: (@Sendable (Output) -> Void)?
    private let continuation: AsyncStream<Output>.Continuation
    /// Every output, in timestamp order (one consumer); finished at `close()`.
    package let results: AsyncStream<Output>

    /// A finished, empty stream: what the other running modes offer.
    package static var finished: AsyncStream<Output> { AsyncStream { $0.finish() } }

    package init(label: String, handler: (@Sendable (Output) -> Void)?) {
        self.handler = handler
        queue = DispatchQueue(label: label)
        (results, continuation) = AsyncStream.makeStream(of: Output.self, bufferingPolicy: .unbounded)
        queue.setSpecific(key: onQueue, value: true)
    }

    /// Frames dropped while one was in flight, and outputs delivered.
    package var counts: (dropped: Int, delivered: Int) { state.withLock { ($0.dropped, $0.delivered) } }

    /// Admits the timestamp; starts `work` on the queue unless a frame is in flight (then drops it).
    package func submit(_ timestamp: Int, work: @escaping @Sendable () -> Output) throws(DetectorError) {
        let start = try state.withLock { s throws(DetectorError) -> Bool in
            if s.closed { throw .closed }
            try s.timestamps.admit(timestamp)
            if s.inFlight { s.dropped += 1; return false }
            s.inFlight = true
            return true
        }
        guard start else { return }
        queue.async { [self] in
            let output = work()
            // Checked on the delivery queue, which `close()` drains: nothing passes after it.
            let open = state.withLock { s in
                if !s.closed { s.delivered += 1 }
                return !s.closed
            }
            if open {
                continuation.yield(output)
                handler?(output)
            }
            // The frame stays in flight until its result is delivered, so a slow consumer makes
            // the stream drop frames rather than queue them without bound.
            state.withLock { $0.inFlight = false }
        }
    }

    /// Ends the stream: later `submit` calls throw `.closed`, and once this returns nothing more
    /// is delivered (called from the handler itself, it takes effect after that handler returns).
    package func close() {
        state.withLock { $0.closed = true }
        // Wait out a delivery under way (every caller does, so a second close() returns no
        // earlier than the first), unless this is that delivery's own handler.
        if DispatchQueue.getSpecific(key: onQueue) != true { queue.sync {} }
        continuation.finish()
    }

    /// At the owner's end: no waiting (the last reference may go on the queue itself).
    package func shutDown() {
        state.withLock { $0.closed = true }
        continuation.finish()
    }
}

/// A camera frame's planes copied into memory of its own, so that a live-stream frame outlives
/// the caller's buffer; sampled later in its own format, as the caller's buffer would be.
package struct OwnedPixelBuffer: Sendable {
    let format: PixelFormat, width: Int, height: Int
    let planes: [[UInt8]], strides: [Int]

    package init(copying buffer: PixelBuffer) {
        (format, width, height) = (buffer.format, buffer.width, buffer.height)
        let given = [buffer.plane0] + [buffer.plane1, buffer.plane2].compactMap { $0 }
        planes = given.map { Array(UnsafeRawBufferPointer(start: $0.base, count: $0.byteCount)) }
        strides = given.map(\.rowStride)
    }

    /// Calls `body` with a `PixelBuffer` over the copy, valid during the call.
    package func withPixelBuffer<R>(_ body: (PixelBuffer) throws(DetectorError) -> R) throws(DetectorError) -> R {
        do {
            return try planes[0].withUnsafeBytes { p0 in
                if format == .i420 {
                    return try planes[1].withUnsafeBytes { p1 in
                        try planes[2].withUnsafeBytes { p2 in
                            try body(PixelBuffer(i420: p0, yStride: strides[0], u: p1, uStride: strides[1], v: p2,
                                                 vStride: strides[2], width: width, height: height))
                        }
                    }
                }
                if format.isYUV {
                    return try planes[1].withUnsafeBytes { p1 in
                        try body(PixelBuffer(biPlanar: format, y: p0, yStride: strides[0], chroma: p1, chromaStride: strides[1],
                                             width: width, height: height))
                    }
                }
                return try body(PixelBuffer(format: format, width: width, height: height, bytes: p0, rowStride: strides[0]))
            }
        } catch let error as DetectorError {
            throw error
        } catch let error as ImageError {
            throw .image(error)
        } catch {
            throw .invalidImage("\(error)")
        }
    }
}
