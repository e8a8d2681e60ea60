import BlazeFace
import BlazeImage
import FaceTracking
import Foundation
import Testing

/// Tracking on synthetic videos with known identities (SyntheticVideo): ID switches counted
/// against the truth, on easy scenes (none allowed) and a hard one (a measured bound).
@Suite struct SyntheticVideoTests {
    typealias Face = SyntheticVideo.Face
    typealias Placement = SyntheticVideo.Placement

    static func lerp(_ a: Int, _ b: Int, _ i: Int, _ n: Int) -> Int { a + (b - a) * i / max(n - 1, 1) }

    // Each frame costs one inference per face searched (~0.1-0.5 s in a debug build), so the
    // scenes are short.

    /// Two faces moving on separate paths.
    static let separate = SyntheticVideo.Scene(frames: (0..<8).map { i in
        [Placement(face: .astronaut, x: lerp(0, 50, i, 8), y: lerp(0, 90, i, 8)),
         Placement(face: .left, x: lerp(160, 150, i, 8), y: lerp(90, 0, i, 8))]
    })

    /// One face moving diagonally across the frame (for detection skipping).
    static let single = SyntheticVideo.Scene(frames: (0..<8).map { i in
        [Placement(face: .astronaut, x: lerp(10, 150, i, 8), y: lerp(80, 10, i, 8))]
    })

    /// The astronaut drifts right and is covered for frames 3, 4 and 5; the other face stays.
    static let occluded = SyntheticVideo.Scene(frames: (0..<9).map { i in
        [Placement(face: .astronaut, x: lerp(10, 50, i, 9), y: 40, covered: (3...5).contains(i)),
         Placement(face: .right, x: 155, y: 60)]
    })

    /// The astronaut walks out on the right, stays away for 5 frames, and comes back.
    static let leavesAndReturns = SyntheticVideo.Scene(frames: (0..<11).map { i in
        let x = i < 3 ? lerp(60, 160, i, 3) : i < 8 ? 400 : lerp(170, 90, i - 8, 3)
        return [Placement(face: .astronaut, x: x, y: 50)]
    })

    /// Two faces crossing: the hard case (the front face hides the back one mid-way).
    static let crossing = SyntheticVideo.Scene(frames: (0..<10).map { i in
        [Placement(face: .astronaut, x: lerp(0, 160, i, 10), y: 30),
         Placement(face: .right, x: lerp(160, 0, i, 10), y: 66)]
    })

    /// Two faces crossing at the same height: the front face hides the back one completely for
    /// a few frames, and the back one must be picked up again by its predicted motion.
    static let crossingBehind = SyntheticVideo.Scene(frames: (0..<12).map { i in
        [Placement(face: .astronaut, x: lerp(0, 160, i, 12), y: 48),
         Placement(face: .right, x: lerp(160, 0, i, 12), y: 48)]
    })

    static func sprites(_ scene: SyntheticVideo.Scene) throws -> [Face: RGBImage] {
        var sprites: [Face: RGBImage] = [:]
        for face in Set(scene.frames.flatMap { $0.map(\.face) }) { sprites[face] = try SyntheticVideo.sprite(face, size: scene.spriteSize) }
        return sprites
    }

    /// Runs the scene through a VideoFaceTracker (frames 33 ms apart) and scores it.
    static func run(_ scene: SyntheticVideo.Scene, options: FaceTrackingOptions = FaceTrackingOptions(),
                    processor: MultiFaceProcessor? = nil) throws -> (SyntheticVideo.Score, VideoFaceTracker, [TrackingFrame]) {
        let sprites = try sprites(scene)
        let tracker = try VideoFaceTracker(options: .init(detectorOptions: FaceDetectorOptions(weightsPath: SyntheticVideo.weights),
                                                          trackingOptions: options))
        var frames: [TrackingFrame] = []
        for i in scene.frames.indices {
            let frame = try tracker.track(videoFrame: try scene.render(i, sprites: sprites), timestampInMilliseconds: i * 33)
            processor?.receive(frame)
            frames.append(frame)
        }
        let score = SyntheticVideo.score(scene, frames.map { .init(faces: $0.faces.map { ($0.trackingID, $0.detection) }) })
        return (score, tracker, frames)
    }

    @Test func separateFacesKeepTheirIDs() throws {
        let (score, _, _) = try Self.run(Self.separate)
        print("separate:", score)
        #expect(score.idSwitches == 0)
        #expect(score.falsePositives == 0)
        #expect(score.detected >= score.visible * 9 / 10)
        #expect(Set(score.ids.values.flatMap { $0 }).count == 2)
    }

    @Test func aFaceAwayTooLongComesBackWithANewID() throws {
        let (score, _, frames) = try Self.run(Self.leavesAndReturns)
        print("leaves and returns:", score)
        let ids = try #require(score.ids[.astronaut])
        #expect(ids.count == 2)                  // retired after 3 missing frames, then a fresh ID
        #expect(ids.count == 2 && ids[1] > ids[0])
        #expect(frames.contains { $0.retiredIDs == [ids[0]] })
        #expect(score.falsePositives == 0)
    }

    /// Measured: see the README's tracking section. The bound is the count measured when this
    /// test was written; a change to association that raises it fails here.
    @Test func crossingFacesSwitchAtMostTheMeasuredNumberOfTimes() throws {
        let (score, _, _) = try Self.run(Self.crossing)
        print("crossing:", score)
        #expect(score.idSwitches <= 0)
        #expect(score.falsePositives == 0)
    }

    /// Measured: see the README's tracking section. The bound is the count measured when this
    /// test was written.
    @Test func facesCrossingBehindEachOtherSwitchAtMostTheMeasuredNumberOfTimes() throws {
        let (score, _, _) = try Self.run(Self.crossingBehind)
        print("crossing behind:", score)
        #expect(score.idSwitches <= 0)
        #expect(score.falsePositives == 0)
    }

    @Test func skippingDetectionKeepsIDsAndSearchesRegions() throws {
        var options = FaceTrackingOptions()
        options.detectionInterval = 3
        let (score, tracker, _) = try Self.run(Self.single, options: options)
        print("single, full detection every 3rd frame:", score, tracker.statistics)
        #expect(score.idSwitches == 0)
        #expect(score.falsePositives == 0)
        #expect(tracker.statistics.regionSearches > 0)
        #expect(tracker.statistics.fullDetections < Self.single.frames.count)
        #expect(score.detected >= score.visible * 9 / 10)
    }

    final class Recorder: PerFaceTracker, @unchecked Sendable {
        let log: Log
        var id = 0
        init(log: Log) { self.log = log }
        func onNew(trackingID: Int, face: TrackedFace) { id = trackingID; log.events.append("new \(trackingID)") }
        func onUpdate(face: TrackedFace, frame: TrackingFrame) { log.events.append("update \(id)") }
        func onMissing(frame: TrackingFrame) { log.events.append("missing \(id)") }
        func onDone() { log.events.append("done \(id)") }
    }
    final class Log { var events: [String] = [] }

    /// Covered for three frames (maxMissingFrames is 3): same ID after, and its per-face tracker
    /// sees onNew, onUpdate, three onMissing, more onUpdate, then onDone at the end.
    @Test func aFaceCoveredForThreeFramesKeepsItsIDAndItsTracker() throws {
        let log = Log()
        let processor = MultiFaceProcessor { _ in Recorder(log: log) }
        let (score, tracker, frames) = try Self.run(Self.occluded, processor: processor)
        print("occluded:", score)
        #expect(score.idSwitches == 0)
        #expect(score.ids[.astronaut]?.count == 1)
        #expect(frames[4].missingIDs == score.ids[.astronaut])
        #expect(frames.allSatisfy { $0.retiredIDs.isEmpty })
        #expect(score.detected == score.visible)
        #expect(tracker.finish().sorted() == score.ids.values.flatMap { $0 }.sorted())
        processor.finish()
        let a = try #require(score.ids[.astronaut]?.first), r = try #require(score.ids[.right]?.first)
        let astronaut = log.events.filter { $0.hasSuffix(" \(a)") }
        #expect(astronaut.first == "new \(a)")
        #expect(astronaut.filter { $0 == "missing \(a)" }.count == 3)
        #expect(astronaut.filter { $0 == "update \(a)" }.count == 6)
        #expect(astronaut.last == "done \(a)")
        #expect(log.events.filter { $0 == "new \(r)" }.count == 1 && log.events.last(where: { $0.hasSuffix(" \(r)") }) == "done \(r)")
    }
}
