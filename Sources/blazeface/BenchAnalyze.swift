import ArgumentParser
import BlazeFace
import BlazeImage
import FaceAnalysis
import Foundation

/// `blazeface bench-analyze`: times `analyze` with everything on (detection, landmarks,
/// blendshapes, geometry, the ML Kit view and the JSON line) on one decoded photo.
struct BenchAnalyze: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-analyze",
        abstract: "Time analyze with everything on (landmarks, contours, classification, mesh) on one photo, JSON line included; median and minimum.")

    @Option(help: "Threads per network.")
    var threads: Int = 1

    @Option(help: "Faces analysed at the same time, each on its own networks (1...8).")
    var faceThreads: Int = 1

    @Option(help: "Timed iterations (after warm-up).")
    var iterations: Int = 100

    @Option(help: "The photo (default: the bundled 1280x853 two-face photo).")
    var image: String?

    @Flag(help: "Print one JSON object instead of a line of text.")
    var json = false

    func validate() throws {
        guard threads >= 1, threads <= 64 else { throw ValidationError("--threads must be in 1...64") }
        guard iterations >= 1 else { throw ValidationError("--iterations must be at least 1") }
    }

    func run() throws {
        let everything = FaceAnalyzerOptions(landmarkMode: .all, contourMode: .all, classificationMode: .all, meshMode: .all, minFaceSize: 0)
        let pipeline: FaceAnalysisPipeline
        let photo: RGBImage
        do {
            pipeline = try FaceAnalysisPipeline(options: everything, numFaces: 4, threads: threads, faceThreads: faceThreads)
            photo = try ImageFile.read(contentsOf: image ?? BenchDefaults.photo(), applyingOrientation: true)
        } catch let e as FaceAnalysisError { throw ToolError(e.description) } catch let e as ImageError { throw ToolError(e.description) }
        var faces = 0, bytes = 0
        let analyze = try Timing.measure(iterations: iterations) {
            let result = try pipeline.analyze(image: photo)
            faces = result.faces.count
            bytes = Analyze.line(image: "photo", result: result).utf8.count
        }
        let cpu = Timing.cpuName()
        if json {
            print("{\"threads\":\(threads),\"faceThreads\":\(faceThreads),\"faces\":\(faces),\"json_bytes\":\(bytes),\"analyze\":{\"median_us\":\(analyze.median),\"min_us\":\(analyze.min)},\"cpu\":\(DetectionJSON.string(cpu))}")
        } else {
            print("\(threads) thread(s) per network, \(faceThreads) face thread(s), \(iterations) iterations, \(photo.width)x\(photo.height) photo, \(faces) face(s), \(cpu)")
            print("analyze, everything on, JSON line included: median \(analyze.median) us  min \(analyze.min) us")
        }
    }
}
