import ArgumentParser
import BlazeFace
import BlazeImage
import BlazeImageIO
import BlazeVideoIO
import FaceRedaction
import FileRedaction
import MediaFiles
import Foundation

/// `blazeface redact INPUT OUTPUT`: faces hidden in a photo, a folder or a video.
struct Redact: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Hide the faces of a photo, a folder or a video: blur, pixelate or black them out.",
        discussion: "INPUT is recognised by its content: a photo (PNG, JPEG, PPM, PGM, HEIC, AVIF, WebP, TIFF, BMP), a folder (mirrored into the OUTPUT "
            + "folder, each file by the same rule), a video FFmpeg reads (MP4, MOV, MKV, WebM, ...) or a YUV4MPEG2 stream (.y4m, "
            + "or - for stdin). OUTPUT's format follows its name: .jpg/.jpeg, .png, .ppm for photos (a HEIC, WebP, TIFF or BMP photo comes out as "
            + "JPEG in a folder); .mp4, .m4v, .mov, .mkv, .webm or .y4m (or - for stdout) for video (in a folder, AVI, MTS, 3GP, GIF... "
            + "come out as MP4, or MKV for audio MP4 cannot hold). "
            + "Videos keep every frame and its timestamp, and their audio and subtitles (copied, not re-encoded); phone videos "
            + "are turned upright; metadata (location, camera, dates) is dropped unless --keep-metadata. "
            + "Faces are tracked; a face the detector loses stays masked for --linger frames (60 if it is presumed hidden); "
            + "frames are held back --look-behind frames so that a face found late is masked on the frames before it too. "
            + "Every frame is masked before it is written; the output is written under a temporary name and renamed when "
            + "complete, so a failure leaves nothing at OUTPUT. A folder (or --input-list) runs as shards (--shard I/N), with a "
            + "manifest per shard in OUTPUT/.blazeface: a rerun skips what is done; exit 65 when inputs were refused, 75 when "
            + "a retry is worth it (Docs/clusters.md).")

    @Argument(help: "A photo, a folder, a video, or - (a Y4M stream on stdin).")
    var input: String

    @Argument(help: "Where to write: a photo, a folder, a video, or - (Y4M on stdout).")
    var output: String

    @Option(help: "What fills a face: blur, pixelate, solid (black), image (see --replace-with), or outline (nothing hidden: see --preview).")
    var mode: RedactionOptions.Mode = .blur

    @Option(help: "Paste this picture (PNG, JPEG, HEIC, AVIF, WebP, TIFF or BMP) over each face, stretched to the mask in its shape (--mode image, as deface's --replacewith img); recorded by its SHA-256 in the masks file.")
    var replaceWith: String?

    @Flag(help: "Preview: draw what would be hidden as white outlines, hiding nothing (the same as --mode outline). The output shows every face: for checking, not for sharing.")
    var preview = false

    @Flag(help: "Mask whole boxes instead of the ellipses inside them.")
    var boxes = false

    @Option(help: "The mask's size over the face box's (1...4).")
    var maskScale: Float = 1.3

    @Option(help: "Drop faces scoring below this (0...1; default: 0.5 for short, 0.6 for full, as MediaPipe).")
    var minDetectionConfidence: Float?

    /// The old name of --min-detection-confidence, hidden, kept for a release.
    @Option(help: .hidden)
    var threshold: Float?

    @Option(help: "The model: short or full.")
    var model: ModelChoice = .short

    @Option(help: "Video: frames a lost face stays masked (0...100).")
    var linger: Int = 5

    @Option(help: "Video: search every tile (new small faces) once every K frames, a share of them on each frame; the whole frame and the tracked faces are searched on every frame (1...100: unlike detect's and track's --every, no frame is skipped). With CenterFace on, video has tiles only when given by size (--tiles SIDES).")
    var every: Int = 16

    @Option(help: "Threads: auto (default: the cores this process may use, at most 4) or 1...64. Regions (tiles, tracked faces) are searched that many at a time, each on its own copy of the network.")
    var threads: ThreadCount?

    /// The old name of --threads, hidden, kept for a release.
    @Option(help: .hidden)
    var jobs: ThreadCount?

    /// Tuning of the CenterFace search (`WideSearch`), for measurements: its masking score, its
    /// confirmation score, the frames its regions are shared over; `--no-centerface` searches
    /// with BlazeFace alone.
    @Option(help: .hidden)
    var centerfaceMinScore: Float?
    @Option(help: .hidden)
    var centerfaceConfirmationScore: Float?
    @Option(help: .hidden)
    var centerfaceEvery: Int?
    @Option(help: .hidden)
    var centerfacePrecision: String?
    @Flag(help: .hidden)
    var noCenterface = false

    /// --threads, or its old name --jobs; auto by default.
    var threadCount: ThreadCount { get throws { try aliased(threads, jobs, "--threads", "--jobs") ?? ThreadCount(argument: "auto")! } }

    @Option(help: "Video: frames held back (0...300; default 60, as long as a face presumed hidden is held, or --every + --linger if longer) so that a face found late, or found again, is masked on the frames before too.")
    var lookBehind: Int?

    @Option(help: "Video: the memory a video may take (a size in MiB, or 1536M, 4G). Frames too large for the look-behind asked for get a shorter one (said on stderr); a video whose frames cannot fit at all is refused before any is read.")
    var maxMemory = MemorySize(bytes: 3 << 30)

    @Option(help: "What is searched besides the whole frame: auto (tiles of the model's input side in pictures larger than it, and of 2 and 3 times it in pictures larger than 3 times it; in video with CenterFace, none: its regions find those faces), off, or tile sides in pixels, comma-separated.")
    var tiles = "auto"

    @Flag(help: "The same as --tiles off: the whole frame only (faster, misses small faces).")
    var noTiles = false

    @Flag(help: "Search photos and videos only as they are stored. By default a photo is searched turned a quarter, a half and three quarters too, for faces on their side or upside down (a photo stored turned with no EXIF orientation, a print scanned upside down), at about four times the time; a video's first frame is too (then one at 2, 6, 14 s and every 8 s after, until faces are found), and if faces show turned, every later frame is searched that way too (a clip stored sideways with no rotation flag).")
    var uprightOnly = false

    @Flag(help: "Video: mask every detection the detector doubts (under --confirmation-score), without asking the other model first. By default such a detection, away from any confirmed face, is masked only if the other model (full range for short, short for full) also finds a face there.")
    var noSecondOpinion = false

    @Option(help: "Video: the score a face needs once before it stays masked when lost, is held while hidden, or is masked on the frames before it was found (0...1). Lower treats more of what the detector doubts (a palm, a cat's face) as faces.")
    var confirmationScore: Float = 0.7

    @Flag(help: "Keep the input's metadata: a photo's EXIF block (Orientation set to 1, as the pixels are written upright; never its thumbnail or maker note, pictures of the unmasked photo), a video's container and stream tags; location (GPS) only with --keep-location. Off by default: camera, dates and places identify people too.")
    var keepMetadata = false

    @Flag(help: "With --keep-metadata: keep the location (EXIF GPS, a video's location tags and telemetry streams) too.")
    var keepLocation = false

    @Option(help: "JPEG output quality (1...100; default: the input JPEG's own, estimated from its tables, or 90).")
    var jpegQuality: Int?

    @Flag(help: "Video: drop the audio (by default audio and subtitles are copied packet for packet).")
    var noAudio = false

    @Option(help: "Video: the output's codec: automatic (H.264 for MP4, MOV and MKV; VP9 for WebM), h264, hevc or vp9.")
    var videoCodec: VideoWriteOptions.Codec = .automatic

    @Option(help: "Video: the encoder's constant rate factor (lower is better and larger; default 23 for H.264, see Docs/video-files.md).")
    var crf: Int?

    @Option(help: "Video: the encoder's speed preset (x264's ultrafast ... veryslow, default superfast; VP9's cpu-used 0...8).")
    var preset: String?

    @Flag(help: "Video: keep what decodes of a file that stops short (cut, or FFmpeg reports missing data) instead of refusing it; the shortfall is printed and, in a folder run, recorded in the manifest (\"truncated\").")
    var acceptTruncated = false

    @Flag(help: "Video: drop a damaged packet or frame in the middle of a file and go on, as ffmpeg does, instead of refusing the file; every frame that decodes is masked, and what was dropped is printed and, in a folder run, recorded in the manifest (\"damaged\").")
    var skipDamagedFrames = false

    @Flag(help: "No progress bar on stderr (it is shown only on a terminal).")
    var noProgress = false

    @Option(help: "Write every mask drawn to this JSON Lines file, frame by frame: its box, its face's tracking ID and why it was drawn (detected, tracked, retraced, before-found, held-to-end, region, kept; added by a reviewer); one photo or video (Docs/anonymisation.md, \"Masks file\").")
    var masks: String?

    @Option(help: "--mode blur: the blur's radius as a share of the mask's shorter side (0.125...1, default 0.25; larger is stronger).")
    var blurRadius: Float?

    @Option(help: "--mode pixelate: the blocks' side as a share of the mask's shorter side (0.125...0.5, default 0.125; larger is coarser).")
    var blockSize: Float?

    @Option(help: "Mask this region too, in pixels of the upright picture: X,Y,W,H, for a video optionally only from START to END seconds (X,Y,W,H@START-END; either may be left out). Repeatable.")
    var maskRegion: [String] = []

    @Option(help: "Leave the face with this tracking ID unmasked (a person who consented; IDs as --masks and track --search redact give them); recorded as kept in the masks file. Repeatable.")
    var keepTrack: [Int] = []

    @Option(help: "Leave unmasked a face whose mask lies wholly inside this region (X,Y,W,H in pixels); a face reaching outside it stays masked. Repeatable.")
    var keepRegion: [String] = []

    @Option(help: "Draw exactly the masks of this masks file (one written by --masks, edited or not), with no detection: the same bytes every time; a file for another input is refused (exit 65).")
    var applyMasks: String?

    @OptionGroup var batch: ShardOptions

    @Option(help: "Folders and lists: the shard's manifest (JSON Lines; default: OUTPUT/.blazeface/manifest-I-of-N.jsonl).")
    var manifest: String?

    @Flag(help: "Folders and lists: redo every input, even those the manifest records as done.")
    var force = false

    /// The --mask-region, --keep-track and --keep-region policy for a picture of this size.
    func policy(width: Int, height: Int) throws -> MaskPolicy {
        func regions(_ texts: [String], timed: Bool, _ flag: String) throws -> [MaskPolicy.PixelRegion] {
            try texts.map { text in
                do { return try MaskPolicy.PixelRegion(parsing: text, timed: timed) } catch { throw ValidationError("\(flag) \(error)") }
            }
        }
        return MaskPolicy(maskRegions: try regions(maskRegion, timed: true, "--mask-region"), keptTracks: Set(keepTrack),
                          keptRegions: try regions(keepRegion, timed: false, "--keep-region"), width: width, height: height)
    }

    func validate() throws {
        _ = try policy(width: 1, height: 1)
        _ = try threadCount
        try checkRange(linger, 0...100, "--linger")
        try checkRange(every, 1...100, "--every")
        try checkRange(lookBehind, 0...300, "--look-behind")
        guard maskScale.isFinite, (1...4).contains(maskScale) else { throw ValidationError("--mask-scale must be in 1...4, not \(maskScale)") }
        if let blurRadius, !(blurRadius.isFinite && (0.125...1).contains(blurRadius)) { throw ValidationError("--blur-radius must be in 0.125...1, not \(blurRadius)") }
        if let blockSize, !(blockSize.isFinite && (0.125...0.5).contains(blockSize)) { throw ValidationError("--block-size must be in 0.125...0.5, not \(blockSize)") }
        try checkRange(jpegQuality, 1...100, "--jpeg-quality")
        try checkRange(crf, 0...63, "--crf")
        try checkUnitInterval(minDetectionConfidence, "--min-detection-confidence")
        try checkUnitInterval(threshold, "--threshold")
        _ = try aliased(minDetectionConfidence, threshold, "--min-detection-confidence", "--threshold")
        if keepLocation, !keepMetadata { throw ValidationError("--keep-location needs --keep-metadata") }
        guard confirmationScore.isFinite, (0...1).contains(confirmationScore) else {
            throw ValidationError("--confirmation-score must be a number in 0...1, not \(confirmationScore)")
        }
        _ = try tiling()
        if mode == .image, replaceWith == nil { throw ValidationError("--mode image needs --replace-with FILE, the picture to paste over faces") }
        if replaceWith != nil, preview || ![.blur, .image].contains(mode) {
            throw ValidationError("--replace-with pastes a picture over faces; --\(preview ? "preview" : "mode \(mode.rawValue)") fills them otherwise: give one")
        }
    }

    /// What fills the masks: --preview's outlines, --replace-with's picture, or --mode.
    var filling: RedactionOptions.Mode { preview ? .outline : replaceWith != nil ? .image : mode }

    /// --replace-with's picture (upright) and its file's SHA-256, or nil.
    func replacement() throws -> ReplacementPicture? { try replaceWith.map(Self.readReplacement) }

    /// The picture at `path` (upright) and its file's SHA-256; a usage error naming --replace-with.
    static func readReplacement(_ path: String) throws -> ReplacementPicture {
        do { return try ReplacementPicture(contentsOf: path) } catch { throw ValidationError("--replace-with \(path): \(error)") }
    }

    /// The CenterFace search, with the hidden tuning options.
    private func wideSearch() throws -> WideSearch? {
        guard !noCenterface else { return nil }
        var wide = WideSearch()
        if let centerfaceMinScore { wide.minScore = centerfaceMinScore }
        if let centerfaceConfirmationScore { wide.confirmationScore = centerfaceConfirmationScore }
        if let centerfaceEvery { wide.scanInterval = centerfaceEvery }
        switch centerfacePrecision {
        case nil: break
        case "float32": wide.precision = .float32
        case "bfloat16": wide.precision = .bfloat16
        case let other?: throw ValidationError("--centerface-precision must be float32 or bfloat16, not \(other)")
        }
        return wide
    }

    /// `--tiles` (and `--no-tiles`) as the redactor's tiling.
    private func tiling() throws -> FaceRedactor.Tiling {
        if noTiles || tiles == "off" { return .off }
        if tiles == "auto" { return .automatic }
        let sizes = tiles.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !sizes.isEmpty, sizes.allSatisfy({ ($0 ?? 0) >= 16 }) else {
            throw ValidationError("--tiles must be auto, off, or tile sides of at least 16 pixels, comma-separated")
        }
        return .tileSizes(sizes.compactMap { $0 })
    }

    /// A redactor with the command's options and --replace-with's picture (read once a run): one
    /// for all the photos of a run, a new one for each video (a video's tracks are its own).
    func makeRedactor(_ pool: ThreadPool, replacement: ReplacementPicture?) throws -> FaceRedactor {
        let tiling = try tiling()
        let minDetectionConfidence = try aliased(minDetectionConfidence, threshold, "--min-detection-confidence", "--threshold")
        let wide = try wideSearch()
        do {
            return try FaceRedactor(options: FaceRedactorOptions(
                detectorOptions: FaceDetectorOptions(model: model.detectorModel, minDetectionConfidence: minDetectionConfidence,
                                                     threadPool: pool),
                mask: RedactionOptions(mode: filling, ellipse: !boxes, maskScale: maskScale, blurRadius: blurRadius ?? 0.25,
                                       blockSize: blockSize ?? 0.125, replacement: replacement?.picture),
                linger: linger, scanInterval: every, tiling: tiling, confirmationScore: confirmationScore,
                secondOpinion: noSecondOpinion ? .off : .otherModel, wideSearch: wide, searchesTurnedStills: !uprightOnly,
                searchesTurnedVideo: !uprightOnly))
        } catch { throw ToolError(error.description) }
    }

    func run() throws {
        StopSignals.install()
        do { try redact() } catch let stop as StoppedBySignal {
            printError("redact: \(stop): temporary files removed, nothing half-written left (exit \(stop.exitStatus))")
            throw ExitCode(stop.exitStatus)
        }
    }

    private func redact() throws {
        let pool = try threadCount.makePool()
        let replacement = try replacement()
        let redactor = try makeRedactor(pool, replacement: replacement)
        try refuseOverwriting(input: input, with: output)
        if batch.inputList != nil {
            if masks != nil { throw ValidationError("--masks takes one photo or video, not a list") }
            guard try MediaKind.of(input) == .folder else { throw ValidationError("--input-list needs INPUT to be the folder its paths are relative to") }
            return try redactBatch(redactor, pool: pool, replacement: replacement)
        }
        let kind = try MediaKind.of(input)
        do { try FileRedactionPlan.checkMasksOptions(kind: kind, writingMasks: masks != nil, drawingMasks: applyMasks != nil) } catch { throw error.reported }
        let applied = try applyMasks.map { try Self.readMasks($0, replacement: replacement) }
        if kind == .folder {
            do { try FileRedactionPlan.checkFolderOutput(output) } catch { throw error.reported }
            return try redactBatch(redactor, pool: pool, replacement: replacement)
        }
        // One file: into OUTPUT, or into the folder OUTPUT names.
        let plan: FileRedactionPlan
        do {
            let request = masks.map { MasksFileRequest(path: $0, replacementSHA256: replacement?.sha256, settings: settingsString) }
            plan = try FileRedactionPlan.prepare(input: input, kind: kind, output: output, masks: request, replacementPath: replaceWith)
        } catch { throw error.reported }
        let json = batch.progress == .json
        if kind == .photo {
            let photo = try redactPhoto(redactor, input, plan.output, masksFile: plan.masks, applying: applied)
            if json {
                printLine(photo.jsonLine(input: input, output: plan.output))
            } else {
                printLine("redact: \(photo.faces) face(s) masked")
            }
        } else {
            try redactVideo(redactor, input, plan.output, kind: kind, jsonLines: json, masksFile: plan.masks, applying: applied)
        }
    }

    /// The masks file at `path` (`MasksFile.read`): one that cannot be used ends the run with 65
    /// and a one-line reason (starting `flag`). Which input it fits is checked where it is drawn.
    static func readMasks(_ path: String, replacement: ReplacementPicture?, flag: String? = nil, needsPicture: Bool = true) throws -> MasksFile {
        let flag = flag ?? "redact: --apply-masks \(path)"
        do { return try MasksFile.read(at: path, replacement: replacement, requiringPicture: needsPicture) } catch {
            switch error.kind {
            case .needsPicture:
                throw ValidationError("--apply-masks \(path) pastes a picture over faces: give it with --replace-with FILE (SHA-256 \(error.pictureSHA256 ?? "?"))")
            case .otherPicture:
                printError("\(flag) was drawn with another picture (SHA-256 \(error.pictureSHA256 ?? "?")), not --replace-with's (\(replacement?.sha256 ?? "?"))")
            case .unreadable:
                printError("\(flag): \(error)")
            }
            throw ExitCode(BatchExit.refused)
        }
    }

    // MARK: - Photos

    /// Redacts one photo to `target` (`FaceRedactor.redactPhoto`), or with --apply-masks draws
    /// the file's masks. A signal during the search writes nothing.
    func redactPhoto(_ redactor: FaceRedactor, _ source: String, _ target: String, masksFile: MasksFileRequest? = nil,
                     applying applied: MasksFile? = nil) throws -> RedactedPhoto {
        guard let format = ImageFormat.forOutput(path: target) else {
            throw ValidationError("\(target): unknown photo type; use " + ImageFormat.outputExtensions.joined(separator: ", "))
        }
        if keepMetadata, format == .pnm { throw ValidationError("\(target): --keep-metadata needs JPEG or PNG output: PPM holds no metadata") }
        let options = PhotoRedactionOptions(metadata: keepMetadata ? .keep(location: keepLocation) : .strip, jpegQuality: jpegQuality)
        let redacted: RedactedPhoto
        do {
            if let applied {
                do { redacted = try FaceRedactor.drawPhoto(masks: applied, at: source, to: target, options: options) } catch let error as PhotoRedactionError where error.kind == .masksFile {
                    printError("redact: --apply-masks: \(error)")
                    throw ExitCode(BatchExit.refused)
                }
            } else {
                redacted = try redactor.redactPhoto(at: source, to: target, options: options, policy: { try policy(width: $0, height: $1) },
                                                    writingMasks: masksFile) { _ in
                    try StopSignals.check()   // a signal while the faces were searched: nothing is written
                }
            }
        } catch let error as ImageError { throw ToolError("\(error)") }
        for warning in redacted.warnings { printError("\(source): \(warning)") }
        return redacted
    }

    // MARK: - Video

    /// How a video is read and written: --accept-truncated, --skip-damaged-frames, the encoder's
    /// flags, --no-audio, --keep-metadata, --look-behind and --max-memory.
    private func videoOptions() -> VideoRedactionOptions {
        var writing = VideoWriteOptions()
        (writing.codec, writing.quality, writing.preset, writing.copyAudio) = (videoCodec, crf, preset, !noAudio)
        writing.metadata = keepMetadata ? .keep(location: keepLocation) : .strip
        return VideoRedactionOptions(reading: VideoReadOptions(acceptsTruncation: acceptTruncated, skipsDamagedFrames: skipDamagedFrames),
                                     writing: writing, lookBehind: lookBehind, memoryBudget: maxMemory.bytes)
    }

    /// Every frame masked before it is written (`FaceRedactor.redactVideo`, or `drawVideo` with
    /// --apply-masks); a frame that fails stops the run and leaves nothing at the output; so does
    /// a file that stops short (unless --accept-truncated). Returns the frames written, the face
    /// masks drawn, and with --accept-truncated what the input was missing.
    @discardableResult
    func redactVideo(_ redactor: FaceRedactor, _ source: String, _ target: String, kind: MediaKind, jsonLines: Bool = false,
                     masksFile: MasksFileRequest? = nil, applying applied: MasksFile? = nil)
        throws -> (frames: Int, faces: Int, truncation: String?, damage: String?) {
        try VideoMedia.checkOutput(target)
        let name = source == "-" ? "<stdin>" : source
        var progress: ProgressBar?
        defer { progress?.clear() }
        var total: Int?
        // Within --max-memory: a shorter look-behind, codecs on one thread, or a refusal before any frame is read.
        let starting = { (start: VideoRedactionStart) throws in
            if start.lookBehind < start.requestedLookBehind, let w = start.width, let h = start.height {
                printError("\(name): \(w)x\(h) frames: look-behind of \(start.lookBehind) frames instead of \(start.requestedLookBehind), "
                           + "to stay within --max-memory \(maxMemory)")
            }
            total = start.expectedFrames
            if ProgressBar.wanted(count: total, disabled: noProgress || batch.progress == .json) { progress = ProgressBar(total: total, unit: "frames") }
        }
        // `--progress json` on one video: a line of frames done at most once a second, then the summary's.
        var lastLine = DispatchTime.now().uptimeNanoseconds
        let frameLine = { (done: Int) in
            progress?.update(done: done)
            let now = DispatchTime.now().uptimeNanoseconds
            guard jsonLines, now - lastLine >= 1_000_000_000 else { return }
            lastLine = now
            printLine(RedactedVideo.progressLine(input: source, frames: done, of: total))
        }
        if let applied, !applied.additions.isEmpty, source == "-" {
            throw ToolError("--apply-masks: added boxes are carried over the input's frames: give a file, not stdin")
        }
        let done: RedactedVideo
        do {
            if let applied {
                done = try redactor.drawVideo(masks: applied, at: source, to: target, kind: kind, options: videoOptions(), starting: starting,
                                              progress: frameLine, shouldStop: StopSignals.check)
            } else {
                done = try redactor.redactVideo(at: source, to: target, kind: kind, options: videoOptions(), policy: { try policy(width: $0, height: $1) },
                                                writingMasks: masksFile, starting: starting, progress: frameLine, shouldStop: StopSignals.check)
            }
        } catch let error as VideoRedactionError {
            switch error.kind {
            case .masksFile:
                printError("redact: --apply-masks \(applyMasks ?? ""): \(error.reason ?? error.description) (\(source))")
                throw ExitCode(BatchExit.refused)
            case .memory:
                let m = error.tooLittleMemory!
                throw ToolError("\(name): \(m.width)x\(m.height) frames need about \(m.neededBytes >> 20) MiB (\(m.frames) frames of "
                                + "\((m.frameBytes + (1 << 19)) >> 20) MiB, and \(VideoMemoryPlan.fixedBytes >> 20) MiB besides), more than --max-memory "
                                + "\(MemorySize(bytes: m.budget)) allows; raise it to at least \(((m.neededBytes >> 20) + 511) / 512 * 512)M")
            default: throw ToolError(error.description)
            }
        }
        progress?.clear()
        for warning in done.warnings { printError(warning) }
        // --progress json: stderr holds the JSON lines alone (in a folder run the frames and masks
        // are in the input's line).
        if jsonLines {
            printLine(done.jsonLine(input: source, output: target))
        } else if let applied = done.appliedMasks, batch.progress != .json {
            printLine("redact: \(name): \(done.frames) frame(s), \(applied) mask(s) drawn from \(applyMasks ?? "") (no detection)")
        } else if batch.progress != .json {
            printLine("redact: \(name): \(done.frames) frame(s), \(done.facesMasked) face mask(s), \(done.lingeringMasks) bridged by lingering, "
                      + "\(done.backfilledMasks) drawn before a face was found, \(done.regionsSearched) region(s) searched")
        }
        if let truncation = done.truncation { printError("\(source): kept with --accept-truncated: \(truncation)") }
        if let damage = done.damage { printError("\(source): with --skip-damaged-frames: \(damage)") }
        return (done.frames, done.facesMasked, done.truncation, done.damage)
    }
}

extension FileRedactionPlanError {
    /// As the command reports it: a usage error, or (a folder that cannot be made) a plain failure.
    var reported: any Error { kind == .folder ? ToolError(description) : ValidationError(description) }
}
