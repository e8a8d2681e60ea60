import BlazeFace
import BlazeImageIO
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

    /// Feeds `frames` (each frame's detections) 10 ms apart; returns the tracker and every frame's result.
    static func run(_ frames: [[Detection]], options: FaceTrackingOptions) throws -> (FaceTracker, [TrackingFrame]) {
        var tracker = try FaceTracker(options: options)
        var out: [TrackingFrame] = []
        for (i, faces) in frames.enumerated() {
            out.append(try tracker.update(FaceDetectorResult(detections: faces), imageWidth: 100, imageHeight: 100,
                                          timestampInMilliseconds: i * 10))
        }
        return (tracker, out)
    }

    /// Redaction's hidden faces (`maxHiddenFrames`): a face the detector misses is held, not
    /// retired after `maxMissingFrames`, while its predicted box is cut by the picture's edge,
    /// lies in the head of a face about as large detected over it, or holds a smaller face
    /// detected in front of it; a face lost in the open is retired as before.
    @Test func facesPresumedHiddenAreHeld() throws {
        var options = FaceTrackingOptions(maxMissingFrames: 1)
        options.maxHiddenFrames = 10
        func retiredAt(_ frames: [[Detection]]) throws -> Int? {
            try Self.run(frames, options: options).1.firstIndex { !$0.retiredIDs.isEmpty }
        }
        let none = [[Detection]](repeating: [], count: 6)
        // In the open: missing at frame 3, retired at 4.
        #expect(try retiredAt((0..<3).map { [Self.face(0.3 + 0.025 * Float($0), 0.5)] } + none) == 4)
        // Leaving the picture on the right: held while any of its predicted box is inside.
        #expect(try retiredAt((0..<3).map { [Self.face(0.875 + 0.025 * Float($0), 0.5)] } + none + none) ?? 99 >= 9)
        // Moving behind the head of a larger face at (0.7, 0.5): its box there (0.575 to 0.825)
        // holds a third of the predicted box, the head (0.49 to 0.91) most of it.
        let behind = (0..<5).map { [Self.face(0.3 + 0.05 * Float($0), 0.5), Self.face(0.7, 0.5, size: 0.25)] }
        #expect(try retiredAt(behind + none.map { _ in [Self.face(0.7, 0.5, size: 0.25)] }) == nil)
        // A small face in front of a large one's centre, both found at first, then only the
        // small one: the large one is held.
        let small = Self.face(0.5, 0.55, size: 0.1)
        let inFront = (0..<3).map { _ in [Self.face(0.5, 0.5, size: 0.4, score: 0.95), small] } + none.map { _ in [small] }
        let (tracker, frames) = try Self.run(inFront, options: options)
        #expect(frames.allSatisfy { $0.retiredIDs.isEmpty } && frames.last?.missingIDs == [1])
        // Off (the default): the same face is retired.
        #expect(try Self.run(inFront, options: FaceTrackingOptions(maxMissingFrames: 1)).1[4].retiredIDs == [1])
        // Missing faces report where they were last seen and for how long.
        let missing = tracker.missingFaces(at: 90, imageWidth: 100, imageHeight: 100)
        #expect(missing.count == 1 && missing[0].id == 1 && missing[0].frames == 6 && abs(missing[0].lastSeen.width - 0.4) < 1e-6)
    }

    /// A box that grows or shrinks abruptly (a face going behind something, found on its visible
    /// side) moves the track but does not change its velocity.
    @Test func aShrinkingBoxDoesNotSetTheVelocity() throws {
        let frames = (0..<3).map { [Self.face(0.3 + 0.02 * Float($0), 0.5)] } + [[Self.face(0.30, 0.5, size: 0.14)]]
        let (tracker, _) = try Self.run(frames, options: FaceTrackingOptions())
        let next = try #require(tracker.predictedBoxes(at: 40, imageWidth: 100, imageHeight: 100).first?.box)
        #expect(abs(next.xMin + next.width / 2 - 0.32) < 1e-5)
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
        #expect(line == "{\"frame\":3,\"timestampMs\":1234,\"faces\":[{\"trackingId\":7," + detect.dropFirst()
                + "],\"coordinates\":\"boundingBox in pixels, keypoints normalized to the picture's width and height\"}")
        frame.faces[0].trackingID = nil
        #expect(TrackingJSON.line(frame: 0, frame).contains("{\"trackingId\":null,\"boundingBox\""))
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect((object?["faces"] as? [[String: Any]])?.first?["trackingId"] as? Int == 7)
    }
}

/// `TrackingAgreement`, what `track --compare` reports, on hand-made frames.
@Suite struct TrackingAgreementTests {
    /// `TrackingAgreement` (`track --compare`): a face matched at IoU >= 0.5, its keypoints'
    /// distances in pixels; a face under that IoU is missed and the other run's face extra.
    @Test func agreementMatchesFacesByOverlapAndMeasuresKeypointsInPixels() {
        func frame(_ faces: [Detection]) -> TrackingFrame {
            TrackingFrame(timestampInMilliseconds: 0, faces: faces.map { TrackedFace(trackingID: 1, detection: $0) })
        }
        let reference = [frame([FaceTrackerTests.face(0.3, 0.3)]), frame([FaceTrackerTests.face(0.3, 0.3), FaceTrackerTests.face(0.7, 0.7)])]
        // Frame 0 the same face shifted 0.01 (1 pixel of 100); frame 1 the first face alone, and one far from the second.
        let other = [frame([FaceTrackerTests.face(0.31, 0.3)]), frame([FaceTrackerTests.face(0.3, 0.3), FaceTrackerTests.face(0.2, 0.8)])]
        let agreement = TrackingAgreement(reference: reference, other: other, widths: [100, 100], heights: [100, 100])
        #expect(agreement.referenceFaces == 3 && agreement.matchedFaces == 2 && agreement.extraFaces == 1)
        #expect(abs(agreement.recall - 2.0 / 3.0) < 1e-12)
        // Frame 0's IoU: 0.19 x 0.2 over 0.21 x 0.2 (0.9048); frame 1's: 1.
        let expectedIoU: Double = (0.19 / 0.21 + 1) / 2
        #expect(abs(agreement.meanIoU - expectedIoU) < 1e-5)
        // Six keypoints 1 pixel off, six exact.
        #expect(abs(agreement.meanKeypointError - 0.5) < 1e-4 && abs(agreement.maxKeypointError - 1) < 1e-4)
        #expect(TrackingAgreement(reference: reference, other: reference, widths: [100, 100], heights: [100, 100]).recall == 1)
    }

    /// `TrackingComparison` (`track --compare`) on a real photo held still for six frames: the
    /// skipping run (every 3rd frame) detects on two frames and tracks the two faces on the others,
    /// agreeing with the every-frame run on every face; its JSON line in `track --compare`'s order.
    @Test func aComparisonOfSkippingAgreesOnAStillPhotoAndWritesItsLine() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        let photo = try ImageFile.read(contentsOf: root.appendingPathComponent("Fixtures/images/two_faces_1280x853.png").path)
        let frames = (0..<6).map { (image: photo, timestampInMilliseconds: $0 * 40) }
        var intervals: [Int] = []
        let comparison = try TrackingComparison(frames: frames, every: 3, rounds: 2) { interval in
            intervals.append(interval)
            return try VideoFaceTracker(options: .init(trackingOptions: FaceTrackingOptions(detectionInterval: interval)))
        }
        #expect(intervals == [1, 3, 1, 3])
        #expect(comparison.frames == 6 && comparison.every == 3)
        #expect(comparison.agreement.referenceFaces == 12 && comparison.agreement.matchedFaces == 12 && comparison.agreement.extraFaces == 0)
        #expect(comparison.statistics.frames == 6 && comparison.statistics.fullDetections == 2 && comparison.statistics.regionSearches == 4)
        #expect(comparison.secondsEveryFrame > 0 && comparison.secondsSkipping > 0)
        let line = comparison.jsonLine(model: "short")
        let keys = ["frames", "every", "model", "secondsEveryFrame", "secondsSkipping", "speedup", "fullDetections", "regionSearches",
                    "fallbacks", "referenceFaces", "matchedFaces", "recall", "extraFaces", "meanIoU", "meanKeypointErrorPx", "maxKeypointErrorPx"]
        #expect(line.hasPrefix("{\"frames\":6,\"every\":3,\"model\":\"short\",\"secondsEveryFrame\":"))
        let positions = keys.compactMap { line.range(of: "\"\($0)\":")?.lowerBound }
        #expect(positions.count == keys.count && positions == positions.sorted())
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(Set(object.keys) == Set(keys) && object["recall"] as? Double == 1 && object["fullDetections"] as? Int == 2)
    }
}
