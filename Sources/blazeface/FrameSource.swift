import BlazeImageIO
import BlazeImage
import Foundation

/// Where `blazeface track` gets frames: a YUV4MPEG2 stream (a file, or "-" for stdin) or a
/// folder of numbered PNG images, each frame with its timestamp in milliseconds.
protocol FrameSource: AnyObject {
    /// The next frame and its timestamp, or nil at the end.
    func next() throws -> (image: RGBImage, timestampMs: Int)?
    /// Frames per second as a fraction, for the annotated video.
    var frameRate: (numerator: Int, denominator: Int) { get }
}

/// Opens `input`: a folder is read as numbered PNGs (at `fps`), anything else as YUV4MPEG2
/// (recognised by its signature, not its name).
func openFrameSource(_ input: String, fps: Double) throws -> any FrameSource {
    var isFolder: ObjCBool = false
    if input != "-", FileManager.default.fileExists(atPath: input, isDirectory: &isFolder), isFolder.boolValue {
        return try NumberedImages(folder: input, fps: fps)
    }
    return Y4MFrames(reader: try Y4MReader(path: input))
}

final class Y4MFrames: FrameSource {
    let reader: Y4MReader
    var index = 0
    init(reader: Y4MReader) { self.reader = reader }
    var frameRate: (numerator: Int, denominator: Int) { (reader.header.frameRateNumerator, reader.header.frameRateDenominator) }

    func next() throws -> (image: RGBImage, timestampMs: Int)? {
        guard let image = try reader.nextFrame() else { return nil }
        defer { index += 1 }
        return (image, reader.header.timestampInMilliseconds(ofFrame: index))
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
