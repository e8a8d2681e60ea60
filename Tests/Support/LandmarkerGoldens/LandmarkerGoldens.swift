import Foundation

/// The Tasks FaceLandmarker goldens in Tests/Fixtures/goldens/face_landmarker
/// (made by Tools/reference/make_goldens_landmarker.py from MediaPipe 0.10.14), shared by the
/// geometry and analysis tests.
public enum LandmarkerGoldens {
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures")
    public static let folder = root.appendingPathComponent("goldens/face_landmarker")
    public static let geometryWeights = root.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Weights/face_geometry.bin").path

    public struct Face {
        public var landmarks: [SIMD3<Float>]
        public var blendshapes: [(name: String, score: Float)]
        public var matrix: [Float]   // 16, row-major
    }

    public struct Golden {
        public var name: String
        public var width: Int
        public var height: Int
        public var faces: [Face]
    }

    /// Every fixture with a golden, by stem.
    public static var fixtures: [String] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return files.filter { $0.hasSuffix(".landmarker.json") }.map { String($0.dropLast(".landmarker.json".count)) }.sorted()
    }

    public static func load(_ name: String) throws -> Golden {
        let data = try Data(contentsOf: folder.appendingPathComponent(name + ".landmarker.json"))
        guard let json = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let width = json["width"] as? Int, let height = json["height"] as? Int,
              let faces = json["faces"] as? [[String: Any]] else { throw GoldenError.malformed(name) }
        // Floats are the float32 values printed as doubles: Float(Double) is exact.
        func float(_ any: Any) -> Float { Float((any as? NSNumber)?.doubleValue ?? .nan) }
        return Golden(name: name, width: width, height: height, faces: try faces.map { face in
            guard let points = face["landmarks"] as? [[Any]], let shapes = face["blendshapes"] as? [[String: Any]],
                  let rows = face["transformationMatrix"] as? [[Any]] else { throw GoldenError.malformed(name) }
            return Face(landmarks: points.map { SIMD3(float($0[0]), float($0[1]), float($0[2])) },
                        blendshapes: shapes.map { (($0["name"] as? String) ?? "", float($0["score"] as Any)) },
                        matrix: rows.flatMap { $0.map(float) })
        })
    }

    public enum GoldenError: Error { case malformed(String) }
}
