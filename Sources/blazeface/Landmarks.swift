import BlazeImageIO
import ArgumentParser
import BlazeFace
import BlazeImage
import LandmarkDetection
import FileRedaction
import Foundation
import MediaFiles

/// `blazeface landmarks`: MediaPipe's raw Face Landmarker view (its result fields, no ML Kit
/// view, no matrix), one JSON line per image; `analyze` is the face analysis command, and this
/// stays as the low-level view Tools/reference/check_landmarks_agreement.py compares.
struct Landmarks: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "MediaPipe's raw Face Landmarker view (478 points, blendshapes) of images, one JSON line per image; see analyze for the ML Kit view.")

    @Argument(help: "Images (PNG, JPEG, PPM, PGM, HEIC, AVIF, WebP, TIFF, BMP; sniffed), folders (searched recursively, sorted), or - for stdin.")
    var images: [String]

    @Option(help: "At most this many faces per image (1...64), best first (default: 1, as MediaPipe).")
    var maxFaces: Int?

    /// The old name of --max-faces (MediaPipe's numFaces), hidden, kept for a release.
    @Option(help: .hidden)
    var numFaces: Int?

    @Option(help: "Drop faces scoring below this (0...1; default: 0.5).")
    var minDetectionConfidence: Float?

    /// The old name of --min-detection-confidence (MediaPipe's minFaceDetectionConfidence), hidden, kept for a release.
    @Option(help: .hidden)
    var minFaceDetectionConfidence: Float?

    @Option(help: "The landmark network's face-presence threshold (0...1).")
    var minFacePresenceConfidence: Float = 0.5

    @Flag(help: "Also run the blendshape model (52 scores per face).")
    var blendshapes = false

    @Option(help: "Write a copy of the image with the 478 points drawn (one image only).")
    var annotate: String?

    @Option(help: "How the pixels must be turned to be upright (UIImage's names). As MediaPipe reports them, results are in the upright picture's coordinates.")
    var orientation: ImageOrientation = .up

    @Flag(help: "Ignore JPEG EXIF orientation (by default it is applied).")
    var noExifOrientation = false

    func validate() throws {
        if annotate != nil, images.count != 1 { throw ValidationError("--annotate takes exactly one image") }
        if images.filter({ $0 == "-" }).count > 1 { throw ValidationError("- (stdin) can be given once") }
        try checkRange(maxFaces, 1...64, "--max-faces")
        try checkRange(numFaces, 1...64, "--num-faces")
        _ = try aliased(maxFaces, numFaces, "--max-faces", "--num-faces")
        try checkUnitInterval(minDetectionConfidence, "--min-detection-confidence")
        try checkUnitInterval(minFaceDetectionConfidence, "--min-face-detection-confidence")
        _ = try aliased(minDetectionConfidence, minFaceDetectionConfidence, "--min-detection-confidence", "--min-face-detection-confidence")
        try checkUnitInterval(minFacePresenceConfidence, "--min-face-presence-confidence")
    }

    func run() throws {
        let landmarker: FaceLandmarker
        do {
            landmarker = try FaceLandmarker(options: FaceLandmarkerOptions(
                numFaces: try aliased(maxFaces, numFaces, "--max-faces", "--num-faces") ?? 1,
                minFaceDetectionConfidence: try aliased(minDetectionConfidence, minFaceDetectionConfidence,
                                                        "--min-detection-confidence", "--min-face-detection-confidence") ?? 0.5,
                minFacePresenceConfidence: minFacePresenceConfidence, outputFaceBlendshapes: blendshapes))
        } catch let error as DetectorError { throw ToolError(error.description) }
        let items = InputList.expand(images)
        let stdin = InputList.standardInput(for: items)
        var failures = 0
        for item in items {
            let name = item.name
            do {
                var image = try item.picture(upright: !noExifOrientation, standardInput: stdin)
                if orientation != .up { image = RGBImage(upright: image, orientation: orientation) }
                let result = try landmarker.detect(image: image)
                print(FaceLandmarkerJSON.line(image: name, result: result))
                if let annotate {
                    var canvas = image
                    result.draw(on: &canvas)
                    try writeAnnotation(canvas, to: annotate)
                }
            } catch let error as ImageError {
                printError(item.message(for: error))
                failures += 1
            } catch let error as DetectorError {
                printError("\(name): \(error.description)"); failures += 1
            }
            fflush(nil)
        }
        if failures > 0 { throw ExitCode(1) }
    }
}
