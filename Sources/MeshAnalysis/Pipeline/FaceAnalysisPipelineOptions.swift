import BlazeThreads
import FaceTracking
import VisionTasks

/// What a `FaceAnalysisPipeline` computes, with which detector and threads, and how frames
/// arrive: the pipeline's task options (`FaceAnalysisPipeline(options:)`).
///
/// ```swift
/// let pipeline = try FaceAnalysisPipeline(options: FaceAnalysisPipelineOptions(
///     analyzerOptions: FaceAnalyzerOptions(landmarkMode: .all, classificationMode: .all), numFaces: 2))
/// ```
public struct FaceAnalysisPipelineOptions: Sendable {
    /// What to compute for each face (ML Kit's landmark, contour and classification modes, the
    /// minimum face size).
    public var analyzerOptions: FaceAnalyzerOptions
    /// At most this many faces per image, best detections first (1...64, default 4; ML Kit has
    /// no such limit, MediaPipe's FaceLandmarker does; the checks use 4).
    public var numFaces: Int
    /// The detector's threshold (0...1, default 0.5).
    public var minFaceDetectionConfidence: Float
    /// The folder of the weights files; nil looks where `FaceDetector` looks.
    public var weightsFolder: String?
    /// The threads everything runs on (default `ThreadPool.shared`: the cores this process may
    /// use, at most 4): the detector's layers, then the faces side by side, a lane of the pool
    /// each (a whole face: crop, landmark and blendshape networks, coarse enough to lose little
    /// when the cores are busy). Results do not depend on it.
    public var threadPool: ThreadPool
    /// `.image` (default), `.video` or `.liveStream`: which verb analyses; fixed at creation.
    public var runningMode: RunningMode
    /// Video and live stream only: give each face a `trackingID` that stays the same while it
    /// stays in view (ML Kit's `isTrackingEnabled`; nil, the default, gives none). Smoothing is
    /// not applied: the IDs follow the analysed detections as they are.
    public var tracking: FaceTrackingOptions?
    /// Live stream only: called with each result, in timestamp order, on one serial queue;
    /// results also arrive on `liveStreamResults`.
    public var liveStreamHandler: (@Sendable (TimestampedResult<FaceAnalysisResult>) -> Void)?

    public init(analyzerOptions: FaceAnalyzerOptions = FaceAnalyzerOptions(), numFaces: Int = 4,
                minFaceDetectionConfidence: Float = 0.5, weightsFolder: String? = nil,
                threadPool: ThreadPool = .shared, runningMode: RunningMode = .image, tracking: FaceTrackingOptions? = nil,
                liveStreamHandler: (@Sendable (TimestampedResult<FaceAnalysisResult>) -> Void)? = nil) {
        (self.analyzerOptions, self.numFaces, self.minFaceDetectionConfidence, self.weightsFolder) =
            (analyzerOptions, numFaces, minFaceDetectionConfidence, weightsFolder)
        (self.threadPool, self.runningMode, self.tracking, self.liveStreamHandler) = (threadPool, runningMode, tracking, liveStreamHandler)
    }
}
