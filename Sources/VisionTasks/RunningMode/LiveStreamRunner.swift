import BlazeImage
import Dispatch
import Synchronization

/// The live-stream plumbing every live mode shares (the detector's, the face analysis's),
/// data-race free by construction: all mutable state sits in one mutex; the work and the
/// delivery run on one serial queue; at most one frame is in flight, and a frame that comes
/// while one is (MediaPipe's FlowLimiterCalculator) is dropped and counted. Timestamps must
/// strictly increase (`TimestampGate`). Outputs go to a handler and an AsyncStream, in order.
public final class LiveStreamRunner<Output: Sendable>: Sendable {
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
    /// The outputs, in timestamp order (one consumer); finished at `close()`. It holds at most
    /// `streamedResults` unread: a reader that falls behind (or an app that reads only the
    /// handler) loses the oldest, never memory; the handler gets every output.
    public let results: AsyncStream<Output>
    /// The unread outputs `results` keeps (the newest): two seconds of a 30-frame camera.
    public static var streamedResults: Int { 64 }

    /// A finished, empty stream: what the other running modes offer.
    public static var finished: AsyncStream<Output> { AsyncStream { $0.finish() } }

    public init(label: String, handler: (@Sendable (Output) -> Void)?) {
        self.handler = handler
        queue = DispatchQueue(label: label)
        (results, continuation) = AsyncStream.makeStream(of: Output.self, bufferingPolicy: .bufferingNewest(Self.streamedResults))
        queue.setSpecific(key: onQueue, value: true)
    }

    /// A task's runner: one for `.liveStream`, nil for the other modes (which have no stream).
    public convenience init?(for mode: RunningMode, label: String, handler: (@Sendable (Output) -> Void)?) {
        guard mode == .liveStream else { return nil }
        self.init(label: label, handler: handler)
    }

    /// Frames dropped while one was in flight, and outputs delivered.
    public var counts: (dropped: Int, delivered: Int) { state.withLock { ($0.dropped, $0.delivered) } }

    /// Admits the timestamp; starts `work` on the queue unless a frame is in flight (then drops it).
    public func submit(_ timestamp: Int, work: @escaping @Sendable () -> Output) throws(VisionTaskError) {
        let start = try state.withLock { s throws(VisionTaskError) -> Bool in
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
    public func close() {
        state.withLock { $0.closed = true }
        // Wait out a delivery under way (every caller does, so a second close() returns no
        // earlier than the first), unless this is that delivery's own handler.
        if DispatchQueue.getSpecific(key: onQueue) != true { queue.sync {} }
        continuation.finish()
    }

    /// At the owner's end: no waiting (the last reference may go on the queue itself).
    public func shutDown() {
        state.withLock { $0.closed = true }
        continuation.finish()
    }
}

/// A camera frame's planes copied into memory of its own, so that a live-stream frame outlives
/// the caller's buffer; sampled later in its own format, as the caller's buffer would be.
public struct OwnedPixelBuffer: Sendable {
    let format: PixelFormat, width: Int, height: Int
    let planes: [[UInt8]], strides: [Int]

    public init(copying buffer: PixelBuffer) {
        (format, width, height) = (buffer.format, buffer.width, buffer.height)
        let given = [buffer.plane0] + [buffer.plane1, buffer.plane2].compactMap { $0 }
        planes = given.map { Array(UnsafeRawBufferPointer(start: $0.base, count: $0.byteCount)) }
        strides = given.map(\.rowStride)
    }

    /// Calls `body` with a `PixelBuffer` over the copy, valid during the call.
    public func withPixelBuffer<R>(_ body: (PixelBuffer) throws(VisionTaskError) -> R) throws(VisionTaskError) -> R {
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
        } catch let error as VisionTaskError {
            throw error
        } catch let error as ImageError {
            throw .image(error)
        } catch {
            throw .invalidImage("\(error)")
        }
    }
}
