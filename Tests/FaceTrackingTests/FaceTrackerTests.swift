import BlazeFace
import FaceTracking
import Foundation
import Testing

/// The tracker on hand-made detections: association, ID lifetime, options and smoothing.
@Suite struct FaceTrackerTests {
    /// A face of `size` (normalized, square image) centred at (x, y), with keypoints laid out as a face's.
    static func face(_ x: Float, _ y: Float, size: Float = 0.2, score: Float = 0.9) -> Detection {
        let box = NormalizedRect(xMin: x - size / 2, yMin: y - size / 2, width: size, height: size)
        let offsets: [(Float, Float)] = [(-0.2, -0.15), (0.2, -0.15), (0, 0.05), (0, 0.25), (-0.45, 0), (0.45, 0)]
        let keypoints = KeypointList(offsets.map { (x + $0.0 * size, y + $0.1 * size) })
        return Detection(boundingBox: BoundingBox(box, imageWidth: 100, imageHeight: 100), relativeBoundingBox: box,
                         score: score, keypoints: keypoints)
    }

    static func ids(_ frame: TrackingFrame) -> [Int?] { frame.faces.map(\.trackingID) }

    @Test func trackingDisabledGivesNoIDs() throws {
        var tracker = try FaceTracker(options: FaceTrackingOptions(trackingEnabled: false))
        let frame = try tracker.update(FaceDetectorResult(detections: [Self.face(0.3, 0.3)]), imageWidth: 100, imageHeight: 100,
                                       timestampInMilliseconds: 0)
        #expect(Self.ids(frame) == [nil])
    }

    /// Two faces crossing at speed (half a face width per frame), overlapping each other mid-way,
    /// keep their IDs throughout.
    @Test func constantVelocityCarriesFacesThroughACrossing() throws {
        var tracker = try FaceTracker()
        var idOfLeftStarter: Int?, idOfRightStarter: Int?
        for i in 0..<9 {
            let t = Float(i) / 8
            let a = Self.face(0.1 + 0.8 * t, 0.45, score: 0.9), b = Self.face(0.9 - 0.8 * t, 0.55, score: 0.8)
            let frame = try tracker.update(FaceDetectorResult(detections: [a, b]), imageWidth: 100, imageHeight: 100,
                                           timestampInMilliseconds: i * 40)
            let byY = frame.faces.sorted { $0.detection.relativeBoundingBox.yMin < $1.detection.relativeBoundingBox.yMin }
            if i == 0 { (idOfLeftStarter, idOfRightStarter) = (byY[0].trackingID, byY[1].trackingID) }
            #expect(byY[0].trackingID == idOfLeftStarter && byY[1].trackingID == idOfRightStarter, "frame \(i)")
        }
    }

    @Test func idsAreNeverReused() throws {
        var options = FaceTrackingOptions()
        options.maxMissingFrames = 1
        var tracker = try FaceTracker(options: options)
        var seen: [Int] = []
        var timestamp = 0
        for _ in 0..<3 {
            let frame = try tracker.update(FaceDetectorResult(detections: [Self.face(0.5, 0.5)]), imageWidth: 100, imageHeight: 100,
                                           timestampInMilliseconds: timestamp)
            seen += frame.faces.compactMap(\.trackingID)
            timestamp += 10
            let missing = try tracker.update(FaceDetectorResult(), imageWidth: 100, imageHeight: 100, timestampInMilliseconds: timestamp)
            #expect(missing.missingIDs == [seen.last!])
            timestamp += 10
            let gone = try tracker.update(FaceDetectorResult(), imageWidth: 100, imageHeight: 100, timestampInMilliseconds: timestamp)
            #expect(gone.retiredIDs == [seen.last!])
            timestamp += 10
        }
        #expect(seen == [1, 2, 3])
    }

    @Test func timestampsMustIncrease() throws {
        var tracker = try FaceTracker()
        _ = try tracker.update(FaceDetectorResult(), imageWidth: 10, imageHeight: 10, timestampInMilliseconds: 5)
        #expect(throws: DetectorError.nonIncreasingTimestamp(previous: 5, current: 5)) {
            try tracker.update(FaceDetectorResult(), imageWidth: 10, imageHeight: 10, timestampInMilliseconds: 5)
        }
        #expect(throws: DetectorError.self) {
            try tracker.update(FaceDetectorResult(), imageWidth: 0, imageHeight: 10, timestampInMilliseconds: 6)
        }
    }

    @Test(arguments: [
        { (o: inout FaceTrackingOptions) in o.maxMissingFrames = -1 }, { o in o.detectionInterval = 0 },
        { o in o.keypointWeight = .nan }, { o in o.searchRegionScale = 0.5 }, { o in o.minSearchScore = 2 },
        { o in o.smoothing = OneEuroParameters(minCutoff: 0) }, { o in o.smoothing = OneEuroParameters(beta: -1) },
    ] as [@Sendable (inout FaceTrackingOptions) -> Void])
    func invalidOptionsAreRefused(_ change: @Sendable (inout FaceTrackingOptions) -> Void) {
        var options = FaceTrackingOptions()
        change(&options)
        #expect(throws: DetectorError.self) { try FaceTracker(options: options) }
    }

    /// A still face with jittering detections: smoothing shrinks the jitter; off by default.
    @Test func oneEuroSmoothingReducesJitterOfAStillFace() throws {
        func spread(_ smoothing: OneEuroParameters?) throws -> Float {
            var tracker = try FaceTracker(options: FaceTrackingOptions(smoothing: smoothing))
            var xs: [Float] = []
            for i in 0..<40 {
                let jitter: Float = i % 2 == 0 ? 0.01 : -0.01
                let frame = try tracker.update(FaceDetectorResult(detections: [Self.face(0.5 + jitter, 0.5)]),
                                               imageWidth: 100, imageHeight: 100, timestampInMilliseconds: i * 33)
                if i >= 20 { xs.append(frame.faces[0].detection.keypointList[0].x) }
            }
            return xs.max()! - xs.min()!
        }
        let raw = try spread(nil), smoothed = try spread(OneEuroParameters())
        #expect(abs(raw - 0.02) < 1e-6)
        #expect(smoothed < raw / 2)
    }
}

/// The `blazeface track` line: the frame, its timestamp, and per face the trackingId followed by
/// exactly the detect contract's fields.
@Suite struct TrackingJSONTests {
    @Test func lineHoldsFrameTimestampAndFacesWithIDs() throws {
        let d = FaceTrackerTests.face(0.5, 0.5)
        var frame = TrackingFrame(timestampInMilliseconds: 1234, faces: [TrackedFace(trackingID: 7, detection: d)])
        let line = TrackingJSON.line(frame: 3, frame)
        let detect = DetectionJSON.detection(d)
        #expect(line == "{\"frame\":3,\"timestampMs\":1234,\"faces\":[{\"trackingId\":7," + detect.dropFirst() + "]}")
        frame.faces[0].trackingID = nil
        #expect(TrackingJSON.line(frame: 0, frame).contains("{\"trackingId\":null,\"boundingBox\""))
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect((object?["faces"] as? [[String: Any]])?.first?["trackingId"] as? Int == 7)
    }
}
