import BlazeFace
import BlazeImage
import Testing

/// Region searches (a tracker's cheap search): one region, and up to four in one inference,
/// find the face a full detection finds.
@Suite struct SearchRegionTests {
    @Test func regionsAroundTheFacesFindThemInOneInference() throws {
        let image = try Goldens.image("multi_face")
        let detector = try FaceDetector(options: FaceDetectorOptions(weightsPath: Goldens.weights))
        let full = try detector.detect(image: image).detections
        #expect(full.count == 3)
        // A square twice the face's size around each face (what the tracker searches).
        let regions = full.map { d in
            let b = d.boundingBox
            return RotatedRect(centerX: Float(b.originX) + Float(b.width) / 2, centerY: Float(b.originY) + Float(b.height) / 2,
                               width: 2 * Float(max(b.width, b.height)), height: 2 * Float(max(b.width, b.height)))
        }
        let found = try detector.detect(image: image, searchArea: .regions(regions)).perRegion
        #expect(found.count == 3)
        for (i, (d, r)) in zip(full, found).enumerated() {
            let best = try #require(r.detections.max { $0.score < $1.score })
            // The same face: IoU of at least 0.7, the usual "same object" criterion.
            #expect(best.relativeBoundingBox.intersectionOverUnion(d.relativeBoundingBox) >= 0.7)
            var single = FaceDetectorResult()
            try detector.detect(image: image, searchArea: .region(regions[i]), into: &single)
            #expect(single.detections.contains { $0.relativeBoundingBox.intersectionOverUnion(d.relativeBoundingBox) >= 0.7 })
        }
    }

    @Test func searchRegionCountsOutsideOneToFourAreRefused() throws {
        let image = try Goldens.image("astronaut_tiny48")
        let detector = try FaceDetector(options: FaceDetectorOptions(weightsPath: Goldens.weights))
        let r = RotatedRect(centerX: 24, centerY: 24, width: 48, height: 48)
        #expect(throws: DetectorError.self) { try detector.detect(image: image, searchArea: .regions([])).perRegion }
        #expect(throws: DetectorError.self) { try detector.detect(image: image, searchArea: .regions(Array(repeating: r, count: 5))).perRegion }
        #expect(throws: DetectorError.self) {
            try detector.detect(image: image, searchArea: .regions([RotatedRect(centerX: 1, centerY: 1, width: .nan, height: 4)])).perRegion
        }
    }
}
