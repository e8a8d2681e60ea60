import BlazeImageIO
import BlazeFace
import BlazeImage
import Foundation
import Testing

/// JPEG to detections against MediaPipe 0.10.14's Tasks FaceDetector run on the pixels Pillow
/// decodes from the same files (Tools/reference/make_jpeg_fixtures.py; the EXIF-oriented one
/// after ImageOps.exif_transpose). Our decoder gives Pillow's pixels exactly and the pipeline
/// is bit-exact, so the bar is the PNG fixtures': equal boxes, values within 1e-6.
@Suite struct JPEGGoldenTests {
    static let goldens: [String: [Goldens.Face]] = (try? load()) ?? [:]
    static let detector = try! FaceDetector(options: FaceDetectorOptions(weightsPath: Goldens.weights))

    static func load() throws -> [String: [Goldens.Face]] {
        let data = try Data(contentsOf: Goldens.root.appendingPathComponent("goldens/jpeg/detections.json"))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let images = try #require(json["images"] as? [String: [String: Any]])
        return try images.mapValues { entry in
            let tasks = try #require(entry["tasks"] as? [[String: Any]])
            return tasks.map { d in
                let b = d["boundingBox"] as? [String: Int] ?? [:]
                let c = (d["categories"] as? [[String: Any]])?.first ?? [:]
                let k = d["keypoints"] as? [[String: Any]] ?? []
                return Goldens.Face(box: BoundingBox(originX: b["originX"] ?? -1, originY: b["originY"] ?? -1, width: b["width"] ?? -1, height: b["height"] ?? -1),
                                    score: Float(c["score"] as? Double ?? -1),
                                    keypoints: k.map { (Float($0["x"] as? Double ?? -1), Float($0["y"] as? Double ?? -1), $0["label"] as? String ?? "") })
            }
        }
    }

    static let names = goldens.keys.sorted()

    @Test func goldensArePresent() {
        #expect(Self.names == ["astronaut_422.jpg", "astronaut_baseline.jpg", "astronaut_exif6.jpg", "astronaut_gray.jpg",
                               "astronaut_progressive.jpg", "two_faces_1280x853.jpg"])
    }

    @Test(arguments: names)
    func jpegDetectionsMatchMediaPipeOnPillowsPixels(_ name: String) throws {
        let path = Goldens.root.appendingPathComponent("images/jpeg/\(name)").path
        let image = try ImageFile.read(contentsOf: path, applyingOrientation: true)
        try expectSame(try Self.detector.detect(image: image), try #require(Self.goldens[name]), boxTolerance: 0, valueTolerance: 1e-6)
    }
}
