/// Why the face geometry metadata, an environment or an estimate was refused.
/// Every message names what was wrong and where.
public enum GeometryError: Error, Equatable, CustomStringConvertible {
    /// The protobuf bytes are cut short or malformed (offset, what was being read).
    case malformedProtobuf(offset: Int, reason: String)
    /// The metadata decodes but breaks one of MediaPipe's validation rules (validation_utils.cc).
    case invalidMetadata(String)
    /// The weights file does not hold face geometry metadata.
    case invalidWeights(String)
    /// A camera or frame size MediaPipe's validation would refuse.
    case invalidEnvironment(String)
    /// The landmark list does not match the canonical mesh.
    case invalidLandmarks(String)
    /// The Procrustes problem has no stable solution (degenerate points or weights).
    case degenerateProblem(String)

    /// A readable message naming what was wrong and where.
    public var description: String {
        switch self {
        case .malformedProtobuf(let offset, let reason): "geometry metadata is malformed at byte \(offset): \(reason)"
        case .invalidMetadata(let why): "invalid geometry metadata: \(why)"
        case .invalidWeights(let why): "invalid face geometry weights: \(why)"
        case .invalidEnvironment(let why): "invalid geometry environment: \(why)"
        case .invalidLandmarks(let why): "invalid landmarks: \(why)"
        case .degenerateProblem(let why): "cannot solve the face pose: \(why)"
        }
    }
}
