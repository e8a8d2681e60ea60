/// The canonical face model the pose is solved against: MediaPipe's GeometryPipelineMetadata
/// (protos/geometry_pipeline_metadata.proto) with the mesh as VERTEX_PT triangles, in centimetres.
public struct GeometryMetadata: Equatable, Sendable {
    /// Where the landmarks come from (MediaPipe's InputSource; DEFAULT means the landmark pipeline).
    public enum InputSource: Int, Sendable {
        case faceLandmarkPipeline = 1
        case faceDetectionPipeline = 2
    }

    /// The landmark source the pipeline adapts to (1 in MediaPipe's landmarker bundle).
    public private(set) var inputSource: InputSource
    /// The canonical mesh's vertex positions (x, y, z in cm, right-handed); the vertex ids are the landmark ids.
    public private(set) var positions: [SIMD3<Float>]
    /// The canonical mesh's texture coordinates (u, v), one per vertex.
    public private(set) var textureCoordinates: [SIMD2<Float>]
    /// The mesh triangles, three vertex ids each.
    public private(set) var triangles: [SIMD3<UInt32>]
    /// The Procrustes weight of each vertex (0 for vertices outside the landmark basis).
    public private(set) var weights: [Float]

    /// Makes metadata after checking MediaPipe's rules (validation_utils.cc): matching counts,
    /// triangle ids inside the mesh, non-negative finite weights, a non-empty basis.
    public init(inputSource: InputSource, positions: [SIMD3<Float>], textureCoordinates: [SIMD2<Float>],
                triangles: [SIMD3<UInt32>], weights: [Float]) throws(GeometryError) {
        guard !positions.isEmpty else { throw .invalidMetadata("the canonical mesh has no vertices") }
        guard textureCoordinates.count == positions.count, weights.count == positions.count else {
            throw .invalidMetadata("\(positions.count) vertices, \(textureCoordinates.count) texture coordinates, \(weights.count) weights")
        }
        guard positions.allSatisfy({ $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }) else {
            throw .invalidMetadata("a canonical vertex is not finite")
        }
        for t in triangles where t.max() >= UInt32(positions.count) {
            throw .invalidMetadata("triangle \(t) refers to a vertex past \(positions.count - 1)")
        }
        for (i, w) in weights.enumerated() where !(w >= 0 && w.isFinite) {
            throw .invalidMetadata("vertex \(i) has weight \(w); weights must be finite and non-negative")
        }
        guard weights.contains(where: { $0 > 0 }) else { throw .invalidMetadata("the Procrustes landmark basis is empty") }
        (self.inputSource, self.positions, self.textureCoordinates, self.triangles, self.weights) =
            (inputSource, positions, textureCoordinates, triangles, weights)
    }

    /// The number of canonical vertices (468 for MediaPipe's face mesh without irises).
    public var vertexCount: Int { positions.count }

    /// The ids of the vertices with a non-zero Procrustes weight, ascending.
    public var basis: [Int] { weights.indices.filter { weights[$0] > 0 } }
}
