import BlazeFace
import BlazeImage
import MeshAnalysis
import FaceTracking
import Foundation
import Synchronization
import Testing

/// Tracking IDs on live-stream results: a SharedFaceTracker inside the result handler.
@Suite struct LiveTrackingTests {
    @Test func liveResultsGetStableIDs() async throws {
        let scene = SyntheticVideoTests.separate
        let sprites = try SyntheticVideoTests.sprites(scene)
        let tracker = try SharedFaceTracker()
        let frames = Mutex<[TrackingFrame]>([])
        let live = try FaceDetector(options: FaceDetectorOptions(weightsPath: SyntheticVideo.weights, runningMode: .liveStream) { output in
            guard case .success(let result) = output.result,
                  let frame = try? tracker.update(result, imageWidth: scene.width, imageHeight: scene.height,
                                                  timestampInMilliseconds: output.timestampInMilliseconds) else { return }
            frames.withLock { $0.append(frame) }
        })
        // One frame at a time, waiting for each result (a frame sent in the instant between a
        // delivery and the end of its handler can still be dropped: scored on what arrived).
        for i in scene.frames.indices {
            let before = live.deliveredResultCount + live.droppedFrameCount
            try live.detectAsync(image: try scene.render(i, sprites: sprites), timestampInMilliseconds: i * 33)
            for _ in 0..<6000 where live.deliveredResultCount + live.droppedFrameCount == before || frames.withLock({ $0.count }) < live.deliveredResultCount {
                try await Task.sleep(nanoseconds: 5_000_000)
            }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        live.close()
        let tracked = frames.withLock { $0 }
        #expect(tracked.count >= scene.frames.count / 2)
        let arrived = SyntheticVideo.Scene(frames: tracked.map { scene.frames[$0.timestampInMilliseconds / 33] })
        let score = SyntheticVideo.score(arrived, tracked.map { .init(faces: $0.faces.map { ($0.trackingID, $0.detection) }) })
        #expect(score.idSwitches == 0)
        #expect(score.falsePositives == 0)
        #expect(Set(score.ids.values.flatMap { $0 }).count == 2)
    }
}

/// The tracker's three verbs (issue 43): image mode numbers a picture's faces afresh on every
/// call; a live stream tracks the frames it delivers exactly as video mode tracks the same
/// frames; a verb of another mode is refused, naming it.
@Suite struct TrackerRunningModeTests {
    @Test func eachModeHasItsVerb() async throws {
        let scene = SyntheticVideoTests.separate
        let sprites = try SyntheticVideoTests.sprites(scene)
        let frames = try scene.frames.indices.map { try scene.render($0, sprites: sprites) }
        let options = FaceDetectorOptions(weightsPath: SyntheticVideo.weights)
        let tracking = FaceTrackingOptions(detectionInterval: 3)

        let still = try VideoFaceTracker(options: .init(detectorOptions: options, trackingOptions: tracking, runningMode: .image))
        #expect(throws: VisionTaskError.wrongRunningMode(called: "track(videoFrame:timestampInMilliseconds:)", mode: .image)) {
            try still.track(videoFrame: frames[0], timestampInMilliseconds: 0)
        }
        let once = try still.track(image: frames[1]), again = try still.track(image: frames[1])
        #expect(once == again && once.faces.count == 2)
        #expect(once.faces.compactMap(\.trackingID).sorted() == [1, 2])
        #expect(throws: VisionTaskError.self) {
            try VideoFaceTracker(options: .init(detectorOptions: options, runningMode: .video, liveStreamHandler: { _ in }))
        }

        let handled = Mutex<[Int]>([])
        let live = try VideoFaceTracker(options: .init(detectorOptions: options, trackingOptions: tracking, runningMode: .liveStream,
                                                       liveStreamHandler: { r in handled.withLock { $0.append(r.timestampInMilliseconds) } }))
        #expect(throws: VisionTaskError.wrongRunningMode(called: "track(image:)", mode: .liveStream)) { try live.track(image: frames[0]) }
        let streamed = Task {
            var out: [TimestampedResult<TrackingFrame>] = []
            for await r in live.liveStreamResults { out.append(r) }
            return out
        }
        for (i, frame) in frames.enumerated() {
            try live.trackAsync(image: frame, timestampInMilliseconds: i * 33)
            for _ in 0..<6000 where live.deliveredResultCount + live.droppedFrameCount <= i { try await Task.sleep(nanoseconds: 1_000_000) }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        live.close()
        #expect(throws: VisionTaskError.closed) { try live.trackAsync(image: frames[0], timestampInMilliseconds: 100_000) }
        let results = await streamed.value
        #expect(results.count == live.deliveredResultCount && results.count + live.droppedFrameCount == frames.count)
        #expect(results.count >= frames.count / 2)
        #expect(results.map(\.timestampInMilliseconds) == handled.withLock { $0 })
        let video = try VideoFaceTracker(options: .init(detectorOptions: options, trackingOptions: tracking))
        for r in results {
            let t = r.timestampInMilliseconds
            #expect(try r.result.get() == (try video.track(videoFrame: frames[t / 33], timestampInMilliseconds: t)))
        }
        #expect(live.statistics == video.statistics)
    }
}

/// Mobile Vision's live pipeline (`LiveFaceTracking`, issue 24): BGRA camera frames sent as
/// fast as they come (faster than the detector), a tracker per face. Frames are dropped while
/// one is in flight; each tracker sees its frames in timestamp order; the two faces keep their
/// IDs; `close()` ends every tracker.
@Suite struct LiveFaceTrackingTests {
    /// Records what one face's tracker was told.
    final class Recorder: PerFaceTracker, @unchecked Sendable {
        let log: Log
        var id = -1
        init(log: Log) { self.log = log }
        func onNew(trackingID: Int, face: TrackedFace) { id = trackingID; log.add("new \(trackingID)") }
        func onUpdate(face: TrackedFace, frame: TrackingFrame) { log.update(id, frame.timestampInMilliseconds) }
        func onMissing(frame: TrackingFrame) { log.add("missing \(id)") }
        func onDone() { log.add("done \(id)") }
    }

    final class Log: Sendable {
        private let state = Mutex((events: [String](), updates: [Int: [Int]]()))
        func add(_ event: String) { state.withLock { $0.events.append(event) } }
        func update(_ id: Int, _ timestamp: Int) { state.withLock { $0.updates[id, default: []].append(timestamp) } }
        var events: [String] { state.withLock { $0.events } }
        var updates: [Int: [Int]] { state.withLock { $0.updates } }
    }

    @Test func framesFasterThanTheDetectorAreDroppedAndTrackersStayInOrder() async throws {
        let scene = SyntheticVideoTests.separate
        let sprites = try SyntheticVideoTests.sprites(scene)
        let log = Log()
        let pipeline = try LiveFaceTracking(detectorOptions: FaceDetectorOptions(weightsPath: SyntheticVideo.weights)) { _ in
            Recorder(log: log)
        }
        // Every frame is made first and then sent back to back (a copy each), faster than the
        // detector takes them however fast it runs.
        let frames = try scene.frames.indices.map { i in
            let frame = try scene.render(i, sprites: sprites)
            var bgra = [UInt8](repeating: 255, count: frame.width * frame.height * 4)
            for p in 0..<frame.width * frame.height {
                (bgra[4 * p], bgra[4 * p + 1], bgra[4 * p + 2]) = (frame.pixels[3 * p + 2], frame.pixels[3 * p + 1], frame.pixels[3 * p])
            }
            return (bgra, frame.width, frame.height)
        }
        var sent = 0
        for (i, (bgra, width, height)) in frames.enumerated() {
            try bgra.withUnsafeBytes { raw in
                try pipeline.send(pixelBuffer: try PixelBuffer(format: .bgra, width: width, height: height, bytes: raw),
                                  timestampInMilliseconds: i * 33)
            }
            sent += 1
        }
        for _ in 0..<400 where pipeline.deliveredResultCount + pipeline.droppedFrameCount < sent {
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        pipeline.close()
        #expect(pipeline.droppedFrameCount > 0)
        #expect(pipeline.deliveredResultCount + pipeline.droppedFrameCount == sent)
        #expect(pipeline.failedFrameCount == 0)
        let events = log.events
        // Which frames the detector takes depends on its speed (a frame sent while one is being
        // processed is dropped), so which tracks there are does too; whatever they are, each
        // tracker is made once, updated in timestamp order, and closed once, after it was made.
        let made = events.filter { $0.hasPrefix("new ") }.map { Int($0.dropFirst(4))! }
        let closed = events.filter { $0.hasPrefix("done ") }.map { Int($0.dropFirst(5))! }
        #expect(made.count >= 2 && made == Array(1...made.count), "\(events) dropped \(pipeline.droppedFrameCount)")
        #expect(closed.sorted() == made, "\(events)")
        for id in made { #expect(events.firstIndex(of: "new \(id)")! < events.firstIndex(of: "done \(id)")!) }
        for (_, timestamps) in log.updates { #expect(timestamps == timestamps.sorted() && Set(timestamps).count == timestamps.count) }
        #expect(Set(log.updates.keys).isSubset(of: Set(made)))
        #expect(throws: DetectorError.self) {
            try pipeline.send(image: try RGBImage(width: 8, height: 8), timestampInMilliseconds: 1_000_000)
        }
    }
}

/// ML Kit's live analysis with tracking (`FaceAnalysisPipeline` in live-stream mode, issue 24) on the synthetic-video
/// scenes: every frame sent at once, as a camera faster than the analysis would; frames are
/// dropped, results come in timestamp order, and no face changes its tracking ID.
@Suite struct LiveAnalysisTests {
    @Test(arguments: [("separate", SyntheticVideoTests.separate), ("crossing", SyntheticVideoTests.crossing)])
    func liveAnalysisOnSyntheticVideo(_ name: String, _ scene: SyntheticVideo.Scene) async throws {
        let sprites = try SyntheticVideoTests.sprites(scene)
        let weights = URL(fileURLWithPath: SyntheticVideo.weights).deletingLastPathComponent().path
        let live = try FaceAnalysisPipeline(options: .init(analyzerOptions: FaceAnalyzerOptions(minFaceSize: 0), weightsFolder: weights,
                                                           runningMode: .liveStream, tracking: FaceTrackingOptions()))
        var frames: [RGBImage] = []
        for i in scene.frames.indices { frames.append(try scene.render(i, sprites: sprites)) }
        for (i, frame) in frames.enumerated() { try live.analyzeAsync(image: frame, timestampInMilliseconds: i * 33) }
        var outputs: [TimestampedResult<FaceAnalysisResult>] = []
        var stream = live.liveStreamResults.makeAsyncIterator()
        while live.deliveredResultCount + live.droppedFrameCount < frames.count || outputs.count < live.deliveredResultCount {
            guard let next = await stream.next() else { break }
            outputs.append(next)
        }
        live.close()
        #expect(live.droppedFrameCount > 0, "\(name)")
        let timestamps = outputs.map(\.timestampInMilliseconds)
        #expect(timestamps == timestamps.sorted() && Set(timestamps).count == timestamps.count, "\(name)")
        let tracked = try outputs.map { output in
            try output.result.get().faces.map { (trackingID: $0.trackingID, detection: $0.detection) }
        }
        let arrived = SyntheticVideo.Scene(frames: outputs.map { scene.frames[$0.timestampInMilliseconds / 33] })
        let score = SyntheticVideo.score(arrived, tracked.map { .init(faces: $0) })
        #expect(score.idSwitches == 0, "\(name): \(score)")
        #expect(score.falsePositives == 0, "\(name): \(score)")
    }
}
