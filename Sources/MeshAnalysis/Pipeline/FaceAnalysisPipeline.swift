import Foundation
import BlazeFace
import BlazeImage
import GeometryEstimation
import LandmarkDetection
import FaceTracking
import Synchronization
import VisionTasks

/// ML Kit's face detector end to end, from pixels: the face detector, MediaPipe's Face
/// Landmarker (regions, 256x256 crop, 478 landmarks, and the blendshape network only when
/// classification or the mesh output asks for it), the geometry pipeline, then the ML Kit view
/// (`FaceAnalyzer`). The graph it mirrors is face_landmarker_graph.cc with
/// face_geometry_from_landmarks_graph.cc; faces narrower than `minFaceSize` are dropped after
/// detection, before their landmark network runs.
///
/// MediaPipe's three verbs, one per running mode (fixed at creation): `analyze(image:)`,
/// `analyze(videoFrame:timestampInMilliseconds:)` and `analyzeAsync(image:orientation:timestampInMilliseconds:)`
/// (ML Kit's `process(_:completion:)` on a camera feed: frames dropped while one is in flight,
/// results in timestamp order). With `tracking` (ML Kit's `isTrackingEnabled`), video and live
/// faces carry a `trackingID`. A verb of another mode throws `VisionTaskError.wrongRunningMode`.
public final class FaceAnalysisPipeline: VisionTask {
    /// What is computed (validated), with which detector and threads, and how frames arrive.
    public let options: FaceAnalysisPipelineOptions
    /// The landmarker underneath (its options say which detector, how many faces, which pool).
    public let landmarker: FaceLandmarker
    /// The ML Kit view on each face's mesh (its `minFaceSize` is 0: the pipeline applies the
    /// option to detection boxes instead).
    public let analyzer: FaceAnalyzer
    /// How frames arrive (fixed at creation).
    public var runningMode: RunningMode { options.runningMode }
    /// Video and live stream with tracking: the IDs.
    let tracker: SharedFaceTracker?
    /// Video mode's timestamps.
    let timestamps = Mutex(TimestampGate())
    /// The live-stream machinery; nil unless `runningMode` is `.liveStream`.
    public let liveStream: LiveStreamRunner<TimestampedResult<FaceAnalysisResult>>?

    /// The canonical face's weights file (`blazeface export-geometry`).
    public static let geometryWeightsFile = "face_geometry.bin"

    /// A pipeline with these options (`FaceAnalysisPipelineOptions`). Throws `.invalidOption`
    /// for an option out of range (tracking in image mode among them), and the weights' errors.
    public init(options: FaceAnalysisPipelineOptions = FaceAnalysisPipelineOptions()) throws(VisionTaskError) {
        let analysis = options.analyzerOptions
        try analysis.validate()
        try options.runningMode.validateHandler(isSet: options.liveStreamHandler != nil)
        if options.runningMode == .image, options.tracking != nil {
            throw .invalidOption(name: "tracking", value: "set in image mode", allowed: "nil unless runningMode is video or liveStream")
        }
        var landmarkerOptions = FaceLandmarkerOptions(
            numFaces: options.numFaces, minFaceDetectionConfidence: options.minFaceDetectionConfidence,
            outputFaceBlendshapes: analysis.needsBlendshapes, weightsFolder: options.weightsFolder, threadPool: options.threadPool,
            detectorModel: analysis.performanceMode == .fast ? .shortRange : .fullRange)
        // ML Kit's minFaceSize before the face cap: the detector drops small faces first.
        landmarkerOptions.minFaceSize = analysis.minFaceSize
        landmarker = try FaceLandmarker(options: landmarkerOptions)
        let geometryPath: String
        if let weightsFolder = options.weightsFolder {
            geometryPath = weightsFolder + "/" + Self.geometryWeightsFile
        } else {
            geometryPath = try WeightsLocator.path(for: Self.geometryWeightsFile)
        }
        let geometry: GeometryPipeline
        do { geometry = try GeometryPipeline(metadata: try GeometryMetadata(contentsOf: geometryPath)) } catch {
            throw .cannotAnalyse("\(geometryPath): \(error.description)")
        }
        var viewOptions = analysis
        viewOptions.minFaceSize = 0
        analyzer = try FaceAnalyzer(options: viewOptions, geometry: geometry)
        self.options = options
        if var tracking = options.tracking {
            tracking.smoothing = nil
            tracker = try SharedFaceTracker(options: tracking)
        } else {
            tracker = nil
        }
        liveStream = LiveStreamRunner(for: options.runningMode, label: "MeshAnalysis.liveStream", handler: options.liveStreamHandler)
    }

    deinit { liveStream?.shutDown() }

    /// ML Kit's `VisionImage` with an orientation: the faces in `pixels` (an `RGBImage` or a
    /// camera `PixelBuffer`: RGB, RGBA, BGRA, gray, I420, NV12, NV21) turned upright for
    /// `orientation`, mirrored ones included. As ML Kit reports them, the results are in the
    /// upright picture's coordinates (`imageWidth` x `imageHeight` are its size): the same
    /// faces, mesh and angles as `analyze(image:)` gives on that upright picture.
    public func analyze(pixels: some SampledPixels, orientation: ImageOrientation) throws(VisionTaskError) -> FaceAnalysisResult {
        try runningMode.require(.image, for: "analyze(pixels:orientation:)")
        return try faces(in: RGBImage(upright: pixels, orientation: orientation)) { _ in () }.result
    }

    /// The faces in `image`, best detection first: each face's detection (the detect
    /// contract) and its ML Kit view. Faces whose region holds no face (the landmark network's
    /// presence gate) are left out, as MediaPipe leaves them out.
    public func analyze(image: RGBImage) throws(VisionTaskError) -> FaceAnalysisResult {
        try runningMode.require(.image, for: "analyze(image:)")
        return try faces(in: image) { _ in () }.result
    }

    /// `analyze(image:)`, also calling `eachFace` on each face as soon as it is analysed, on
    /// the thread that analysed it (with a pool of several threads, faces run side by side, and so
    /// does `eachFace`: say, writing the face out). `values` holds its results in the order
    /// of `result.faces`.
    public func analyze<T: Sendable>(image: RGBImage, eachFace: @escaping @Sendable (AnalyzedFace) -> T)
        throws(VisionTaskError) -> (result: FaceAnalysisResult, values: [T]) {
        try runningMode.require(.image, for: "analyze(image:eachFace:)")
        return try faces(in: image, eachFace: eachFace)
    }

    /// The faces of one picture, whatever the running mode (every verb's work).
    func faces<T: Sendable>(in image: RGBImage, eachFace: @escaping @Sendable (AnalyzedFace) -> T)
        throws(VisionTaskError) -> (result: FaceAnalysisResult, values: [T]) {
        let (options, analyzer) = (options.analyzerOptions, analyzer)
        let found = try landmarker.detectorResult(for: image)
        let detections = found.detections
        // ML Kit computes contours for the most prominent face alone: the largest box.
        let prominent = options.contourMode == .all && options.contourFaces == .mostProminent
            ? detections.max { $0.boundingBox.width * $0.boundingBox.height < $1.boundingBox.width * $1.boundingBox.height }
            : nil
        let faces = try landmarker.landmarks(for: image, detections: detections) { face in
            Result { () throws(VisionTaskError) -> (AnalyzedFace, T)? in
                guard let detection = face.detection else { return nil }
                let blendshapes = options.needsBlendshapes ? face.blendshapes.map { (name: $0.name, score: $0.score) } : nil
                guard var analysis = try analyzer.analyze(landmarks: face.landmarks, blendshapes: blendshapes,
                                                          imageWidth: image.width, imageHeight: image.height) else { return nil }
                if let prominent, prominent != detection { analysis.contours = nil }
                let analyzed = AnalyzedFace(detection: detection, analysis: analysis, imageWidth: image.width,
                                            imageHeight: image.height)
                return (analyzed, eachFace(analyzed))
            }
        }
        var result = FaceAnalysisResult(imageWidth: image.width, imageHeight: image.height)
        result.narrowerThanMinFaceSize = found.narrowerThanMinFaceSize
        var values: [T] = []
        for face in faces {
            guard let (analyzed, value) = try face?.get() else { continue }
            result.faces.append(analyzed)
            values.append(value)
        }
        return (result, values)
    }
}

/// One face of `FaceAnalysisPipeline.analyze(image:)`: what the detector found (the detect
/// contract's box, score and six keypoints) and the ML Kit view of its landmarks.
public struct AnalyzedFace: Sendable {
    /// The detection the face's landmark region came from.
    public var detection: Detection
    /// Landmarks, contours, head angles, classification and, with `meshMode`, the raw outputs.
    public var analysis: FaceAnalysis
    /// The size of the image the face was found in: what `landmark(ofType:)` and
    /// `contour(ofType:)` scale the normalized points by.
    public var imageWidth: Int, imageHeight: Int
    /// ML Kit's `trackingID`: the same number while the face stays in view, from a live
    /// or live analysis with tracking on (`FaceAnalysisPipelineOptions.tracking`); nil otherwise.
    public var trackingID: Int?

    /// ML Kit's `landmark(ofType:)`: the landmark's position in image pixels (x right, y down,
    /// from the top-left corner); nil when `landmarkMode` is `.none`.
    public func landmark(ofType type: FaceLandmarkType) -> SIMD2<Float>? {
        analysis.landmarks?.first { $0.type == type }.map { $0.position * pixelScale }
    }

    /// ML Kit's `contour(ofType:)`: the contour's points in image pixels, in order; nil when
    /// `contourMode` is `.none` or this face has no contours (`FaceAnalyzerOptions.contourFaces`).
    public func contour(ofType type: FaceContourType) -> [SIMD2<Float>]? {
        analysis.contours?.first { $0.type == type }.map { $0.points.map { $0 * pixelScale } }
    }

    private var pixelScale: SIMD2<Float> { SIMD2(Float(imageWidth), Float(imageHeight)) }
}

/// Everything `FaceAnalysisPipeline.analyze(image:)` found in one image.
public struct FaceAnalysisResult: Sendable {
    /// The faces, best detection first.
    public var faces: [AnalyzedFace] = []
    /// The image size the normalized coordinates refer to.
    public var imageWidth: Int, imageHeight: Int
    /// The faces the detector found narrower than `FaceAnalyzerOptions.minFaceSize`, and so
    /// left out (`FaceDetectorResult.narrowerThanMinFaceSize`).
    public var narrowerThanMinFaceSize = 0
}
