import BlazeFace
import VisionTasks

/// Options of a face landmarker, MediaPipe's `FaceLandmarkerOptions`.
public struct FaceLandmarkerOptions: Sendable {
    /// How frames arrive, fixed at creation (the detector's `RunningMode`): `detect(image:)`
    /// (default), `detect(videoFrame:timestampInMilliseconds:)` with regions that follow the
    /// faces, or `detectAsync(image:timestampInMilliseconds:)`, which tracks as video does.
    public var runningMode: RunningMode = .image
    /// Live stream only: called with each result, in timestamp order, on one serial queue
    /// (MediaPipe's result_callback). Results also arrive on `FaceLandmarker.liveStreamResults`.
    public var liveStreamHandler: (@Sendable (TimestampedResult<FaceLandmarkerResult>) -> Void)?
    /// At most this many faces (1...64, default 1), best detections first.
    public var numFaces: Int = 1
    /// The face detector's score threshold (0...1, default 0.5).
    public var minFaceDetectionConfidence: Float = 0.5
    /// The landmark network's face-presence threshold (0...1, default 0.5): below it a region
    /// is taken to hold no face and gives no landmarks.
    public var minFacePresenceConfidence: Float = 0.5
    /// Video mode: the overlap (IoU, 0...1, default 0.5) above which a new detection replaces
    /// the region tracked from the previous frame.
    public var minTrackingConfidence: Float = 0.5
    /// Whether to run the blendshape model (MediaPipe's output_face_blendshapes; default off).
    public var outputFaceBlendshapes: Bool = false
    /// Folder of the three weights files; nil looks where `FaceDetector` looks (WeightsLocator).
    public var weightsFolder: String?
    /// The threads everything runs on (default `ThreadPool.shared`): the detector's layers, then
    /// the faces, each lane of the pool (at most 8) with a face at a time on its own instance of
    /// the landmark and blendshape networks. Results do not depend on it. Video mode runs one
    /// face at a time, its networks' layers shared over the pool.
    public var threadPool: ThreadPool = .shared
    /// The face detector: MediaPipe's (and the bundle's) short-range model by default; the
    /// full-range one finds smaller, more distant faces (ML Kit's accurate mode).
    public var detectorModel: FaceDetectorModel = .shortRange
    /// The smallest face the detector reports, as its width over the image's width (0...1,
    /// default 0), applied before `numFaces` (`FaceDetectorOptions.minFaceSize`).
    public var minFaceSize: Float = 0

    /// Options as given; `FaceLandmarker` checks their ranges when it is created.
    public init(runningMode: RunningMode = .image, numFaces: Int = 1, minFaceDetectionConfidence: Float = 0.5,
                minFacePresenceConfidence: Float = 0.5, minTrackingConfidence: Float = 0.5,
                outputFaceBlendshapes: Bool = false, weightsFolder: String? = nil, threadPool: ThreadPool = .shared,
                detectorModel: FaceDetectorModel = .shortRange,
                liveStreamHandler: (@Sendable (TimestampedResult<FaceLandmarkerResult>) -> Void)? = nil) {
        self.detectorModel = detectorModel
        self.liveStreamHandler = liveStreamHandler
        self.runningMode = runningMode
        self.numFaces = numFaces
        self.minFaceDetectionConfidence = minFaceDetectionConfidence
        self.minFacePresenceConfidence = minFacePresenceConfidence
        self.minTrackingConfidence = minTrackingConfidence
        self.outputFaceBlendshapes = outputFaceBlendshapes
        self.weightsFolder = weightsFolder
        self.threadPool = threadPool
    }

    /// The options, or the first one out of range as `VisionTaskError.invalidOption`.
    func validated() throws(VisionTaskError) -> FaceLandmarkerOptions {
        for (name, v) in [("minFaceDetectionConfidence", minFaceDetectionConfidence),
                          ("minFacePresenceConfidence", minFacePresenceConfidence),
                          ("minTrackingConfidence", minTrackingConfidence)] {
            guard v.isFinite, (0...1).contains(v) else {
                throw .invalidOption(name: name, value: "\(v)", allowed: "a number in 0...1")
            }
        }
        guard (1...64).contains(numFaces) else {
            throw .invalidOption(name: "numFaces", value: "\(numFaces)", allowed: "in 1...64")
        }
        try runningMode.validateHandler(isSet: liveStreamHandler != nil)
        return self
    }
}

/// One face's landmarks: MediaPipe's NormalizedLandmarkList and, when asked, its blendshapes.
public struct FaceLandmarks: Sendable, Equatable {
    /// 478 points: x and y normalized to the image (0...1 inside it), z as MediaPipe's
    /// NormalizedLandmark.z (depth relative to the face, in units of the image width; smaller
    /// is nearer the camera).
    public var landmarks: [SIMD3<Float>]
    /// The 52 blendshapes in MediaPipe's order (`BlendshapeModel.names`), or empty when
    /// `outputFaceBlendshapes` is off.
    public var blendshapes: [Blendshape]
    /// The landmark network's face-presence probability (sigmoid of its logit).
    public var presence: Float
    /// The region the landmarks were read from.
    public var region: FaceRegion
    /// The next frame's region, from these landmarks (video mode tracks with it).
    public var nextRegion: FaceRegion?
    /// The detection the region came from (nil for a region tracked from the previous frame).
    public var detection: Detection?

    /// A face of these values; `detection` is nil for a region tracked from the previous frame.
    public init(landmarks: [SIMD3<Float>], blendshapes: [Blendshape], presence: Float, region: FaceRegion, nextRegion: FaceRegion?,
                detection: Detection? = nil) {
        (self.landmarks, self.blendshapes, self.presence, self.region, self.nextRegion) = (landmarks, blendshapes, presence, region, nextRegion)
        self.detection = detection
    }
}

/// What `FaceLandmarker.detect` returns: the faces, in the order of the regions they came
/// from (detection score order), and the image size the coordinates are normalized to.
public struct FaceLandmarkerResult: Sendable, Equatable {
    /// The faces with landmarks, in region order.
    public var faces: [FaceLandmarks]
    /// The image size the coordinates are normalized to.
    public var imageWidth: Int, imageHeight: Int
    /// A result of these faces and image size (no faces and 0x0 by default).
    public init(faces: [FaceLandmarks] = [], imageWidth: Int = 0, imageHeight: Int = 0) {
        (self.faces, self.imageWidth, self.imageHeight) = (faces, imageWidth, imageHeight)
    }
}
