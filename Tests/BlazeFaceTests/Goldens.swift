import BlazeImageIO
import BlazeFace
import BlazeImage
import Foundation
import Testing

/// Access to the MediaPipe goldens in Tests/Fixtures (made by Tools/reference/make_goldens.py).
enum Goldens {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
    static let weights = root.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Weights/face_detection_short_range.bin").path

    static func weights(_ model: FaceDetectorModel) -> String {
        root.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Weights/\(model.weightsFile)").path
    }

    static func folder(_ model: FaceDetectorModel) -> String { model == .shortRange ? "short_range" : "full_range" }

    /// Every fixture with goldens for `model`, by name (the PNG's stem).
    static func fixtures(_ model: FaceDetectorModel) -> [String] {
        let dir = root.appendingPathComponent("goldens/\(folder(model))")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { !$0.contains(".") }.sorted()
    }

    /// Every fixture with short-range goldens.
    static let fixtures: [String] = fixtures(.shortRange)

    /// (model, fixture) pairs for both models.
    static let cases: [Case] = FaceDetectorModel.allCases.flatMap { m in fixtures(m).map { Case(model: m, fixture: $0) } }

    struct Case: CustomTestStringConvertible, Sendable {
        var model: FaceDetectorModel, fixture: String
        var testDescription: String { "\(model) \(fixture)" }
    }

    static func image(_ name: String) throws -> RGBImage {
        try PNG.read(contentsOf: root.appendingPathComponent("images/\(name).png").path)
    }

    static func floats(_ name: String, _ file: String, model: FaceDetectorModel = .shortRange) throws -> [Float] {
        let data = try Data(contentsOf: root.appendingPathComponent("goldens/\(folder(model))/\(name)/\(file)"))
        return data.withUnsafeBytes { raw in
            (0..<data.count / 4).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self))) }
        }
    }

    struct Face {
        var box: BoundingBox
        var score: Float
        var keypoints: [(x: Float, y: Float, label: String)]
    }

    /// MediaPipe's detections for a fixture (`detections.json` or a variant), in the Tasks
    /// pixel form: the Tasks FaceDetector's for short range; for full range, which Tasks cannot
    /// run, the compiled FaceDetection subgraph's at the stated threshold, converted as Tasks does.
    static func tasksDetections(_ name: String, file: String = "detections.json", model: FaceDetectorModel = .shortRange,
                                key: String? = nil) throws -> [Face] {
        let data = try Data(contentsOf: root.appendingPathComponent("goldens/\(folder(model))/\(name)/\(file)"))
        let json = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        let tasks = json[key ?? (model == .shortRange ? "tasks" : "pixel")] as! [[String: Any]]
        return tasks.map { d in
            let b = d["boundingBox"] as! [String: Int]
            let c = (d["categories"] as! [[String: Any]])[0]
            let k = d["keypoints"] as! [[String: Any]]
            return Face(box: BoundingBox(originX: b["originX"]!, originY: b["originY"]!, width: b["width"]!, height: b["height"]!),
                        score: Float(c["score"] as! Double),
                        keypoints: k.map { (Float($0["x"] as! Double), Float($0["y"] as! Double), $0["label"] as! String) })
        }
    }
}

/// Largest absolute difference between two equally long arrays.
func maxAbsDifference(_ a: [Float], _ b: [Float]) -> Float {
    precondition(a.count == b.count)
    return zip(a, b).map { abs($0 - $1) }.max() ?? 0
}
