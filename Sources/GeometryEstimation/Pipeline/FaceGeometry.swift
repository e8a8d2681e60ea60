/// The geometry of one face: its pose in the virtual camera's metric space and the metric mesh.
public struct FaceGeometry: Equatable, Sendable {
    /// The canonical face → camera transform (MediaPipe's facial transformation matrix), in cm.
    public var transformationMatrix: TransformMatrix
    /// The face's metric landmarks in the canonical face's frame (the pose removed), one per
    /// canonical vertex, in cm (MediaPipe's FaceGeometry mesh positions).
    public var metricLandmarks: [SIMD3<Float>]
}
