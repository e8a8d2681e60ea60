import BlazeImageIO
import ArgumentParser
import BlazeFace
import BlazeImage
import FaceLandmarks
import Foundation

/// `blazeface landmarks`: MediaPipe's raw Face Landmarker view (its result fields, no ML Kit
/// view, no matrix), one JSON line per image; `analyze` is the face analysis command, and this
/// stays as the low-level view Tools/reference/check_landmarks_agreement.py compares.
struct Landmarks: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "MediaPipe's raw Face Landmarker view (478 points, blendshapes) of images, one JSON line per image; see analyze for the ML Kit view.")

    @Argument(help: "Images (PNG, JPEG, PPM, PGM; sniffed; JPEG EXIF orientation applied).")
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
                let image = try Pictures.read(contentsOf: path, upright: true)
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
