import BlazeFace
import BlazeImage
import FaceLandmarks
import Testing

/// Options, running modes, errors and the region helpers.
@Suite struct LandmarkerAPITests {
    @Test func refusesOutOfRangeOptions() {
        let bad: [FaceLandmarkerOptions] = [
            FaceLandmarkerOptions(numFaces: 0), FaceLandmarkerOptions(numFaces: 65),
            FaceLandmarkerOptions(minFaceDetectionConfidence: .nan), FaceLandmarkerOptions(minFacePresenceConfidence: 1.5),
            FaceLandmarkerOptions(minTrackingConfidence: -0.1), FaceLandmarkerOptions(threads: 0),
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

    @Test func runningModeIsEnforced() throws {
        let image = try LandmarkGoldens.load("no_face_coffee").image
        let still = try LandmarkGoldens.landmarker(blendshapes: false)
        #expect(throws: DetectorError.self) { try still.detect(videoFrame: image, timestampInMilliseconds: 0) }
        let video = try FaceLandmarker(options: FaceLandmarkerOptions(runningMode: .video, weightsFolder: LandmarkGoldens.weights))
        #expect(throws: DetectorError.self) { try video.detect(image: image) }
        _ = try video.detect(videoFrame: image, timestampInMilliseconds: 10)
        #expect(throws: DetectorError.self) { try video.detect(videoFrame: image, timestampInMilliseconds: 10) }
        #expect(throws: DetectorError.self) { try still.blendshapes(for: [], imageWidth: 1, imageHeight: 1) }
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

    /// In video mode the second frame tracks the first frame's faces from their landmarks
    /// (no new detection while numFaces are tracked); on a still the result stays close to the
    /// image-mode one.
    @Test func videoModeTracksFromLandmarks() throws {
        let g = try LandmarkGoldens.load("astronaut")
        let video = try FaceLandmarker(options: FaceLandmarkerOptions(runningMode: .video, weightsFolder: LandmarkGoldens.weights))
        let first = try video.detect(videoFrame: g.image, timestampInMilliseconds: 0)
        let second = try video.detect(videoFrame: g.image, timestampInMilliseconds: 33)
        #expect(first.faces.count == 1 && second.faces.count == 1)
        // Frame 1 used the detector's region, frame 2 the one frame 1's landmarks gave.
        #expect(first.faces[0].region == g.faces[0].region)
        #expect(second.faces[0].region == first.faces[0].nextRegion)
        let drift = maxDifference(first.faces[0].landmarks.flatMap { [$0.x, $0.y] }, second.faces[0].landmarks.flatMap { [$0.x, $0.y] })
        #expect(drift < 0.01)
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
