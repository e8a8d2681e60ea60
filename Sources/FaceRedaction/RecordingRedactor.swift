import BlazeFace
import BlazeImage
import Foundation
import VisionTasks

/// Redacts a recording from a frame source to a frame sink, with the guarantee a file needs:
/// no frame reaches the sink before its masks are drawn, frames leave in the order they came,
/// and a face found late, or found again, is masked on the frames before it too.
///
/// How: frames are read one ahead (so that the last frame is known, and searched in every
/// tile); each frame's masks come from `FaceRedactor.masks(inVideoFrame:…)`; frames then wait
/// in a `LookBehind` window `lookBehind` frames deep, and each frame leaving it is masked and
/// written on a writer thread while the next frames are searched. The first error stops the
/// run: nothing after it is written, and the sink is cancelled (a file sink leaves nothing).
///
/// This is what `blazeface redact` runs for every video; an app redacting a recording runs it
/// over its own source and sink (`VideoFrameSource`, `VideoFrameSink`).
public final class RecordingRedactor {
    /// The redactor that finds each frame's faces (its options say how they are masked).
    public let redactor: FaceRedactor
    /// Frames held back, so that a face found up to this many frames late is masked before it.
    public let lookBehind: Int

    /// What a run did.
    public struct Summary: Sendable, Equatable {
        /// Frames read, masked and written.
        public var frames = 0
        /// Masks drawn on frames before their face was found (the look-behind's work).
        public var backfilledMasks = 0
        /// Of those, masks placed where the face was found by following it back frame by frame.
        public var retracedMasks = 0

        public init(frames: Int = 0, backfilledMasks: Int = 0, retracedMasks: Int = 0) {
            (self.frames, self.backfilledMasks, self.retracedMasks) = (frames, backfilledMasks, retracedMasks)
        }
    }

    /// Why a run stopped: the frame (counted from 0) and what failed there.
    public struct Failure: Error, CustomStringConvertible {
        /// The frame being read, searched or written when it failed.
        public let frame: Int
        /// The underlying error (the source's, the detector's or the sink's).
        public let error: any Error
        public var description: String { "frame \(frame): \(error)" }
    }

    /// A recording redactor over `redactor`, holding `lookBehind` frames back (default
    /// `redactor.lookBehindDepth`; 0...300).
    public init(redactor: FaceRedactor, lookBehind: Int? = nil) throws(VisionTaskError) {
        let depth = lookBehind ?? redactor.lookBehindDepth
        guard (0...300).contains(depth) else { throw .invalidOption(name: "lookBehind", value: "\(depth)", allowed: "in 0...300") }
        (self.redactor, self.lookBehind) = (redactor, depth)
    }

    /// Frames a run holds at once besides its look-behind: the frame being searched and the one
    /// read ahead, the window's three beyond its depth (`LookBehind.delay`), and the writer's
    /// (three queued, one being masked and written).
    public static let framesInFlight = 9

    /// The deepest look-behind (at most `requested`) whose run keeps its frames of `frameBytes`
    /// within `bytes`, or nil when not even a run with none fits: what bounds a run's memory
    /// whatever the look-behind asked for. A shorter look-behind only masks a face found late
    /// on fewer frames before it; every frame still gets its own masks.
    public static func lookBehind(fitting bytes: Int, frameBytes: Int, requested: Int) -> Int? {
        guard frameBytes > 0 else { return requested }
        let frames = bytes / frameBytes - framesInFlight
        return frames < 0 ? nil : min(requested, frames)
    }

    /// One frame's masks as drawn, in the order frames are written: what a masks file records.
    public struct MaskedFrame: Sendable, Equatable {
        /// The frame's index (from 0) and its presentation time.
        public var index: Int, timestampInMilliseconds: Int
        public var masks: [DrawnMask]
    }

    /// Reads every frame of `source`, masks its faces and writes it to `sink`, then finishes
    /// the sink. `progress` is called with the number of frames searched so far, `masks` with
    /// each frame's masks as it is handed to be drawn and written, in order; `policy` adds fixed
    /// regions and leaves chosen faces undrawn (recorded as `.kept`). On any error the sink is
    /// cancelled and a `Failure` naming the frame is thrown.
    @discardableResult
    public func run(from source: any VideoFrameSource, to sink: any VideoFrameSink,
                    progress: ((Int) -> Void)? = nil, masks: ((MaskedFrame) -> Void)? = nil,
                    policy: MaskPolicy = MaskPolicy()) throws(Failure) -> Summary {
        let writer = FrameWriter(sink, options: redactor.options.mask)
        var window: LookBehind<VideoFrame>
        // A face found late is followed back through the waiting frames by the redactor's detector,
        // then by its look.
        let redactor = self.redactor
        do {
            window = try LookBehind(depth: lookBehind, retrace: { frame, box in
                var scratch: [UInt8] = []   // a retrace is rare: its field copy, if any, is its own
                return try? frame.withSearchPixels(scratch: &scratch) { try redactor.face(near: box, in: $0) }
            }, follow: FaceFollowing.follow)
        } catch { throw Failure(frame: 0, error: error) }
        var index = 0, read = 0, lastTimestamp = Int.min, released = 0
        var scratch: [UInt8] = []   // an interlaced frame's field, filled in, to search
        /// Hands a frame leaving the window to the writer, telling `masks` first.
        func submit(_ done: (frame: VideoFrame, masks: [DrawnMask])) throws {
            let t = done.frame.timestampInMilliseconds, drawn = policy.applied(to: done.masks, at: t)
            masks?(MaskedFrame(index: released, timestampInMilliseconds: t, masks: drawn))
            released += 1
            try writer.submit(done.frame, masks: drawn)
        }
        /// The next frame; a read error is the frame being read's.
        func next() throws -> VideoFrame? {
            do {
                let frame = try source.nextFrame()
                read += 1
                return frame
            } catch { throw Failure(frame: read, error: error) }
        }
        do {
            var upcoming = try next()
            while let frame = upcoming {
                upcoming = try next()
                // The tracker needs strictly increasing times; a recording's rarely tie at the millisecond.
                let t = max(frame.timestampInMilliseconds, lastTimestamp &+ 1)
                lastTimestamp = t
                let isLast = upcoming == nil
                let found = try frame.withSearchPixels(scratch: &scratch) {
                    try redactor.masks(inVideoFrame: $0, timestampInMilliseconds: t, everyTile: isLast)
                }
                if let done = window.pushDrawn(frame, masks: found) { try submit(done) }
                index += 1
                progress?(index)
            }
            for done in window.drainDrawn() { try submit(done) }
            try writer.finish()
        } catch {
            let failure = error as? Failure ?? Failure(frame: writer.failedFrame ?? index, error: error)
            writer.abandon()
            sink.cancel()
            throw failure
        }
        return Summary(frames: index, backfilledMasks: window.backfilledMasks + window.retracedMasks,
                       retracedMasks: window.retracedMasks)
    }
}

/// Masks and writes frames on a serial lane of its own, at most three behind, in order; the
/// first error stops it and is thrown by the next `submit` or by `finish` (nothing after a
/// failed frame is written).
private final class FrameWriter: @unchecked Sendable {
    private let sink: any VideoFrameSink
    private let options: RedactionOptions
    private let lane = SerialLane(label: "blazeface.recording.writer", depth: 3)
    private let lock = NSLock()
    private var failure: (frame: Int, error: any Error)?
    private var written = 0, submitted = 0

    init(_ sink: any VideoFrameSink, options: RedactionOptions) { (self.sink, self.options) = (sink, options) }

    private var error: (any Error)? { lock.withLock { failure?.error } }
    /// The frame whose masking or writing failed, if one did.
    var failedFrame: Int? { lock.withLock { failure?.frame } }

    /// Queues `frame` to be masked with `masks` and written. The frame moves into the job,
    /// which takes it out: its one reference, so that masking it in place copies nothing.
    func submit(_ frame: VideoFrame, masks: [DrawnMask]) throws {
        if let error { throw error }
        let held = Handed(frame), options = self.options, number = submitted
        submitted += 1
        lane.submit {
            guard self.error == nil else { return }
            do {
                var frame = held.take()
                let fullRange = frame.fullRange
                try frame.withPixelBuffer { FaceMask.apply(to: $0, masks: masks, options: options, fullRange: fullRange) }
                try self.sink.write(frame)
            } catch { self.lock.withLock { self.failure = (number, error) } }
        }
    }

    /// Waits for every queued frame, then finishes the sink.
    func finish() throws {
        lane.waitUntilEmpty()
        if let error { throw error }
        try sink.finish()
    }

    /// Stops writing: queued frames are dropped.
    func abandon() {
        lock.withLock { if failure == nil { failure = (-1, CancellationError()) } }
        lane.waitUntilEmpty()
    }
}

/// A frame handed to the writer's thread, which takes it out once.
private final class Handed<Frame>: @unchecked Sendable {
    private var frame: Frame?
    init(_ frame: Frame) { self.frame = frame }
    func take() -> Frame { frame.take()! }
}
