import BlazeFace
import BlazeImage
import Foundation

/// Access to the MediaPipe goldens in Tests/Fixtures (made by Tools/reference/make_goldens.py).
enum Goldens {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
    static let weights = root.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Weights/face_detection_short_range.bin").path

    /// Every fixture with goldens, by name (the PNG's stem).
    static let fixtures: [String] = {
        let dir = root.appendingPathComponent("goldens/short_range")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { !$0.hasSuffix(".json") }.sorted()
    }()

    static func image(_ name: String) throws -> RGBImage {
        try PNG.read(contentsOf: root.appendingPathComponent("images/\(name).png").path)
    }

    static func floats(_ name: String, _ file: String) throws -> [Float] {
        let data = try Data(contentsOf: root.appendingPathComponent("goldens/short_range/\(name)/\(file)"))
        return data.withUnsafeBytes { raw in
            (0..<data.count / 4).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self))) }
        }
    }

    struct Face {
        var box: BoundingBox
        var score: Float
        var keypoints: [(x: Float, y: Float, label: String)]
    }

    /// MediaPipe Tasks FaceDetector's detections for a fixture (`detections.json` or a variant).
    static func tasksDetections(_ name: String, file: String = "detections.json") throws -> [Face] {
        let data = try Data(contentsOf: root.appendingPathComponent("goldens/short_range/\(name)/\(file)"))
        let json = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        let tasks = json["tasks"] as! [[String: Any]]
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
