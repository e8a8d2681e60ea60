import InternalUtilities
import BlazeImageIO
import ArgumentParser
import BlazeFace
import BlazeImage
import MeshAnalysis
import Foundation

/// `blazeface bench-analyze`: times `analyze` with everything on (detection, landmarks,
/// blendshapes, geometry, the ML Kit view and the JSON line) on one decoded photo.
struct BenchAnalyze: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-analyze",
        abstract: "Time analyze with everything on (landmarks, contours, classification, mesh) on one photo, JSON line included; median and minimum.")

    @Option(help: "Threads: 1...64, or auto (default: the cores this process may use, at most 4), as analyze's --threads.")
    var threads: ThreadCount?

    /// The old name of --threads, hidden, kept for a release.
    @Option(help: .hidden)
    var faceThreads: ThreadCount?

    /// --threads, or its old name --face-threads; auto by default.
    var threadCount: ThreadCount { get throws { try aliased(threads, faceThreads, "--threads", "--face-threads") ?? ThreadCount(argument: "auto")! } }

    @Option(help: "Timed iterations (after warm-up).")
    var iterations: Int = 100

    @Option(help: "The photo (default: the bundled 1280x853 two-face photo).")
    var image: String?

    @Flag(help: "Print one JSON object instead of a line of text.")
    var json = false

    func validate() throws {
        guard iterations >= 1 else { throw ValidationError("--iterations must be at least 1") }
        _ = try threadCount
    }

    func run() throws {
        let everything = FaceAnalyzerOptions(landmarkMode: .all, contourMode: .all, classificationMode: .all, meshMode: .all, minFaceSize: 0,
                                             contourFaces: .all)
        let pipeline: FaceAnalysisPipeline
        let photo: RGBImage
        do {
            pipeline = try FaceAnalysisPipeline(options: .init(analyzerOptions: everything, numFaces: 4, threadPool: try threadCount.makePool()))
            photo = try ImageFile.read(contentsOf: image ?? BenchDefaults.photo(), applyingOrientation: true)
        } catch let e as VisionTaskError { throw ToolError(e.description) } catch let e as ImageError { throw ToolError(e.description) }
        var faces = 0, bytes = 0
        let analyze = try Timing.measure(iterations: iterations) {
            let (result, line) = try Analyze.analyzedLine(image: "photo", photo, pipeline: pipeline)
            faces = result.faces.count
            bytes = line.utf8.count
        }
        // The same work stage by stage (each stage in its own loop, so warmer than inside analyze).
        let detections = try pipeline.landmarker.detections(for: photo)
        let marks = try pipeline.landmarker.landmarks(for: photo, detections: detections)
        let result = try pipeline.analyze(image: photo)
        let detection = try Timing.measure(iterations: iterations) { _ = try pipeline.landmarker.detections(for: photo) }
        let landmarks = try Timing.measure(iterations: iterations) { _ = try pipeline.landmarker.landmarks(for: photo, detections: detections) }
        let view = try Timing.measure(iterations: iterations) {
            for face in marks.faces {
                _ = try pipeline.analyzer.analyze(landmarks: face.landmarks, blendshapes: face.blendshapes.map { ($0.name, $0.score) },
                                                  imageWidth: photo.width, imageHeight: photo.height)
            }
        }
        let line = Timing.measure(iterations: iterations) {
            _ = FaceAnalysisJSON.line(image: "photo", width: result.imageWidth, height: result.imageHeight,
                                      faceObjects: result.faces.map(FaceAnalysisJSON.faceObject))
        }
        let cpu = Timing.cpuName()
        if json {
            var out = JSONObject()
            out.field("threads", pipeline.landmarker.options.threadPool.threads)
            out.field("faceThreads", pipeline.landmarker.faceLanes)
            out.field("faces", faces)
            out.field("json_bytes", bytes)
            for (name, timing) in [("analyze", analyze), ("detection", detection), ("landmarks", landmarks), ("view", view), ("json", line)] {
                out.field(name, timing)
            }
            out.field("cpu", cpu)
            print(out.text)
        } else {
            print("\(pipeline.landmarker.options.threadPool.threads) thread(s), \(pipeline.landmarker.faceLanes) face lane(s), \(iterations) iterations, \(photo.width)x\(photo.height) photo, \(faces) face(s), \(cpu)")
            print("analyze, everything on, JSON line included: median \(analyze.median) us  min \(analyze.min) us")
            print("  detection                      median \(detection.median) us  min \(detection.min) us")
            print("  landmarks + blendshapes, all   median \(landmarks.median) us  min \(landmarks.min) us")
            print("  geometry + ML Kit view, all    median \(view.median) us  min \(view.min) us")
            print("  JSON line                      median \(line.median) us  min \(line.min) us")
        }
    }
}
