import BlazeImage
import BlazeImageIO
import BlazeVideoIO
import Foundation

/// Upright RGB pictures with their times: the frames of a video or a YUV4MPEG2 stream (read as
/// `VideoFiles.open` reads them), or a folder of numbered PNG images. What `blazeface track`
/// reads; `RGBFrames.open(_:kind:fps:)` picks one by the input's content, and `RGBFrameSink`
/// writes them back.
///
/// ```swift
/// let frames = try RGBFrames.open("clip.mp4", kind: try MediaKind.of("clip.mp4"))
/// while let (image, timestampMs) = try frames.next() { ... }
/// ```
public protocol RGBFrameSource: AnyObject {
    /// The next frame and its timestamp in milliseconds, or nil at the end.
    func next() throws -> (image: RGBImage, timestampMs: Int)?
    /// Frames per second as a fraction (a video's own; 30 when it gives none).
    var frameRate: (numerator: Int, denominator: Int) { get }
    /// The video source decoded, if the frames are a video's: what `VideoFiles.sink(_:for:options:)`
    /// takes to write a video of the same stream (nil for pictures).
    var video: (any VideoFrameSource)? { get }
}

public enum RGBFrames {
    /// `input` as RGB frames: a folder as its numbered PNG images at `fps` frames per second, a
    /// video or a YUV4MPEG2 stream (`kind`, from `MediaKind.of`) as its decoded frames. A photo
    /// is refused (`MediaFileError.Kind.notMedia`).
    public static func open(_ input: String, kind: MediaKind, fps: Double = 30) throws -> any RGBFrameSource {
        switch kind {
        case .folder: return try NumberedPNGFrames(folder: input, fps: fps)
        case .photo: throw MediaFileError(.notMedia, "\(input): a photo, not a video")
        case .y4m, .video: return DecodedRGBFrames(try VideoFiles.open(input, kind: kind))
        }
    }
}

/// A video's frames as RGB (`RGBImage(videoFrame:)`), with their own timestamps.
public final class DecodedRGBFrames: RGBFrameSource {
    public let source: any VideoFrameSource
    public init(_ source: any VideoFrameSource) { self.source = source }

    public var video: (any VideoFrameSource)? { source }

    public var frameRate: (numerator: Int, denominator: Int) {
        source.streamInfo.map { ($0.frameRateNumerator, $0.frameRateDenominator) } ?? (30, 1)
    }

    public func next() throws -> (image: RGBImage, timestampMs: Int)? {
        guard let frame = try source.nextFrame() else { return nil }
        return (RGBImage(videoFrame: frame), frame.timestampInMilliseconds)
    }
}

/// The PNG files of a folder whose names hold a number, in numeric order (frame_2 before
/// frame_10), at `fps` frames per second from 0.
public final class NumberedPNGFrames: RGBFrameSource {
    public let paths: [String]
    public let fps: Double
    private var index = 0

    /// Throws `MediaFileError.Kind.notMedia` for a folder with no numbered PNG image.
    public init(folder: String, fps: Double) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
        let numbered = names.filter { $0.lowercased().hasSuffix(".png") }.compactMap { name -> (Int, String)? in
            let digits = name.split(whereSeparator: { !$0.isNumber }).last.flatMap { Int($0) }
            return digits.map { ($0, name) }
        }
        guard !numbered.isEmpty else { throw MediaFileError(.notMedia, "\(folder): no numbered PNG images (like frame_0001.png)") }
        paths = numbered.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map { (folder as NSString).appendingPathComponent($0.1) }
        self.fps = fps
    }

    public var video: (any VideoFrameSource)? { nil }

    public var frameRate: (numerator: Int, denominator: Int) {
        fps == fps.rounded() ? (Int(fps), 1) : (Int((fps * 1000).rounded()), 1000)
    }

    public func next() throws -> (image: RGBImage, timestampMs: Int)? {
        guard index < paths.count else { return nil }
        defer { index += 1 }
        return (try PNG.read(contentsOf: paths[index]), Int((Double(index) * 1000 / fps).rounded()))
    }
}

/// Where RGB frames are written (`track --annotate`), by the name: a video (Y4M, or a container
/// FFmpeg writes, of the same stream as the frames' source; written under a temporary name and
/// renamed by `finish()`), or numbered PNGs in a folder (a name ending in / or an existing folder).
public final class RGBFrameSink {
    private let video: (any VideoFrameSink)?
    private let takesRGB: Bool
    private let folder: String?
    private let timeBase = VideoFrame.TimeBase.milliseconds

    /// Opens `path` for `width` x `height` frames read from `source` (its rate; its video, to
    /// write a container). A folder of PNGs as a container is refused (`MediaFileError.Kind.unknownOutputType`).
    public init(path: String, width: Int, height: Int, source: any RGBFrameSource) throws {
        var isFolder: ObjCBool = false
        if path.hasSuffix("/") || (FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue) {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            (video, takesRGB, folder) = (nil, false, path)
            return
        }
        folder = nil
        let ext = (path as NSString).pathExtension.lowercased()
        if path == "-" || ext == "y4m" {
            let rate = source.frameRate
            video = try Y4MFrameSink(path: path, header: Y4MHeader(width: width, height: height, frameRateNumerator: rate.numerator,
                                                                   frameRateDenominator: rate.denominator))
            takesRGB = true
        } else if let decoded = source.video {
            video = try VideoFiles.sink(path, for: decoded, options: VideoWriteOptions())
            takesRGB = false
        } else {
            throw MediaFileError(.unknownOutputType, "\(path): annotate a folder of PNGs as .y4m, or as a folder")
        }
    }

    /// Writes frame `index` at `timestampMs`: a video frame (RGB into Y4M, 4:2:0 into FFmpeg's
    /// encoder), or `frame_NNNNN.png` in the folder.
    public func write(_ image: RGBImage, index: Int, timestampMs: Int) throws {
        if let video {
            if takesRGB {
                try video.write(VideoFrame(format: .rgb, width: image.width, height: image.height, bytes: image.pixels,
                                           presentationTime: Int64(timestampMs), timeBase: timeBase))
            } else {
                try video.write(VideoFrame(i420From: image, presentationTime: Int64(timestampMs), timeBase: timeBase))
            }
        }
        if let folder {
            let name = "frame_" + String(repeating: "0", count: max(0, 5 - String(index).count)) + "\(index).png"
            try PNG.write(image, to: (folder as NSString).appendingPathComponent(name))
        }
    }

    /// Completes the video (renamed into place); nothing to do for a folder.
    public func finish() throws { try video?.finish() }
    /// Removes the video's temporary file (the run failed).
    public func cancel() { video?.cancel() }
}
