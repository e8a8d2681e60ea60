import ArgumentParser
import BlazeFace
import BlazeImage
import FaceLandmarks
import Foundation

/// `blazeface landmarks`: MediaPipe's raw Face Landmarker view, one JSON line per image (the
/// ML Kit view is `analyze`'s job); used by Tools/reference/check_landmarks_agreement.py.
struct Landmarks: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Face landmarks (478 points) and blendshapes of PNG images, MediaPipe's Face Landmarker; one JSON line per image.")

    @Argument(help: "PNG images.")
    var images: [String]

    @Option(help: "At most this many faces (1...64).")
    var numFaces: Int = 1

    @Option(help: "The face detector's threshold (0...1).")
    var minFaceDetectionConfidence: Float = 0.5

    @Option(help: "The landmark network's face-presence threshold (0...1).")
    var minFacePresenceConfidence: Float = 0.5

    @Flag(help: "Also run the blendshape model (52 scores per face).")
    var blendshapes = false

    func run() throws {
        let landmarker: FaceLandmarker
        do {
            landmarker = try FaceLandmarker(options: FaceLandmarkerOptions(
                numFaces: numFaces, minFaceDetectionConfidence: minFaceDetectionConfidence,
                minFacePresenceConfidence: minFacePresenceConfidence, outputFaceBlendshapes: blendshapes))
        } catch { throw ToolError(error.description) }
        var failures = 0
        for path in images {
            do {
                let image = try PNG.read(contentsOf: path)
                print(Self.line(image: path, result: try landmarker.detect(image: image)))
            } catch let error as ImageError {
                printError(error.description); failures += 1
            } catch let error as DetectorError {
                printError("\(path): \(error.description)"); failures += 1
            }
        }
        if failures > 0 { throw ExitCode(1) }
    }

    /// {"image":P,"width":W,"height":H,"faces":[{"presence":F,"landmarks":[[x,y,z],...478],
    /// "blendshapes":{"_neutral":F,...52}}]} (blendshapes only with --blendshapes); numbers are
    /// the shortest decimals that read back as the same float32.
    static func line(image: String, result: FaceLandmarkerResult) -> String {
        let faces = result.faces.map { face -> String in
            let points = face.landmarks.map { "[\($0.x),\($0.y),\($0.z)]" }.joined(separator: ",")
            var s = "{\"presence\":\(face.presence),\"landmarks\":[\(points)]"
            if !face.blendshapes.isEmpty {
                s += ",\"blendshapes\":{" + face.blendshapes.map { "\(DetectionJSON.string($0.name)):\($0.score)" }.joined(separator: ",") + "}"
            }
            return s + "}"
        }
        return "{\"image\":\(DetectionJSON.string(image)),\"width\":\(result.imageWidth),\"height\":\(result.imageHeight),\"faces\":[\(faces.joined(separator: ","))]}"
    }
}
