import VisionTasks

/// ML Kit's face detector options (FaceDetectorOptions), for the face analysis view.
/// Whatever is `.none` is not computed: no contour or landmark points, and when neither
/// classification nor the mesh output is asked for, the blendshape network need not run.
public struct FaceAnalyzerOptions: Equatable, Sendable {
    /// ML Kit's speed/accuracy trade-off. The pipeline maps `.fast` to the short-range detector
    /// and `.accurate` to the full-range one (ML Kit's own meaning: faster, fewer faces found).
    public enum PerformanceMode: String, Sendable { case fast, accurate }
    /// Whether to compute something: nothing, or all of it (ML Kit's NONE / ALL).
    public enum Mode: String, Sendable { case none, all }
    /// Which faces get contours: ML Kit's rule, the most prominent face only (the largest
    /// detection box), or every face (not an ML Kit option: every face has a mesh here).
    public enum ContourFaces: String, Sendable { case mostProminent, all }

    /// Which detector the pipeline runs (`.fast`: short range, `.accurate`: full range).
    public var performanceMode: PerformanceMode
    /// The 10 `FaceLandmarkType` points.
    public var landmarkMode: Mode
    /// The 15 `FaceContourType` polylines.
    public var contourMode: Mode
    /// With `contourMode` `.all`: contours for the most prominent face only (ML Kit's
    /// behaviour, the default) or for every face.
    public var contourFaces: ContourFaces = .mostProminent
    /// smilingProbability and the eye-open probabilities (needs the blendshape network).
    public var classificationMode: Mode
    /// MediaPipe's raw outputs as well: the 478 mesh points, the 52 blendshapes and the 4x4
    /// matrix (the CLI's --mesh; not an ML Kit option).
    public var meshMode: Mode
    /// The smallest face to report, as the face's width over the image's width (ML Kit's
    /// minFaceSize, default 0.1), in 0...1.
    public var minFaceSize: Float

    /// ML Kit's defaults: fast, no landmarks, no contours (and then the most prominent face's
    /// only), no classification, minFaceSize 0.1.
    public init(performanceMode: PerformanceMode = .fast, landmarkMode: Mode = .none, contourMode: Mode = .none,
                classificationMode: Mode = .none, meshMode: Mode = .none, minFaceSize: Float = 0.1,
                contourFaces: ContourFaces = .mostProminent) {
        (self.performanceMode, self.landmarkMode, self.contourMode, self.classificationMode, self.meshMode, self.minFaceSize) =
            (performanceMode, landmarkMode, contourMode, classificationMode, meshMode, minFaceSize)
        self.contourFaces = contourFaces
    }

    /// Checks the one numeric option: minFaceSize in 0...1 (NaN refused).
    public func validate() throws(VisionTaskError) {
        guard minFaceSize >= 0, minFaceSize <= 1 else {
            throw .cannotAnalyse("minFaceSize \(minFaceSize) must be in 0...1")
        }
    }

    /// Whether the blendshape network has to run for these options.
    public var needsBlendshapes: Bool { classificationMode == .all || meshMode == .all }

    /// Whether a face of this width (a fraction of the image width) is reported: `FaceAnalyzer`
    /// on the face oval's extent (the pipeline hands `minFaceSize` to the detector instead).
    public func accepts(faceWidth: Float) -> Bool { faceWidth >= minFaceSize }
}
