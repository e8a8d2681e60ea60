import BlazeImage
import BlazeVideoIO
import FaceRedaction
import MediaFiles

/// How a video file is redacted: how it is read and written, the look-behind, and the memory
/// the run may take.
public struct VideoRedactionOptions: Sendable, Equatable {
    /// A truncated or damaged input (`acceptsTruncation`, `skipsDamagedFrames`). The decoder's
    /// threads are the memory plan's.
    public var reading: VideoReadOptions
    /// The output's codec, quality, preset, streams copied and metadata. Its threads are the
    /// memory plan's.
    public var writing: VideoWriteOptions
    /// Frames held back so that a face found late is masked in the frames before it (0...300;
    /// nil: the redactor's `lookBehindDepth`).
    public var lookBehind: Int?
    /// The memory the run may take, in bytes (nil: no bound): a shorter look-behind, then codecs
    /// on one thread each, keep a large video within it (`VideoMemoryPlan`).
    public var memoryBudget: Int?

    public init(reading: VideoReadOptions = .init(), writing: VideoWriteOptions = .init(), lookBehind: Int? = nil, memoryBudget: Int? = nil) {
        (self.reading, self.writing, self.lookBehind, self.memoryBudget) = (reading, writing, lookBehind, memoryBudget)
    }
}

/// What a video run will be, told before its first frame is read.
public struct VideoRedactionStart: Sendable {
    /// The frames' size, when the stream says it.
    public var width: Int?, height: Int?
    /// The frames the stream says it holds, when it does.
    public var expectedFrames: Int?
    /// The look-behind the run keeps, and the one asked for (more when the memory budget cut it).
    public var lookBehind: Int, requestedLookBehind: Int
}

/// What `FaceRedactor.redactVideo(at:to:kind:options:policy:starting:progress:masks:shouldStop:)`
/// (or `drawVideo`) did.
public struct RedactedVideo: Sendable {
    /// The frames written.
    public var frames: Int
    /// This run's masks over detected faces, over faces bridged by lingering, and the regions
    /// searched (all 0 when a masks file was drawn).
    public var facesMasked: Int, lingeringMasks: Int, regionsSearched: Int
    /// Masks drawn in frames before their face was found (the look-behind).
    public var backfilledMasks: Int
    /// The masks drawn from a masks file (`drawVideo`), nil when faces were searched.
    public var appliedMasks: Int?
    /// What a truncated input was missing (with `acceptsTruncation`), and the damaged packets
    /// or frames dropped (with `skipsDamagedFrames`), as sentences.
    public var truncation: String?, damage: String?
    /// What the output could not keep (a stream not copied), as sentences.
    public var warnings: [String]
}

/// The memory a video run takes, and how it is kept within a budget: about `fixedBytes` (the
/// networks, their buffers, the libraries) plus whole frames: the recording's
/// (`RecordingRedactor.framesInFlight` and its look-behind) and the codecs' (FFmpeg's decoder and
/// the encoder hold about `codecFrames.automatic` frames with their automatic threads,
/// `codecFrames.single` with one thread each; measured at 16384x4096).
public struct VideoMemoryPlan: Sendable, Equatable {
    public static let fixedBytes = 512 << 20
    public static let codecFrames = (automatic: 22, single: 12)

    /// The look-behind kept, and whether the codecs run on one thread each.
    public var lookBehind: Int
    public var singleThreadedCodecs: Bool

    public init(lookBehind: Int, singleThreadedCodecs: Bool) {
        (self.lookBehind, self.singleThreadedCodecs) = (lookBehind, singleThreadedCodecs)
    }

    /// The run that fits `budget` with frames of `frameBytes` and keeps the most of `requested`
    /// look-behind: the codecs' own threads if that keeps all of it, else whichever keeps more.
    /// Throws when not even a run with no look-behind and single-threaded codecs fits.
    public static func fitting(budget: Int, width: Int, height: Int, frameBytes: Int, requested: Int) throws(TooLittleMemory) -> VideoMemoryPlan {
        let room = budget - fixedBytes
        let automatic = RecordingRedactor.lookBehind(fitting: room - codecFrames.automatic * frameBytes, frameBytes: frameBytes, requested: requested)
        if let automatic, automatic == requested { return VideoMemoryPlan(lookBehind: automatic, singleThreadedCodecs: false) }
        let single = RecordingRedactor.lookBehind(fitting: room - codecFrames.single * frameBytes, frameBytes: frameBytes, requested: requested)
        if let single, single > (automatic ?? -1) { return VideoMemoryPlan(lookBehind: single, singleThreadedCodecs: true) }
        if let automatic { return VideoMemoryPlan(lookBehind: automatic, singleThreadedCodecs: false) }
        let frames = codecFrames.single + RecordingRedactor.framesInFlight
        throw TooLittleMemory(width: width, height: height, frames: frames, frameBytes: frameBytes, budget: budget)
    }

    /// Not even the smallest run fits the budget.
    public struct TooLittleMemory: Error, Sendable, CustomStringConvertible {
        public var width: Int, height: Int
        /// The whole frames the smallest run holds, and their size.
        public var frames: Int, frameBytes: Int
        public var budget: Int
        /// The bytes the smallest run needs.
        public var neededBytes: Int { fixedBytes + frames * frameBytes }
        public var description: String {
            "\(width)x\(height) frames need about \(neededBytes >> 20) MiB (\(frames) frames of \((frameBytes + (1 << 19)) >> 20) MiB, "
                + "and \(fixedBytes >> 20) MiB besides), more than the \(budget >> 20) MiB allowed"
        }
    }
}

/// A video run that failed, naming the input (and the frame, when one was being read, searched
/// or written); nothing is left at the output.
public struct VideoRedactionError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The input cannot be opened or read; the output cannot take what it holds.
        case input, output
        /// The memory budget is too small even for the smallest run (`tooLittleMemory`).
        case memory
        /// The masks file drawn does not fit the input (`drawVideo`).
        case masksFile
        /// A frame failed: read, searched or written.
        case frame
    }
    public var kind: Kind
    public var description: String
    /// With `.memory`: what the smallest run needs.
    public var tooLittleMemory: VideoMemoryPlan.TooLittleMemory?
    /// With `.masksFile`: why the file does not fit, without the input's name.
    public var reason: String?

    public init(_ kind: Kind, _ description: String, tooLittleMemory: VideoMemoryPlan.TooLittleMemory? = nil, reason: String? = nil) {
        (self.kind, self.description, self.tooLittleMemory, self.reason) = (kind, description, tooLittleMemory, reason)
    }
}

extension FaceRedactor {
    /// Redacts the video at `input` (a file FFmpeg reads, or Y4M; "-": Y4M on stdin) into
    /// `output` (a container by its extension, `.y4m`, or "-"): every frame masked before it is
    /// written (`RecordingRedactor`, after `policy`, made for the frame size), audio and other
    /// streams copied as `options.writing` says, the output written under a temporary name and
    /// renamed when complete. A frame that fails, a file that stops short (unless
    /// `acceptsTruncation`) or a throw from `shouldStop` (asked before each frame is read) stops
    /// the run and leaves nothing at `output`. `starting` is told the run's size and look-behind
    /// before the first frame is read; `progress` gets the frames searched, `masks` each frame's
    /// masks as it is written.
    ///
    /// ```swift
    /// let redactor = try FaceRedactor()
    /// let done = try redactor.redactVideo(at: "clip.mp4", to: "clip-redacted.mp4")
    /// print(done.frames, done.facesMasked)
    /// ```
    @discardableResult
    public func redactVideo(at input: String, to output: String, kind: MediaKind? = nil, options: VideoRedactionOptions = .init(),
                            policy: (_ width: Int, _ height: Int) throws -> MaskPolicy = { _, _ in MaskPolicy() },
                            starting: (VideoRedactionStart) throws -> Void = { _ in },
                            progress: ((Int) -> Void)? = nil, masks: ((RecordingRedactor.MaskedFrame) -> Void)? = nil,
                            shouldStop: () throws -> Void = {}) throws -> RedactedVideo {
        let before = statistics
        let run = try VideoRun(input: input, output: output, kind: kind, options: options, requested: options.lookBehind ?? lookBehindDepth,
                               starting: starting)
        let policy = try policy(run.size?.width ?? 1, run.size?.height ?? 1)
        let sink = try run.sink()
        let recording: RecordingRedactor
        do { recording = try RecordingRedactor(redactor: self, lookBehind: run.lookBehind) } catch {
            sink.cancel()
            throw VideoRedactionError(.input, error.description)
        }
        let summary = try withoutActuallyEscaping(shouldStop) { shouldStop in
            do throws(RecordingRedactor.Failure) {
                return try recording.run(from: StoppableSource(run.frames, shouldStop), to: sink, progress: progress, masks: masks, policy: policy)
            } catch {
                try shouldStop()   // stopped: the sink removed its temporary file
                throw run.failure(error)
            }
        }
        return RedactedVideo(run, sink, frames: summary.frames, statistics: statistics, since: before, backfilledMasks: summary.backfilledMasks,
                             appliedMasks: nil)
    }

    /// Draws exactly `masks` (a reviewed masks file, `RecordingRedactor.render`) on the video at
    /// `input` and writes it to `output`, with no detection; the boxes a reviewer added are
    /// first carried to the frames around theirs (`MasksFile.carryingAdditions`, one more read
    /// of the input, so not from stdin). A file for another input (`MasksFile.mismatch(withInputAt:)`)
    /// throws a `VideoRedactionError` of kind `.masksFile` before anything is read or written.
    /// Otherwise as `redactVideo`.
    @discardableResult
    public func drawVideo(masks: MasksFile, at input: String, to output: String, kind: MediaKind? = nil,
                          options: VideoRedactionOptions = .init(), starting: (VideoRedactionStart) throws -> Void = { _ in },
                          progress: ((Int) -> Void)? = nil, shouldStop: () throws -> Void = {}) throws -> RedactedVideo {
        if input != "-", let mismatch = masks.mismatch(withInputAt: input) {
            throw VideoRedactionError(.masksFile, "the masks file \(mismatch), not \(input)", reason: "the masks file \(mismatch)")
        }
        let before = statistics
        let run = try VideoRun(input: input, output: output, kind: kind, options: options, requested: options.lookBehind ?? lookBehindDepth,
                               starting: starting)
        let sink = try run.sink()
        return try withoutActuallyEscaping(shouldStop) { shouldStop in
            var carried = masks
            if !masks.additions.isEmpty {
                guard input != "-" else {
                    sink.cancel()
                    throw VideoRedactionError(.input, "added boxes are carried over the input's frames: give a file, not stdin")
                }
                do {
                    let again = try VideoFiles.open(input, kind: run.kind, options: run.reading)
                    carried = try masks.carryingAdditions(from: StoppableSource(again, shouldStop), redactor: self)
                } catch {
                    sink.cancel()
                    try shouldStop()
                    throw VideoRedactionError(.input, "\(input): \(error)")
                }
            }
            let frames: Int
            do throws(RecordingRedactor.Failure) { frames = try RecordingRedactor.render(from: StoppableSource(run.frames, shouldStop), to: sink, masks: carried, progress: progress) } catch {
                try shouldStop()
                if let invalid = error.error as? MasksFile.Invalid {
                    throw VideoRedactionError(.masksFile, "\(run.name): \(invalid)", reason: "\(invalid)")
                }
                throw run.failure(error)
            }
            return RedactedVideo(run, sink, frames: frames, statistics: statistics, since: before, backfilledMasks: 0,
                                 appliedMasks: masks.frames.reduce(0) { $0 + $1.count })
        }
    }
}

extension RedactedVideo {
    /// A finished run's figures: the redactor's counts since `before`, the input's and the output's notes.
    fileprivate init(_ run: VideoRun, _ sink: any VideoFrameSink, frames: Int, statistics s: FaceRedactor.Statistics,
                     since before: FaceRedactor.Statistics, backfilledMasks: Int, appliedMasks: Int?) {
        self.init(frames: frames, facesMasked: s.facesMasked - before.facesMasked, lingeringMasks: s.lingeringMasks - before.lingeringMasks,
                  regionsSearched: s.regionsSearched - before.regionsSearched, backfilledMasks: backfilledMasks, appliedMasks: appliedMasks,
                  truncation: run.frames.truncation, damage: run.damage, warnings: sink.warnings)
    }
}

/// One video run's input opened within the memory budget, and its output to be made.
private struct VideoRun {
    let input: String, output: String, kind: MediaKind
    let frames: any VideoFrameSource
    let reading: VideoReadOptions
    var writing: VideoWriteOptions
    let lookBehind: Int
    let size: (width: Int, height: Int)?

    /// The input's name in messages.
    var name: String { Self.name(input) }
    static func name(_ input: String) -> String { input == "-" ? "<stdin>" : input }

    init(input: String, output: String, kind: MediaKind?, options: VideoRedactionOptions, requested: Int,
         starting: (VideoRedactionStart) throws -> Void) throws {
        try VideoFiles.checkOutput(output)
        try PathIdentity.refuseOverwriting(input: input, with: output)
        (self.input, self.output, writing) = (input, output, options.writing)
        do {
            self.kind = try kind ?? MediaKind.of(input)
            var reading = options.reading
            var frames = try VideoFiles.open(input, kind: self.kind, options: reading)
            // Within the budget: a shorter look-behind, codecs on one thread, or a refusal before any frame is read.
            var depth = requested
            if let info = frames.streamInfo, let budget = options.memoryBudget {
                let (w, h) = (info.width, info.height)
                let plan: VideoMemoryPlan
                do { plan = try VideoMemoryPlan.fitting(budget: budget, width: w, height: h, frameBytes: w * h * 3 / 2, requested: requested) } catch {
                    throw VideoRedactionError(.memory, "\(Self.name(input)): \(error)", tooLittleMemory: error)
                }
                if plan.singleThreadedCodecs {
                    writing.threads = 1
                    if self.kind != .y4m {
                        reading.decoderThreads = 1
                        frames = try VideoFiles.open(input, kind: self.kind, options: reading)
                    }
                }
                depth = plan.lookBehind
            }
            (self.frames, self.reading, lookBehind) = (frames, reading, depth)
        } catch let error as VideoRedactionError { throw error } catch {
            throw VideoRedactionError(.input, "\(error)")
        }
        size = frames.streamInfo.map { ($0.width, $0.height) }
        try starting(VideoRedactionStart(width: size?.width, height: size?.height, expectedFrames: frames.expectedFrameCount,
                                         lookBehind: lookBehind, requestedLookBehind: requested))
    }

    /// The output's sink; an output that cannot take what the input holds (a damaged or unusual
    /// stream) names the input too.
    func sink() throws -> any VideoFrameSink {
        do { return try VideoFiles.sink(output, for: frames, options: writing) } catch {
            let message = "\(error)"
            throw VideoRedactionError(.output, message.contains(input) ? message : "\(input): \(message)")
        }
    }

    /// The damaged packets or frames dropped, as a sentence.
    var damage: String? { frames.damage.map { "\($0.dropped) damaged packet(s) or frame(s) dropped (the first: \($0.first))" } }

    /// A frame's failure, the file and the frame named once (a reader's or writer's error names
    /// them itself).
    func failure(_ error: RecordingRedactor.Failure) -> VideoRedactionError {
        let cause = "\(error.error)"
        if input != "-", cause.contains(input) { return VideoRedactionError(.frame, cause) }
        return VideoRedactionError(.frame, "\(name): \(error.description)")
    }
}

/// A source that asks `shouldStop` before each frame.
private final class StoppableSource: VideoFrameSource {
    let base: any VideoFrameSource, shouldStop: () throws -> Void
    init(_ base: any VideoFrameSource, _ shouldStop: @escaping () throws -> Void) { (self.base, self.shouldStop) = (base, shouldStop) }
    func nextFrame() throws -> VideoFrame? {
        try shouldStop()
        return try base.nextFrame()
    }
    var expectedFrameCount: Int? { base.expectedFrameCount }
}

extension RedactionBatch {
    /// Runs the shard with each input redacted as `blazeface redact` redacts it: photos by
    /// `FaceRedactor.redactPhoto` (one redactor for all of them), videos by `redactVideo`, each
    /// with a redactor of its own from `redactor` (a video's faces are tracked from frame to
    /// frame). `policy` is made for each input's size; `warning` gets what an output could not
    /// keep and what a kept truncation or skipped damage cost, as sentences naming the input.
    /// `shouldStop` is asked before each input and each video frame.
    ///
    /// ```swift
    /// let batch = RedactionBatch(input: "photos", output: "redacted", shard: Shard(index: 0, count: 4, source: "job"),
    ///                            settings: "defaults")
    /// let summary = try batch.run(redactor: { try FaceRedactor() })
    /// print(summary.sentence)
    /// ```
    public func run(redactor: () throws -> FaceRedactor, photos: PhotoRedactionOptions = .init(), videos: VideoRedactionOptions = .init(),
                    policy: (_ width: Int, _ height: Int) throws -> MaskPolicy = { _, _ in MaskPolicy() },
                    warning: (String) -> Void = { _ in }, events: (Event) -> Void = { _ in },
                    shouldStop: () throws -> Void = {}) throws -> Summary {
        var photoRedactor: FaceRedactor?
        return try run(redact: { work in
            switch work {
            case let .photo(source, target):
                let redactor = try photoRedactor ?? redactor()
                photoRedactor = redactor
                let done = try redactor.redactPhoto(at: source, to: target, options: photos, policy: policy)
                for w in done.warnings { warning("\(source): \(w)") }
                return Outcome(faces: done.faces)
            case let .video(source, target, kind):
                let done = try redactor().redactVideo(at: source, to: target, kind: kind, options: videos, policy: policy, shouldStop: shouldStop)
                for w in done.warnings { warning(w) }
                if let truncation = done.truncation { warning("\(source): kept with acceptsTruncation: \(truncation)") }
                if let damage = done.damage { warning("\(source): with skipsDamagedFrames: \(damage)") }
                return Outcome(faces: done.facesMasked, frames: done.frames, truncated: done.truncation, damaged: done.damage)
            }
        }, events: events, shouldStop: shouldStop)
    }
}
