import BlazeImage
import BlazeImageIO
import BlazeVideoIO
import FaceRedaction
import ArgumentParser
import Foundation

/// What a path holds, told by its first bytes (never by its name): what every command reads.
enum MediaKind: Equatable {
    /// A folder (its files are taken one by one, each by the same rule).
    case folder
    /// A photo: PNG, JPEG, PPM/PGM or HEIF.
    case photo
    /// A YUV4MPEG2 stream (also "-": a pipe from `ffmpeg -f yuv4mpegpipe`).
    case y4m
    /// A video container FFmpeg reads (MP4, MOV, MKV, WebM, AVI, MPEG-TS, ...).
    case video

    /// What `path` holds; a plain sentence when it is missing or nothing known.
    static func of(_ path: String) throws -> MediaKind {
        if path == "-" { return .y4m }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { throw ToolError("\(path): no such file or folder") }
        if isFolder.boolValue { return .folder }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw ToolError("\(path): cannot be read (permission denied?)") }
        let head = [UInt8]((try? handle.read(upToCount: 64)) ?? Data())
        try? handle.close()
        if ImageFormat(sniffing: head) != nil { return .photo }
        if head.starts(with: Array("YUV4MPEG2".utf8)) { return .y4m }
        if VideoFileReader.probe(path: path) { return .video }
        if let cause = VideoFileReader.unreadableCause(path: path) { throw ToolError("\(path): \(cause)") }
        let ext = (path as NSString).pathExtension.lowercased()
        let message = "\(path): not a picture (PNG, JPEG, PPM, PGM, HEIC) or a video FFmpeg can read"
        if mediaExtensions.contains(ext) { throw ToolError(message) }
        throw NotMedia(description: message)
    }

    /// Names that say picture or video: a file named so that cannot be read is a damaged input,
    /// never a stray non-media file.
    static let mediaExtensions: Set<String> = Redact.videoExtensions.union(
        ["png", "jpg", "jpeg", "jpe", "jfif", "ppm", "pgm", "pnm", "heic", "heif", "hif", "avif"])
}

/// A file that neither is nor claims to be a picture or a video (no known signature, no media
/// name, nothing FFmpeg reads): a folder run leaves it out and lists it instead of refusing it.
struct NotMedia: Error, CustomStringConvertible {
    let description: String
}

/// Video sources and sinks by content and by output name.
enum VideoMedia {
    /// The output containers, by extension.
    static let containerExtensions = VideoFileWriter.supportedExtensions

    /// The frame size of a source this tool opened: the reader's, or the Y4M header's.
    static func frameSize(of source: any VideoFrameSource) -> (width: Int, height: Int)? {
        if let video = source as? VideoFileReader { return (video.info.width, video.info.height) }
        if let y4m = source as? Y4MFrameSource { return (y4m.header.width, y4m.header.height) }
        return nil
    }

    /// A source over `path` ("-": Y4M on stdin): Y4M read directly, anything else through FFmpeg.
    static func open(_ path: String, kind: MediaKind, acceptsTruncation: Bool = false, skipsDamagedFrames: Bool = false,
                     decoderThreads: Int = 0) throws -> any VideoFrameSource {
        switch kind {
        case .y4m: return try Y4MFrameSource(path: path)
        default:
            return try VideoFileReader(path: path, options: VideoReadOptions(decoderThreads: decoderThreads, acceptsTruncation: acceptsTruncation,
                                                                             skipsDamagedFrames: skipsDamagedFrames))
        }
    }

    /// Calls `body` with every `every`-th frame of the video at `path` as a picture, its index and
    /// its time, each line flushed; a failure gives an error record in the place of the frame
    /// it stopped at (stdout) and its message (stderr), and false.
    static func eachFrame(of path: String, every: Int, _ body: (RGBImage, Int, Int) throws -> Void) -> Bool {
        var index = 0
        do {
            let frames = try open(path, kind: try MediaKind.of(path))
            while let frame = try frames.nextFrame() {
                defer { index += 1 }
                guard index % every == 0 else { continue }
                try body(RGBImage(videoFrame: frame), index, frame.timestampInMilliseconds)
                fflush(nil)
            }
            return true
        } catch {
            let message = "\(path): frame \(index): \(error)"
            print(ErrorRecord.line(image: path, message: message))
            printError(message)
            return false
        }
    }

    /// Refuses an output name that is no video type this tool writes, before anything is read.
    static func checkOutput(_ path: String) throws {
        let ext = (path as NSString).pathExtension.lowercased()
        guard path == "-" || ext == "y4m" || containerExtensions.contains(ext) else {
            let types = ".y4m (or -), or " + containerExtensions.map { "." + $0 }.joined(separator: ", ")
            if ext.isEmpty {
                throw ValidationError("\(path): the output's name says no video type; end it with \(types), or give a folder (one that exists, or a name ending in /)")
            }
            throw ValidationError("\(path): unknown output type .\(ext); use \(types)")
        }
    }

    /// The sink for `path`, by its extension: `.y4m` or "-" (Y4M), or a container FFmpeg writes.
    /// `source` gives the frame size, rate and the streams to copy.
    static func sink(_ path: String, for source: any VideoFrameSource, options: VideoWriteOptions) throws -> any VideoFrameSink {
        try checkOutput(path)
        if path == "-" || (path as NSString).pathExtension.lowercased() == "y4m" {
            return try Y4MFrameSink(path: path, header: y4mHeader(for: source))
        }
        if let video = source as? VideoFileReader { return try VideoFileWriter(path: path, copying: video, options: options) }
        guard let y4m = source as? Y4MFrameSource else { throw ToolError("\(path): no video to write from") }
        let h = y4m.header
        var color = VideoColor.unspecified
        if h.fullRange { color.range = 2 }
        return try VideoFileWriter(path: path, width: h.width, height: h.height,
                                   timeBase: .init(numerator: Int32(h.frameRateDenominator), denominator: Int32(h.frameRateNumerator)),
                                   frameRate: .init(numerator: Int32(h.frameRateNumerator), denominator: Int32(h.frameRateDenominator)),
                                   color: color, options: options)
    }

    /// A Y4M header for `source`'s frames (its own, for a Y4M source).
    static func y4mHeader(for source: any VideoFrameSource) throws -> Y4MHeader {
        if let y4m = source as? Y4MFrameSource {
            var header = y4m.header
            if ![.c420jpeg, .c420paldv, .c420mpeg2, .c420, .mono].contains(header.colorSpace) {
                header = Y4MHeader(width: header.width, height: header.height, frameRateNumerator: header.frameRateNumerator,
                                   frameRateDenominator: header.frameRateDenominator)   // RGB frames, written as C420jpeg
            }
            return header
        }
        guard let video = source as? VideoFileReader else { throw ToolError("no Y4M header for this source") }
        return y4mHeader(for: video.info)
    }

    /// A C420jpeg header for a video's upright frames, at its average frame rate (25 when unknown).
    static func y4mHeader(for info: VideoInfo) -> Y4MHeader {
        let rate = info.frameRate ?? VideoFrameRate(numerator: 25, denominator: 1)
        var header = Y4MHeader(width: info.width, height: info.height, frameRateNumerator: Int(rate.numerator),
                               frameRateDenominator: Int(rate.denominator))
        header.fullRange = info.fullRange
        return header
    }
}

/// Where one input file's output goes: `output` itself, or, when `output` is a folder that exists
/// or a name ending in "/", the input's name inside it (a photo in a format this tool does not
/// write, or a video in a container it does not, with the extension `redact` gives a folder
/// run's: .jpg, .mp4).
func singleTarget(input: String, output: String, kind: MediaKind) -> String {
    guard output != "-" else { return output }
    var isFolder: ObjCBool = false
    let folder = output.hasSuffix("/") || (FileManager.default.fileExists(atPath: output, isDirectory: &isFolder) && isFolder.boolValue)
    guard folder, input != "-" else { return output }
    let name = (input as NSString).lastPathComponent
    let inside = (output as NSString).appendingPathComponent(name)
    switch kind {
    case .photo: return Redact.photoTarget(inside)
    case .y4m: return (inside as NSString).pathExtension.lowercased() == "y4m" ? inside : (inside as NSString).deletingPathExtension + ".y4m"
    default:
        let ext = (name as NSString).pathExtension.lowercased()
        return VideoMedia.containerExtensions.contains(ext) ? inside : (inside as NSString).deletingPathExtension + ".mp4"
    }
}

/// Creates the folders above a single output that do not exist yet (as a folder run creates its
/// output folder); a plain error when one cannot be made.
func createParentFolders(of output: String) throws {
    guard output != "-" else { return }
    let parent = (output as NSString).deletingLastPathComponent
    guard !parent.isEmpty, !FileManager.default.fileExists(atPath: parent) else { return }
    do { try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true) } catch {
        throw ToolError("\(output): cannot create its folder \(parent): \((error as NSError).localizedDescription)")
    }
}

/// Refuses an output that is an input (the same file, by any name) before anything is written.
func refuseOverwriting(input: String, with output: String) throws {
    guard input != "-", output != "-" else { return }
    var a = stat(), b = stat()
    if stat(input, &a) == 0, stat(output, &b) == 0, a.st_dev == b.st_dev, a.st_ino == b.st_ino {
        throw ValidationError("\(output) is the input \(input): choose another output (the input is never overwritten)")
    }
    let (i, o) = ((input as NSString).standardizingPath, (output as NSString).standardizingPath)
    if i == o { throw ValidationError("\(output) is the input: choose another output (the input is never overwritten)") }
}

/// Writes an annotated copy (`--annotate`) in the format its name says (JPEG, PPM), PNG otherwise.
func writeAnnotation(_ image: RGBImage, to path: String) throws {
    do { try ImageFile.write(image, to: path, format: ImageFormat.forOutput(path: path) ?? .png) } catch { throw ToolError(error.description) }
}

/// The memory a video run takes, and how it is kept within `--max-memory` (issue 40;
/// Docs/performance.md): about `fixedBytes` (the networks, their buffers, the libraries) plus
/// whole frames: the recording's (`RecordingRedactor.framesInFlight` and its look-behind) and
/// the codecs' (FFmpeg's decoder and the encoder hold about `codecFrames.automatic` frames with
/// their automatic threads, `codecFrames.single` with one thread each; measured at 16384x4096).
enum VideoMemory {
    static let fixedBytes = 512 << 20
    static let codecFrames = (automatic: 22, single: 12)

    /// A run that fits: its look-behind, and whether the codecs run on one thread each.
    struct Plan: Equatable {
        var lookBehind: Int
        var singleThreadedCodecs: Bool
    }

    /// The run that fits `budget` with frames of `frameBytes` and keeps the most of `requested`
    /// look-behind: the codecs' own threads if that keeps all of it, else whichever keeps more.
    /// Throws when not even a run with no look-behind and single-threaded codecs fits.
    static func plan(budget: Int, width: Int, height: Int, frameBytes: Int, requested: Int) throws -> Plan {
        let room = budget - fixedBytes
        let automatic = RecordingRedactor.lookBehind(fitting: room - codecFrames.automatic * frameBytes, frameBytes: frameBytes, requested: requested)
        if let automatic, automatic == requested { return Plan(lookBehind: automatic, singleThreadedCodecs: false) }
        let single = RecordingRedactor.lookBehind(fitting: room - codecFrames.single * frameBytes, frameBytes: frameBytes, requested: requested)
        if let single, single > (automatic ?? -1) { return Plan(lookBehind: single, singleThreadedCodecs: true) }
        if let automatic { return Plan(lookBehind: automatic, singleThreadedCodecs: false) }
        let frames = codecFrames.single + RecordingRedactor.framesInFlight
        let needed = fixedBytes + frames * frameBytes
        throw ToolError("\(width)x\(height) frames need about \(needed >> 20) MiB (\(frames) frames of \((frameBytes + (1 << 19)) >> 20) MiB, "
                        + "and \(fixedBytes >> 20) MiB besides), more than --max-memory \(MemorySize(bytes: budget)) allows; "
                        + "raise it to at least \(((needed >> 20) + 511) / 512 * 512)M")
    }
}
