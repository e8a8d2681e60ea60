/// The virtual scene the pose is expressed in (MediaPipe's face_geometry Environment proto):
/// where the image origin is and the perspective camera that sees it.
public struct GeometryEnvironment: Equatable, Sendable {
    /// Where normalized image coordinates start (MediaPipe's OriginPointLocation).
    public enum OriginPointLocation: Sendable { case bottomLeftCorner, topLeftCorner }

    /// Where the normalized landmark coordinates start (the Tasks FaceLandmarker: top left).
    public let originPointLocation: OriginPointLocation
    /// The camera's vertical field of view, in degrees, in (0, 180).
    public let verticalFieldOfViewDegrees: Float
    /// The near clipping plane, in cm (> 0): the plane landmarks are projected onto.
    public let near: Float
    /// The far clipping plane, in cm (MediaPipe validates it; the pose does not use it).
    public let far: Float

    /// Makes an environment after MediaPipe's checks (validation_utils.cc ValidatePerspectiveCamera).
    public init(originPointLocation: OriginPointLocation, verticalFieldOfViewDegrees: Float, near: Float, far: Float) throws(GeometryError) {
        let eps: Float = 1e-9
        guard near > eps else { throw .invalidEnvironment("near \(near) must be greater than 0") }
        guard far > near + eps else { throw .invalidEnvironment("far \(far) must be greater than near \(near)") }
        guard verticalFieldOfViewDegrees > eps, verticalFieldOfViewDegrees + eps < 180 else {
            throw .invalidEnvironment("vertical field of view \(verticalFieldOfViewDegrees) must be in (0, 180) degrees")
        }
        (self.originPointLocation, self.verticalFieldOfViewDegrees, self.near, self.far) =
            (originPointLocation, verticalFieldOfViewDegrees, near, far)
    }

    private init(unchecked origin: OriginPointLocation, _ fov: Float, _ near: Float, _ far: Float) {
        (self.originPointLocation, self.verticalFieldOfViewDegrees, self.near, self.far) = (origin, fov, near, far)
    }

    /// The environment the Tasks FaceLandmarker uses when none is given
    /// (face_geometry_from_landmarks_graph.cc): top-left origin, 63° vertical FOV, near 1 cm, far 100 m.
    public static let faceLandmarkerDefault = GeometryEnvironment(unchecked: .topLeftCorner, 63, 1, 10000)
}
