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
        discussion: "INPUT is a PNG, JPEG, PPM or PGM picture (written out as PNG, or PPM for a .ppm OUTPUT, with no metadata), "
            + "a folder of them (mirrored into the OUTPUT folder, each as NAME.png) "
            + "or a YUV4MPEG2 video (.y4m, or - for stdin, as `ffmpeg -f yuv4mpegpipe` writes; OUTPUT .y4m or - for stdout). "
            + "In video, a face the detector loses stays masked along its predicted path for --linger frames. "
            + "Pictures larger than three times the model's input are detected in tiles, for small faces.")

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

    @Flag(help: "Never tile: detect on the whole frame only (faster, misses small faces).")
    var noTiles = false

    func validate() throws {
        guard (0...100).contains(linger) else { throw ValidationError("--linger must be in 0...100") }
        guard maskScale.isFinite, (1...4).contains(maskScale) else { throw ValidationError("--mask-scale must be in 1...4") }
    }

    func run() throws {
        let redactor: FaceRedactor
        do {
            redactor = try FaceRedactor(
                detectorOptions: FaceDetectorOptions(model: model.detectorModel, minDetectionConfidence: threshold),
                options: RedactionOptions(mode: mode, ellipse: !boxes, maskScale: maskScale),
                linger: linger, tiled: !noTiles)
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
                // Written from the pixels alone: no EXIF or other metadata of the input survives.
                if output.lowercased().hasSuffix(".ppm") { try PNM.write(image, to: output) } else { try PNG.write(image, to: output) }
                FileHandle.standardError.write(Data("redact: \(faces) face(s) masked\n".utf8))
            }
        } catch let e as ImageError { throw ToolError(e.description) } catch let e as DetectorError { throw ToolError(e.description) }
    }

    /// Each picture of the folder and its subfolders (in path order; files that are not
    /// pictures are skipped and named on stderr) to the same relative path in OUTPUT, as .png.
    private func redactFolder(_ redactor: FaceRedactor) throws {
        let files = FileManager.default.enumerator(atPath: input)?.compactMap { $0 as? String }.sorted() ?? []
        var (pictures, faces, skipped) = (0, 0, 0)
        for relative in files where !(relative as NSString).lastPathComponent.hasPrefix(".") {
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
            try PNG.write(image, to: target)
            pictures += 1
        }
        FileHandle.standardError.write(Data("redact: \(pictures) picture(s), \(faces) face(s) masked, \(skipped) skipped\n".utf8))
    }

    /// Every frame is masked before it is written; a frame that fails stops the run, and no
    /// unmasked frame is ever written.
    private func redactVideo(_ redactor: FaceRedactor) throws {
        let reader = try Y4MReader(path: input)
        let header = reader.header
        let writer = try Y4MWriter(path: output, width: header.width, height: header.height,
                                   frameRateNumerator: header.frameRateNumerator, frameRateDenominator: header.frameRateDenominator)
        var index = 0
        while var frame = try reader.nextFrame() {
            try redactor.redact(frame: &frame, timestampInMilliseconds: header.timestampInMilliseconds(ofFrame: index))
            try writer.write(frame)
            index += 1
        }
        try writer.flush()
        FileHandle.standardError.write(Data(("redact: \(index) frame(s), \(redactor.facesMasked) face mask(s), "
            + "\(redactor.lingeringMasks) bridged by lingering\n").utf8))
    }
}
