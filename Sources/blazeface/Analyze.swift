import ArgumentParser
import BlazeFace
import BlazeImage
import FaceAnalysis
import Foundation
import Synchronization

/// `blazeface analyze`: ML Kit's face detector view of images (FaceAnalysisPipeline), one JSON
/// line per image; input handling and error records as `detect`.
struct Analyze: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "ML Kit-style face analysis (landmarks, contours, head angles, smile, eyes open; MediaPipe's mesh) of images; one JSON line per image.")

    @Argument(help: "Images (PNG, JPEG, PPM, PGM; sniffed), folders (searched recursively, sorted), or - for stdin.")
    var images: [String]

    @Flag(help: "The 10 ML Kit landmarks.")
    var landmarks = false

    @Flag(help: "The 15 ML Kit contours.")
    var contours = false

    @Flag(help: "smilingProbability, leftEyeOpenProbability, rightEyeOpenProbability (runs the blendshape network).")
    var classify = false

    @Flag(help: "MediaPipe's raw outputs too: the 478-point mesh, the 52 blendshapes, the 4x4 transformation matrix.")
    var mesh = false

    @Option(help: "Write a copy of the image with the contours and landmarks drawn (one image; needs --landmarks or --contours).")
    var annotate: String?

    @Option(help: "ML Kit's performance mode: fast (short-range detector) or accurate (full-range).")
    var performanceMode: PerformanceChoice = .fast

    @Option(help: "Drop faces whose detection box is narrower than this fraction of the image width (0...1, ML Kit's minFaceSize).")
    var minFaceSize: Float = 0.1

    @Option(help: "At most this many faces per image (1...64), best first.")
    var numFaces: Int = 4

    @Option(help: "The face detector's threshold (0...1).")
    var minDetectionConfidence: Float = 0.5

    @Option(help: "Threads each network may use (1...64).")
    var threads: Int = 1

    @Option(help: "Faces analysed at the same time, each on its own networks (1...8; default: one per core, up to 4).")
    var faceThreads: Int = FaceAnalysisPipeline.automaticFaceThreads

    @Flag(help: "Ignore JPEG EXIF orientation (by default it is applied).")
    var noExifOrientation = false

    func validate() throws {
        if annotate != nil {
            guard images.count == 1 else { throw ValidationError("--annotate takes exactly one image") }
            guard landmarks || contours else { throw ValidationError("--annotate draws landmarks and contours: add --landmarks or --contours") }
        }
        if images.filter({ $0 == "-" }).count > 1 { throw ValidationError("- (stdin) can be given once") }
    }

    func run() throws {
        let options = FaceAnalyzerOptions(
            performanceMode: performanceMode.mode, landmarkMode: landmarks ? .all : .none, contourMode: contours ? .all : .none,
            classificationMode: classify ? .all : .none, meshMode: mesh ? .all : .none, minFaceSize: minFaceSize)
        let pipeline: FaceAnalysisPipeline
        do {
            pipeline = try FaceAnalysisPipeline(options: options, numFaces: numFaces,
                                                minFaceDetectionConfidence: minDetectionConfidence, threads: threads, faceThreads: faceThreads)
        } catch { throw ToolError(error.description) }
        let items = InputList.expand(images)
        let stdin: Result<[UInt8], ImageError>? = items.contains(.standardInput) ? Detect.readStandardInput() : nil
        var failures = 0
        for item in items {
            let name = item.name
            do {
                let image: RGBImage
                switch item {
                case .file(let path): image = try ImageFile.read(contentsOf: path, applyingOrientation: !noExifOrientation)
                case .standardInput: image = try ImageFile.read(data: try (stdin ?? .success([])).get(), applyingOrientation: !noExifOrientation)
                }
                let result = try pipeline.analyze(image: image)
                print(Self.line(image: name, result: result, faceThreads: faceThreads))
                if let annotate {
                    var canvas = image
                    AnalysisAnnotation.draw(result.faces.map(\.analysis), on: &canvas)
                    do { try PNG.write(canvas, to: annotate) } catch { throw ToolError(error.description) }
                }
            } catch let error as ImageError {
                let message = item == .standardInput && !error.description.hasPrefix("-: ") ? "-: \(error.description)" : error.description
                print(ErrorRecord.line(image: name, message: message)); printError(message); failures += 1
            } catch let error as FaceAnalysisError {
                let message = "\(name): \(error.description)"
                print(ErrorRecord.line(image: name, message: message)); printError(message); failures += 1
            }
            fflush(nil)
        }
        if failures > 0 { throw ExitCode(1) }
    }

    /// {"image":P,"width":W,"height":H,"faces":[{<detect contract's detection fields>,<FaceAnalysisJSON fields>}]}
    /// Built as UTF-8 bytes. With the mesh on a face is some 1600 numbers (about 0.1 ms of
    /// float printing), so up to `faceThreads` faces are written at the same time, each into
    /// its own buffer, and joined in order: the same bytes as one after the other.
    static func line(image: String, result: FaceAnalysisResult, faceThreads: Int = 1) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(1024 + 24_000 * result.faces.count)
        out += "{\"image\":\(DetectionJSON.string(image)),\"width\":\(result.imageWidth),\"height\":\(result.imageHeight),\"faces\":[".utf8
        let faces = result.faces
        let lanes = min(faceThreads, faces.count)
        if lanes > 1 && faces.contains(where: { $0.analysis.mesh != nil }) {
            let parts = Mutex([[UInt8]](repeating: [], count: faces.count))
            DispatchQueue.concurrentPerform(iterations: lanes) { lane in
                for i in stride(from: lane, to: faces.count, by: lanes) {
                    let part = faceObject(faces[i])
                    parts.withLock { $0[i] = part }
                }
            }
            parts.withLock { parts in
                for (i, part) in parts.enumerated() {
                    if i > 0 { out.append(UInt8(ascii: ",")) }
                    out += part
                }
            }
        } else {
            for (i, face) in faces.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                appendFaceObject(face, to: &out)
            }
        }
        out += "]}".utf8
        return String(decoding: out, as: UTF8.self)
    }

    /// One face's object: the detection's fields, then the analysis fields.
    private static func appendFaceObject(_ face: AnalyzedFace, to out: inout [UInt8]) {
        out += DetectionJSON.detection(face.detection).utf8.dropLast()   // the detection's object, still open
        out.append(UInt8(ascii: ","))
        FaceAnalysisJSON.appendFields(face.analysis, to: &out)
        out.append(UInt8(ascii: "}"))
    }

    private static func faceObject(_ face: AnalyzedFace) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(24_000)
        appendFaceObject(face, to: &out)
        return out
    }
}

/// `--performance-mode`: ML Kit's names.
enum PerformanceChoice: String, ExpressibleByArgument, CaseIterable {
    case fast, accurate

    var mode: FaceAnalyzerOptions.PerformanceMode { self == .fast ? .fast : .accurate }
}
