import BlazeFace
import BlazeImage
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
