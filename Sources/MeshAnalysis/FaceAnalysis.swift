import GeometryEstimation

/// One ML Kit landmark: its type and position (x, y normalized to the image, as the detect
/// contract's keypoints).
public struct FaceLandmark: Equatable, Sendable {
    /// Which landmark this is.
    public var type: FaceLandmarkType
    /// Its position, x and y normalized to the image.
    public var position: SIMD2<Float>
}

/// One ML Kit contour: its type and its `type.pointCount` points (normalized x, y).
public struct FaceContour: Equatable, Sendable {
    /// Which contour this is.
    public var type: FaceContourType
    /// Its points in order, x and y normalized to the image.
    public var points: [SIMD2<Float>]
}

/// The ML Kit view of one face. Each optional part is nil when its option was `.none`.
public struct FaceAnalysis: Sendable {
    /// The 10 landmarks, in `FaceLandmarkType.allCases` order.
    public var landmarks: [FaceLandmark]?
    /// The 15 contours, in `FaceContourType.allCases` order.
    public var contours: [FaceContour]?
    /// The head's rotation; nil only when the geometry pipeline skips the face (MediaPipe
    /// skips landmarks too compact to solve).
    public var headEulerAngles: HeadEulerAngles?
    /// The smile and eyes-open probabilities.
    public var classification: FaceClassification?
    /// MediaPipe's raw outputs, with `meshMode` `.all`: the landmarks as given, the named
    /// blendshapes in MediaPipe's order and the facial transformation matrix.
    public var mesh: [SIMD3<Float>]?
    /// The 52 blendshapes, MediaPipe's names and order.
    public var blendshapes: [(name: String, score: Float)]?
    /// The canonical face → camera transform (nil if the geometry pipeline skipped the face).
    public var transformationMatrix: TransformMatrix?
}
