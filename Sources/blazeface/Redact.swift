import ArgumentParser
import BlazeFace
import BlazeImage
import BlazeImageIO
import FaceRedaction
import Foundation

/// `blazeface redact INPUT OUTPUT`: faces hidden in a picture or a Y4M video.
struct Redact: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Hide the faces of a picture or a video: blur, pixelate or black them out.",
        discussion: "INPUT is a PNG, JPEG, PPM or PGM picture (written out upright as PNG, or PPM for a .ppm OUTPUT, "
            + "with no metadata unless --keep-metadata), a folder of them (mirrored into the OUTPUT folder, each as NAME.png) "
            + "or a YUV4MPEG2 video (.y4m, or - for stdin, as `ffmpeg -f yuv4mpegpipe` writes; OUTPUT .y4m or - for stdout). "
            + "Pictures larger than three times the model's input are also searched in tiles, for small faces. "
            + "In video, faces are tracked; a face the detector loses stays masked where it was and where it should be "
            + "(a box growing each frame) for --linger frames, or up to 60 frames if it is presumed hidden (behind another face, "
            + "or partly out of the picture); frames are held back --look-behind frames so that a face found late, or found again, "
            + "is masked on the frames before it too. "
            + "Every frame is masked before it is written; a frame that fails stops the run.")

    @Argument(help: "A picture, a folder of pictures, a .y4m video, or - (a Y4M stream on stdin).")
    var input: String

    @Argument(help: "Where to write: a .png or .ppm picture, a folder, a .y4m video, or - (Y4M on stdout).")
    var output: String

    @Option(help: "What fills a face: blur (default), pixelate or solid (black).")
    var mode: RedactionOptions.Mode = .blur

    @Flag(help: "Mask whole boxes instead of the ellipses inside them.")
    var boxes = false

    @Option(help: "The mask's size over the face box's (1...4; default 1.3).")
    var maskScale: Float = 1.3

    @Option(help: "Detection threshold (0...1; default the model's: 0.5 short, 0.6 full).")
    var threshold: Float?

    @Option(help: "The model: short or full.")
    var model: ModelChoice = .short

    @Option(help: "Video: frames a lost face stays masked (0...100).")
    var linger: Int = 5

    @Option(help: "Video: search every tile (new small faces) once every K frames, a share of them on each frame; the whole frame and the tracked faces are searched on every frame (1...100).")
    var every: Int = 16

    @Option(help: "Regions (tiles, tracked faces) searched at once, each on its own copy of the network: auto (the available cores, at most 4) or 1...64.")
    var jobs = ThreadCount(argument: "auto")!

    @Option(help: "Video files and pipes: frames held back (0...300; default 60, as long as a face presumed hidden is held, or --every + --linger if longer) so that a face found late, or found again, is masked on the frames before too.")
    var lookBehind: Int?

    @Flag(help: "Never tile: detect on the whole frame only (faster, misses small faces).")
    var noTiles = false

    @Flag(help: "Pictures: keep the input's EXIF block (camera, date, GPS...; Orientation set to 1, as the pixels are written upright) in the PNG. Off by default: a GPS tag in a published photo undoes the anonymisation. Other metadata is never copied.")
    var keepMetadata = false

    @Flag(help: "No progress bar on stderr (it is shown only on a terminal).")
    var noProgress = false

    func validate() throws {
        guard (0...100).contains(linger) else { throw ValidationError("--linger must be in 0...100") }
        guard (1...100).contains(every) else { throw ValidationError("--every must be in 1...100") }
        guard (0...300).contains(lookBehind ?? 0) else { throw ValidationError("--look-behind must be in 0...300") }
        guard !(keepMetadata && output.lowercased().hasSuffix(".ppm")) else {
            throw ValidationError("--keep-metadata needs PNG output: PPM holds no metadata")
        }
        guard maskScale.isFinite, (1...4).contains(maskScale) else { throw ValidationError("--mask-scale must be in 1...4") }
    }

    func run() throws {
        let redactor: FaceRedactor
        do {
            redactor = try FaceRedactor(
                detectorOptions: FaceDetectorOptions(model: model.detectorModel, minDetectionConfidence: threshold),
                options: RedactionOptions(mode: mode, ellipse: !boxes, maskScale: maskScale),
                linger: linger, scanInterval: every, tiled: !noTiles, jobs: jobs.value)
        } catch { throw ToolError(error.description) }
        let video = input == "-" || input.lowercased().hasSuffix(".y4m")
        var isFolder: ObjCBool = false
        do {
            if !video, FileManager.default.fileExists(atPath: input, isDirectory: &isFolder), isFolder.boolValue {
                try redactFolder(redactor)
            } else if video {
                try redactVideo(redactor)
            } else {
                var image = try ImageFile.read(contentsOf: input, applyingOrientation: true)
                let faces = try redactor.redact(image: &image)
                if output.lowercased().hasSuffix(".ppm") { try PNM.write(image, to: output) } else { try writePNG(image, from: input, to: output) }
                FileHandle.standardError.write(Data("redact: \(faces) face(s) masked\n".utf8))
            }
        } catch let e as ImageError { throw ToolError(e.description) } catch let e as DetectorError { throw ToolError(e.description) }
    }

    /// Written from the pixels alone, so that no EXIF or other metadata of the input survives;
    /// with --keep-metadata, the input's EXIF block (Orientation 1) goes into an eXIf chunk.
    private func writePNG(_ image: RGBImage, from source: String, to target: String) throws {
        if keepMetadata, let bytes = FileManager.default.contents(atPath: source), let exif = EXIFBlock(file: [UInt8](bytes)) {
            try PNG.write(image, to: target, exif: exif.upright())
        } else {
            try PNG.write(image, to: target)
        }
    }

    /// Each picture of the folder and its subfolders (in path order; files that are not
    /// pictures are skipped and named on stderr) to the same relative path in OUTPUT, as .png.
    private func redactFolder(_ redactor: FaceRedactor) throws {
        let files = FileManager.default.enumerator(atPath: input)?.compactMap { $0 as? String }.sorted() ?? []
        var (pictures, faces, skipped) = (0, 0, 0)
        let progress = ProgressBar.wanted(count: files.count, disabled: noProgress) ? ProgressBar(total: files.count, unit: "files") : nil
        defer { progress?.clear() }
        for (done, relative) in files.enumerated() where !(relative as NSString).lastPathComponent.hasPrefix(".") {
            progress?.update(done: done)
            let path = (input as NSString).appendingPathComponent(relative)
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            var image: RGBImage
            do { image = try ImageFile.read(contentsOf: path, applyingOrientation: true) } catch {
                FileHandle.standardError.write(Data("redact: skipped \(path): \(error.description)\n".utf8))
                skipped += 1
                continue
            }
            faces += try redactor.redact(image: &image)
            let target = (output as NSString).appendingPathComponent((relative as NSString).deletingPathExtension + ".png")
            do {
                try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent,
                                                        withIntermediateDirectories: true)
            } catch { throw ToolError("\(target): cannot make its folder: \(error.localizedDescription)") }
            try writePNG(image, from: path, to: target)
            pictures += 1
        }
        FileHandle.standardError.write(Data("redact: \(pictures) picture(s), \(faces) face(s) masked, \(skipped) skipped\n".utf8))
    }

    /// Every frame is masked before it is written; a frame that fails stops the run, and no
    /// unmasked frame is ever written. 4:2:0 and mono streams are masked in their own planes
    /// (pixels outside the masks keep their bytes); 4:2:2 and 4:4:4 go through RGB and come out
    /// 4:2:0. Both look behind.
    private func redactVideo(_ redactor: FaceRedactor) throws {
        let lookBehind = self.lookBehind ?? redactor.lookBehindDepth
        let reader = try Y4MReader(path: input)
        let header = reader.header
        let total = Self.frameCount(input, header)
        let progress = ProgressBar.wanted(count: total, disabled: noProgress) ? ProgressBar(total: total, unit: "frames") : nil
        defer { progress?.clear() }
        let (frames, backfilled): (Int, Int)
        if [.c420jpeg, .c420paldv, .c420mpeg2, .c420, .mono].contains(header.colorSpace) {
            var planes: [UInt8] = []
            (frames, backfilled) = try Self.run(redactor, FrameWriter(try Y4MWriter(path: output, header: header)),
                                                header: header, depth: lookBehind, progress: progress,
                next: { try reader.nextFrame(planes: &planes) ? planes : nil },
                masks: { planes, t, last in
                    try Self.withPixelBuffer(&planes, header) { try redactor.masks(inVideoFrame: $0, timestampInMilliseconds: t, everyTile: last) }
                },
                write: { [options = redactor.options] planes, boxes, y4m in
                    try Self.withPixelBuffer(&planes, header) { FaceMask.apply(to: $0, boxes: boxes, options: options, fullRange: header.fullRange) }
                    try y4m.write(planes: planes)
                })
        } else {
            let writer = try Y4MWriter(path: output, width: header.width, height: header.height,
                                       frameRateNumerator: header.frameRateNumerator, frameRateDenominator: header.frameRateDenominator)
            (frames, backfilled) = try Self.run(redactor, FrameWriter(writer), header: header, depth: lookBehind, progress: progress,
                next: { try reader.nextFrame() },
                masks: { frame, t, last in try redactor.masks(inVideoFrame: frame, timestampInMilliseconds: t, everyTile: last) },
                write: { [options = redactor.options] frame, boxes, y4m in
                    FaceMask.apply(to: &frame, boxes: boxes, options: options)
                    try y4m.write(frame)
                })
        }
        progress?.clear()
        let s = redactor.statistics
        FileHandle.standardError.write(Data(("redact: \(frames) frame(s), \(s.facesMasked) face mask(s), "
            + "\(s.lingeringMasks) bridged by lingering, \(backfilled) drawn before a face was found, "
            + "\(s.regionsSearched) region(s) searched\n").utf8))
    }

    /// Runs every frame through the redactor and the look-behind window (`depth` frames); each
    /// frame leaving the window is masked and written on the writer's thread, while the next
    /// frames are searched. A frame is read ahead, so that the last one is known and searched in
    /// every tile. Returns the frames written and the masks drawn before a face was found.
    private static func run<Frame: Sendable>(_ redactor: FaceRedactor, _ writer: FrameWriter, header: Y4MHeader, depth: Int,
                                             progress: ProgressBar?, next: () throws -> Frame?,
                                             masks: (inout Frame, Int, Bool) throws -> [RedactionMask],
                                             write: @escaping @Sendable (inout Frame, [NormalizedRect], Y4MWriter) throws -> Void)
        throws -> (frames: Int, backfilled: Int) {
        var window = try LookBehind<Frame>(depth: depth)
        func submit(_ done: (frame: Frame, boxes: [NormalizedRect])) throws {
            // The frame moves into the job, which takes it out: its one reference, so that
            // masking it in place copies nothing.
            let held = Handed(done.frame), boxes = done.boxes
            try writer.submit { y4m in
                var frame = held.take()
                try write(&frame, boxes, y4m)
            }
        }
        var index = 0
        var upcoming = try next()
        while var frame = upcoming {
            upcoming = try next()
            let found = try masks(&frame, header.timestampInMilliseconds(ofFrame: index), upcoming == nil)
            if let done = window.push(frame, masks: found) { try submit(done) }
            index += 1
            progress?.update(done: index)
        }
        for done in window.drain() { try submit(done) }
        try writer.finish()
        return (index, window.backfilledMasks)
    }

    /// A 4:2:0 or mono frame's planes as a pixel buffer, for the length of `body`.
    fileprivate static func withPixelBuffer<T>(_ planes: inout [UInt8], _ header: Y4MHeader, _ body: (PixelBuffer) throws -> T) throws -> T {
        let (w, h) = (header.width, header.height)
        let (cw, ch) = ((w + 1) / 2, (h + 1) / 2)
        return try planes.withUnsafeMutableBytes { p throws -> T in
            let frame = UnsafeRawBufferPointer(p)
            let buffer = header.colorSpace == .mono
                ? try PixelBuffer(format: .gray, width: w, height: h, bytes: frame)
                : try PixelBuffer(i420: UnsafeRawBufferPointer(rebasing: frame[0..<(w * h)]), yStride: w,
                                  u: UnsafeRawBufferPointer(rebasing: frame[(w * h)..<(w * h + cw * ch)]), uStride: cw,
                                  v: UnsafeRawBufferPointer(rebasing: frame[(w * h + cw * ch)...]), vStride: cw,
                                  width: w, height: h)
            return try body(buffer)
        }
    }

    /// The frames in a Y4M file, from its size (nil for a pipe): what the progress bar counts to.
    private static func frameCount(_ path: String, _ header: Y4MHeader) -> Int? {
        guard path != "-", let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int else { return nil }
        return size / (header.frameBytes + 6)
    }
}

/// A frame handed to the writer's thread, which takes it out once.
private final class Handed<Frame>: @unchecked Sendable {
    private var frame: Frame?
    init(_ frame: Frame) { self.frame = frame }
    func take() -> Frame { frame.take()! }
}

/// Writes frames on a serial queue of its own, at most three behind; the first error stops it
/// and is thrown by the next `submit` or by `finish` (nothing after a failed frame is written).
private final class FrameWriter: @unchecked Sendable {
    private let writer: Y4MWriter
    private let queue = DispatchQueue(label: "blazeface.redact.writer")
    private let slots = DispatchSemaphore(value: 3)
    private let lock = NSLock()
    private var failure: (any Error)?

    init(_ writer: Y4MWriter) { self.writer = writer }

    private var error: (any Error)? { lock.withLock { failure } }

    func submit(_ work: @escaping @Sendable (Y4MWriter) throws -> Void) throws {
        if let error { throw error }
        slots.wait()
        queue.async {
            defer { self.slots.signal() }
            guard self.error == nil else { return }
            do { try work(self.writer) } catch { self.lock.withLock { self.failure = error } }
        }
    }

    func finish() throws {
        queue.sync {}
        if let error { throw error }
        try writer.flush()
    }
}
