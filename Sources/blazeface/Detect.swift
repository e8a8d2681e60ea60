import ArgumentParser
import BlazeFace
import BlazeImage
import Foundation

struct Detect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Detect faces in PNG images; one JSON object per image on stdout.")

    @Argument(help: "PNG images.")
    var images: [String]

    @Option(help: "Drop faces scoring below this (0...1; default 0.5 for short, 0.6 for full, as MediaPipe).")
    var minDetectionConfidence: Float?

    @Option(help: "Merge detections overlapping by more than this IoU (0...1).")
    var minSuppressionThreshold: Float = 0.3

    @Option(help: "Report at most this many faces per image (at least 1).")
    var maxFaces: Int?

    @Option(help: "Write a copy of the image with boxes, scores and keypoints drawn (one image only).")
    var annotate: String?

    @Option(help: "The model: short (ML Kit's fast) or full (accurate, for small and distant faces).")
    var model: ModelChoice = .short

    @Option(help: "A weights file (default: the bundled weights of --model).")
    var weights: String?

    func validate() throws {
        if annotate != nil, images.count != 1 { throw ValidationError("--annotate takes exactly one image") }
    }

    func run() throws {
        let detector: FaceDetector
        do {
            detector = try FaceDetector(options: FaceDetectorOptions(
                model: model.detectorModel, weightsPath: weights, minDetectionConfidence: minDetectionConfidence,
                minSuppressionThreshold: minSuppressionThreshold, maxFaces: maxFaces))
        } catch { throw ToolError(error.description) }

        var failures = 0
        for path in images {
            do {
                let image = try PNG.read(contentsOf: path)
                let result = try detector.detect(image: image)
                if let annotate {
                    var canvas = image
                    Annotation.draw(result, on: &canvas)
                    try PNG.write(canvas, to: annotate)
                }
                print(DetectionJSON.line(image: path, width: image.width, height: image.height, result: result))
            } catch let error as ImageError {
                printError(error.description); failures += 1
            } catch let error as DetectorError {
                printError("\(path): \(error.description)"); failures += 1
            }
        }
        if failures > 0 { throw ExitCode(1) }
    }
}

/// `--model`: the two BlazeFace models, by MediaPipe's and ML Kit's names.
enum ModelChoice: String, ExpressibleByArgument, CaseIterable {
    case short, full, fast, accurate

    var detectorModel: FaceDetectorModel {
        switch self {
        case .short, .fast: .shortRange
        case .full, .accurate: .fullRange
        }
    }

    /// The canonical name (short or full), as `bench --json` reports it.
    var canonical: String { detectorModel == .shortRange ? "short" : "full" }
}
