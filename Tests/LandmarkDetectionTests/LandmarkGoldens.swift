import BlazeImageIO
import BlazeImage
import LandmarkDetection
import Foundation

/// The MediaPipe 0.10.14 landmarker goldens in Tests/Fixtures/goldens/face_landmarker
/// (made by Tools/reference/make_goldens_landmarks.py).
enum LandmarkGoldens {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
    static let weights = fixtures.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Weights").path
    static let folder = fixtures.appendingPathComponent("goldens/face_landmarker")

    /// Every fixture with landmark goldens, by the PNG's stem.
    static let names: [String] = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
        .filter { $0.hasSuffix(".stages.json") }.map { String($0.dropLast(".stages.json".count)) }.sorted()

    struct Face {
        var region: FaceRegion
        var crop: [Float]
        var rawLandmarks: [Float]
        var presenceLogit: Float
        var presenceScore: Float
        /// Nil for a region MediaPipe found no face in.
        var landmarks: [SIMD3<Float>]?
        var blendshapes: [(name: String, score: Float)]?
    }

    struct Fixture {
        var name: String
        var image: RGBImage
        var faces: [Face]
    }

    static func load(_ name: String) throws -> Fixture {
        let data = try Data(contentsOf: folder.appendingPathComponent("\(name).stages.json"))
        let json = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        let image = try PNG.read(contentsOf: fixtures.appendingPathComponent("images/\(name).png").path)
        let faces = try (json["faces"] as! [[String: Any]]).map { f -> Face in
            let r = f["roi"] as! [String: Double]
            let crop = f["crop"] as! [String: Any]
            let png = try PNG.read(contentsOf: folder.appendingPathComponent(crop["file"] as! String).path)
            let scale = Float(crop["scale"] as! Double), offset = Float(crop["offset"] as! Double)
            return Face(
                region: FaceRegion(xCenter: Float(r["xCenter"]!), yCenter: Float(r["yCenter"]!), width: Float(r["width"]!),
                                   height: Float(r["height"]!), rotation: Float(r["rotation"]!)),
                crop: png.pixels.map { offset.addingProduct(Float($0), scale) },
                rawLandmarks: (f["rawLandmarks"] as! [Double]).map(Float.init),
                presenceLogit: Float(f["presenceLogit"] as! Double),
                presenceScore: Float(f["presenceScore"] as! Double),
                landmarks: (f["landmarks"] as? [[Double]])?.map { SIMD3(Float($0[0]), Float($0[1]), Float($0[2])) },
                blendshapes: (f["blendshapes"] as? [[Any]])?.map { ($0[0] as! String, Float($0[1] as! Double)) })
        }
        return Fixture(name: name, image: image, faces: faces)
    }

    static func landmarker(blendshapes: Bool = true, numFaces: Int = 4) throws -> FaceLandmarker {
        try FaceLandmarker(options: FaceLandmarkerOptions(numFaces: numFaces, outputFaceBlendshapes: blendshapes, weightsFolder: weights))
    }
}

/// Largest absolute difference between two equally long arrays.
func maxDifference(_ a: [Float], _ b: [Float]) -> Float {
    precondition(a.count == b.count, "\(a.count) vs \(b.count)")
    return zip(a, b).map { abs($0 - $1) }.max() ?? 0
}
