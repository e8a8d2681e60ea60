import BlazeImageIO
import BlazeImage
import BlazeVideoIO
import Foundation
import MediaFiles

/// Where `blazeface track` gets frames: any `VideoFrameSource` (a video file or a YUV4MPEG2
/// stream, read as `redact` reads them) or a folder of numbered PNG images, each frame as RGB
/// with its timestamp in milliseconds.
protocol FrameSource: AnyObject {
    /// The next frame and its timestamp, or nil at the end.
    func next() throws -> (image: RGBImage, timestampMs: Int)?
    /// Frames per second as a fraction, for the annotated video.
    var frameRate: (numerator: Int, denominator: Int) { get }
}

/// Opens `input`: a folder is read as numbered PNGs (at `fps`), anything else as a video or a
/// YUV4MPEG2 stream (recognised by its content, not its name).
func openFrameSource(_ input: String, fps: Double) throws -> any FrameSource {
    let kind = try MediaKind.of(input)
    switch kind {
    case .folder: return try NumberedImages(folder: input, fps: fps)
    case .photo: throw ToolError("\(input): a photo, not a video (use detect)")
    case .y4m, .video: return DecodedFrames(try VideoFiles.open(input, kind: kind))
    }
}

/// A video's frames as RGB (`RGBImage(videoFrame:)`), with their own timestamps.
final class DecodedFrames: FrameSource {
    let source: any VideoFrameSource
    init(_ source: any VideoFrameSource) { self.source = source }

    var frameRate: (numerator: Int, denominator: Int) {
        source.streamInfo.map { ($0.frameRateNumerator, $0.frameRateDenominator) } ?? (30, 1)
    }

    func next() throws -> (image: RGBImage, timestampMs: Int)? {
        guard let frame = try source.nextFrame() else { return nil }
        return (RGBImage(videoFrame: frame), frame.timestampInMilliseconds)
    }
}

/// The PNG files of a folder whose names hold a number, in numeric order (frame_2 before frame_10).
final class NumberedImages: FrameSource {
    let paths: [String]
    let fps: Double
    var index = 0

    init(folder: String, fps: Double) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder)
        let numbered = names.filter { $0.lowercased().hasSuffix(".png") }.compactMap { name -> (Int, String)? in
            let digits = name.split(whereSeparator: { !$0.isNumber }).last.flatMap { Int($0) }
            return digits.map { ($0, name) }
        }
        guard !numbered.isEmpty else { throw ToolError("\(folder): no numbered PNG images (like frame_0001.png)") }
        paths = numbered.sorted { ($0.0, $0.1) < ($1.0, $1.1) }.map { (folder as NSString).appendingPathComponent($0.1) }
        self.fps = fps
    }

    var frameRate: (numerator: Int, denominator: Int) {
        fps == fps.rounded() ? (Int(fps), 1) : (Int((fps * 1000).rounded()), 1000)
    }

    func next() throws -> (image: RGBImage, timestampMs: Int)? {
        guard index < paths.count else { return nil }
        defer { index += 1 }
        return (try PNG.read(contentsOf: paths[index]), Int((Double(index) * 1000 / fps).rounded()))
    }
}
