import BlazeFace
import BlazeImage
import Foundation
import Testing

/// Detection inside a region of interest against MediaPipe 0.10.14's FaceDetection graph given
/// the same NormalizedRect on its ROI stream (Tools/reference/make_roi_goldens.py; the Tasks API
/// refuses a region for this task, its graph does not). The letterbox of the region is
/// MediaPipe's to the bit, so the bar is the whole-image one: values within 1e-6.
@Suite struct ROIGoldenTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var image: String
        var roi: RegionOfInterest
        var faces: [(score: Float, box: [Float], keypoints: [Float])]
        var testDescription: String { "\(image) \(roi.left),\(roi.top),\(roi.right),\(roi.bottom)" }
    }

    static let cases: [Case] = (try? load()) ?? []
    static let detector = try! FaceDetector(options: FaceDetectorOptions(weightsPath: Goldens.weights))

    static func load() throws -> [Case] {
        let data = try Data(contentsOf: Goldens.root.appendingPathComponent("goldens/roi/detections.json"))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(json["cases"] as? [[String: Any]]).map { c in
            let r = c["roi"] as? [String: Double] ?? [:]
            let faces = (c["detections"] as? [[String: Any]] ?? []).map { d in
                let b = d["relativeBoundingBox"] as? [String: Double] ?? [:]
                let k = d["keypoints"] as? [[String: Double]] ?? []
                return (score: Float(d["score"] as? Double ?? -1),
                        box: ["xmin", "ymin", "width", "height"].map { Float(b[$0] ?? -1) },
                        keypoints: k.flatMap { [Float($0["x"] ?? -1), Float($0["y"] ?? -1)] })
            }
            return Case(image: c["image"] as? String ?? "",
                        roi: RegionOfInterest(left: Float(r["left"] ?? -1), top: Float(r["top"] ?? -1),
                                              right: Float(r["right"] ?? -1), bottom: Float(r["bottom"] ?? -1)),
                        faces: faces)
        }
    }

    @Test func goldensArePresent() { #expect(Self.cases.count == 8) }

    @Test(arguments: cases)
    func regionOfInterestMatchesMediaPipesGraph(_ c: Case) throws {
        let result = try Self.detector.detect(image: try Goldens.image(c.image),
                                              options: ImageProcessingOptions(regionOfInterest: c.roi))
        try #require(result.detections.count == c.faces.count)
        var worst: Float = 0
        for (d, g) in zip(result.detections, c.faces) {
            let box = d.relativeBoundingBox
            worst = max(worst, abs(d.score - g.score))
            for (a, b) in zip([box.xMin, box.yMin, box.width, box.height], g.box) { worst = max(worst, abs(a - b)) }
            for (a, b) in zip(d.keypointList.flatMap { [$0.x, $0.y] }, g.keypoints) { worst = max(worst, abs(a - b)) }
        }
        #expect(worst <= 1e-6, "largest difference \(worst)")
    }
}
