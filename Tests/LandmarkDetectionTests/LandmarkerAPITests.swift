import BlazeImageIO
import BlazeFace
import BlazeImage
import LandmarkDetection
import Foundation
import Synchronization
import Testing

/// Options, running modes, errors and the region helpers.
@Suite struct LandmarkerAPITests {
    @Test func refusesOutOfRangeOptions() {
        let bad: [FaceLandmarkerOptions] = [
            FaceLandmarkerOptions(numFaces: 0), FaceLandmarkerOptions(numFaces: 65),
            FaceLandmarkerOptions(minFaceDetectionConfidence: .nan), FaceLandmarkerOptions(minFacePresenceConfidence: 1.5),
            FaceLandmarkerOptions(minTrackingConfidence: -0.1),
        ]
        for options in bad {
            #expect(throws: DetectorError.self) { try FaceLandmarker(options: options) }
        }
    }

    @Test func missingWeightsFolderIsAnError() {
        #expect(throws: DetectorError.self) {
            try FaceLandmarker(options: FaceLandmarkerOptions(weightsFolder: "/nonexistent"))
        }
    }

    /// The detector's running modes and errors: a verb of another mode throws
    /// `.wrongRunningMode` naming it, a handler belongs to the live stream only.
    @Test func runningModeIsEnforced() throws {
        let image = try LandmarkGoldens.load("no_face_coffee").image
        let still = try LandmarkGoldens.landmarker(blendshapes: false)
        #expect(throws: VisionTaskError.wrongRunningMode(called: "detect(videoFrame:timestampInMilliseconds:)", mode: .image)) {
            try still.detect(videoFrame: image, timestampInMilliseconds: 0)
        }
        #expect(throws: VisionTaskError.wrongRunningMode(called: "detectAsync(image:timestampInMilliseconds:)", mode: .image)) {
            try still.detectAsync(image: image, timestampInMilliseconds: 0)
        }
        let video = try FaceLandmarker(options: FaceLandmarkerOptions(runningMode: .video, weightsFolder: LandmarkGoldens.weights))
        #expect(throws: VisionTaskError.wrongRunningMode(called: "detect(image:)", mode: .video)) { try video.detect(image: image) }
        #expect(throws: VisionTaskError.wrongRunningMode(called: "landmarks(for:detections:)", mode: .video)) {
            try video.landmarks(for: image, detections: [])
        }
        _ = try video.detect(videoFrame: image, timestampInMilliseconds: 10)
        #expect(throws: VisionTaskError.nonIncreasingTimestamp(previous: 10, current: 10)) {
            try video.detect(videoFrame: image, timestampInMilliseconds: 10)
        }
        #expect(throws: DetectorError.self) { try still.blendshapes(for: [], imageWidth: 1, imageHeight: 1) }
        for mode in [RunningMode.image, .video] {
            #expect(throws: VisionTaskError.self) {
                try FaceLandmarker(options: FaceLandmarkerOptions(runningMode: mode, weightsFolder: LandmarkGoldens.weights,
                                                                  liveStreamHandler: { _ in }))
            }
        }
    }

    /// Live stream (MediaPipe's LIVE_STREAM, the same graph as VIDEO): every delivered frame is
    /// tracked as video mode tracks it, checked against MediaPipe's video-mode goldens; results
    /// come in timestamp order through the handler and the stream; after `close()` a frame is
    /// refused.
    @Test func liveStreamTracksAsMediaPipesVideoMode() async throws {
        let data = try Data(contentsOf: LandmarkGoldens.folder.appendingPathComponent("two_faces_1280x853.video.json"))
        let json = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        let golden = (json["frames"] as! [[String: Any]]).map {
            ($0["landmarks"] as! [[[Double]]]).map { $0.map { SIMD3(Float($0[0]), Float($0[1]), Float($0[2])) } }
        }
        let photo = try PNG.read(contentsOf: LandmarkGoldens.fixtures.appendingPathComponent("images/two_faces_1280x853.png").path)
        let handled = Mutex<[Int]>([])
        let live = try FaceLandmarker(options: FaceLandmarkerOptions(runningMode: .liveStream, numFaces: 2, weightsFolder: LandmarkGoldens.weights,
                                                                     liveStreamHandler: { r in handled.withLock { $0.append(r.timestampInMilliseconds) } }))
        #expect(throws: VisionTaskError.wrongRunningMode(called: "detect(image:)", mode: .liveStream)) { try live.detect(image: photo) }
        let streamed = Task {
            var out: [TimestampedResult<FaceLandmarkerResult>] = []
            for await r in live.liveStreamResults { out.append(r) }
            return out
        }
        // The same photo every frame: the k-th delivered frame is tracked as video mode's k-th.
        let frames = golden.count
        for i in 0..<frames {
            try live.detectAsync(image: photo, timestampInMilliseconds: 100 * i)
            for _ in 0..<6000 where live.deliveredResultCount + live.droppedFrameCount <= i { try await Task.sleep(nanoseconds: 1_000_000) }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        #expect(live.deliveredResultCount + live.droppedFrameCount == frames)
        #expect(live.deliveredResultCount >= 1)
        live.close()
        #expect(throws: VisionTaskError.closed) { try live.detectAsync(image: photo, timestampInMilliseconds: 10_000) }
        let results = await streamed.value
        #expect(results.count == live.deliveredResultCount)
        #expect(results.map(\.timestampInMilliseconds) == handled.withLock { $0 })
        #expect(zip(results, results.dropFirst()).allSatisfy { $0.timestampInMilliseconds < $1.timestampInMilliseconds })
        for (k, r) in results.enumerated() {
            #expect(try r.result.get().faces.map(\.landmarks) == golden[k])
        }
    }

    /// A region that is not finite or has no size is refused, never cropped.
    @Test func refusesUnusableRegions() throws {
        let lm = try LandmarkGoldens.landmarker(blendshapes: false)
        let image = try LandmarkGoldens.load("no_face_coffee").image
        for r in [FaceRegion(xCenter: .nan, yCenter: 0.5, width: 0.5, height: 0.5),
                  FaceRegion(xCenter: 0.5, yCenter: 0.5, width: 0, height: 0.5),
                  FaceRegion(xCenter: 0.5, yCenter: 0.5, width: 0.5, height: .infinity)] {
            #expect(throws: DetectorError.self) { try lm.inputTensor(for: image, region: r) }
        }
        #expect(throws: DetectorError.self) { try lm.rawOutputs(for: [1, 2, 3]) }
    }

    /// Video mode against MediaPipe's FaceLandmarker in VIDEO mode (num_faces 2, where MediaPipe
    /// does not smooth): frame 0 from the detector, frame 1 tracked from frame 0's landmarks
    /// (rotation from landmarks 33 and 263, squared, 1.5x) without running the detector.
    @Test func videoModeMatchesMediaPipe() throws {
        let data = try Data(contentsOf: LandmarkGoldens.folder.appendingPathComponent("two_faces_1280x853.video.json"))
        let json = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        let frames = json["frames"] as! [[String: Any]]
        let photo = try PNG.read(contentsOf: LandmarkGoldens.fixtures.appendingPathComponent("images/two_faces_1280x853.png").path)
        let video = try FaceLandmarker(options: FaceLandmarkerOptions(runningMode: .video, numFaces: 2, weightsFolder: LandmarkGoldens.weights))
        var previous: FaceLandmarkerResult?
        for frame in frames {
            let golden = (frame["landmarks"] as! [[[Double]]]).map { $0.map { SIMD3(Float($0[0]), Float($0[1]), Float($0[2])) } }
            let result = try video.detect(videoFrame: photo, timestampInMilliseconds: frame["timestampMs"] as! Int)
            #expect(result.faces.map(\.landmarks) == golden)
            if let previous {
                #expect(result.faces.map(\.region) == previous.faces.compactMap(\.nextRegion))
            }
            previous = result
        }
    }

    @Test func regionsFromLandmarksAreSquareInPixels() throws {
        let g = try LandmarkGoldens.load("two_faces_1280x853")
        for face in g.faces {
            let next = try #require(FaceRegion(landmarks: face.landmarks!, imageWidth: 1280, imageHeight: 853))
            #expect(abs(next.width * 1280 - next.height * 853) < 1e-2)
        }
        #expect(FaceRegion(landmarks: [], imageWidth: 10, imageHeight: 10) == nil)
    }
}
