import BlazeModel
import BlazeTensor

/// The geometry metadata in our flat weights format (Weights/README.md): three float32 tensors
/// and no graph, so the runtime never parses protobuf.
///
/// - `canonical_vertices` [V, 5]: x, y, z (cm), u, v per vertex (MediaPipe's VERTEX_PT)
/// - `triangles` [T, 3]: vertex ids (exact in float32 below 2^24)
/// - `procrustes_weights` [V]: the Procrustes weight of each vertex, 0 outside the basis
/// - metadata `input_source`: 1 (landmark pipeline) or 2 (detection pipeline)
extension GeometryMetadata {
    static let verticesName = "canonical_vertices", trianglesName = "triangles", weightsName = "procrustes_weights"

    /// The metadata as a weights file, with the given provenance entries first.
    public func modelFile(metadata provenance: [(key: String, value: String)]) -> ModelFile {
        let vertices = zip(positions, textureCoordinates).flatMap { p, t in [p.x, p.y, p.z, t.x, t.y] }
        let ids = triangles.flatMap { [Float($0.x), Float($0.y), Float($0.z)] }
        // The shapes match the scalar counts by construction, so these cannot fail.
        let tensors: [(name: String, tensor: Tensor)] = [
            (Self.verticesName, (try? Tensor(shape: Shape([vertexCount, 5]), scalars: vertices)) ?? Tensor(shape: Shape([0]))),
            (Self.trianglesName, (try? Tensor(shape: Shape([triangles.count, 3]), scalars: ids)) ?? Tensor(shape: Shape([0]))),
            (Self.weightsName, (try? Tensor(shape: Shape([vertexCount]), scalars: weights)) ?? Tensor(shape: Shape([0]))),
        ]
        return ModelFile(metadata: provenance + [("input_source", String(inputSource.rawValue))], tensors: tensors, nodes: [])
    }

    /// Reads the metadata back from a weights file written by `modelFile(metadata:)`.
    public init(modelFile file: ModelFile) throws(GeometryError) {
        guard let vertices = file.tensor(named: Self.verticesName), vertices.shape.rank == 2, vertices.shape[1] == 5 else {
            throw .invalidWeights("no [V, 5] tensor '\(Self.verticesName)'")
        }
        guard let ids = file.tensor(named: Self.trianglesName), ids.shape.rank == 2, ids.shape[1] == 3 else {
            throw .invalidWeights("no [T, 3] tensor '\(Self.trianglesName)'")
        }
        let count = vertices.shape[0]
        guard let weights = file.tensor(named: Self.weightsName), weights.shape.dims == [count] else {
            throw .invalidWeights("no [\(count)] tensor '\(Self.weightsName)'")
        }
        guard let source = file.metadata("input_source").flatMap({ Int($0) }).flatMap(InputSource.init(rawValue:)) else {
            throw .invalidWeights("metadata 'input_source' is missing or not 1 or 2")
        }
        let v = vertices.scalars
        var triangles: [SIMD3<UInt32>] = []
        for t in stride(from: 0, to: ids.scalars.count, by: 3) {
            let corner = ids.scalars[t..<t + 3]
            guard corner.allSatisfy({ $0 >= 0 && $0 < Float(count) && $0.rounded() == $0 }) else {
                throw .invalidWeights("triangle \(t / 3) has ids \(Array(corner)), not vertex ids below \(count)")
            }
            triangles.append(SIMD3(UInt32(corner[t]), UInt32(corner[t + 1]), UInt32(corner[t + 2])))
        }
        try self.init(inputSource: source,
                      positions: (0..<count).map { SIMD3(v[5 * $0], v[5 * $0 + 1], v[5 * $0 + 2]) },
                      textureCoordinates: (0..<count).map { SIMD2(v[5 * $0 + 3], v[5 * $0 + 4]) },
                      triangles: triangles, weights: weights.scalars)
    }

    /// Reads `Weights/face_geometry.bin` (or any file `modelFile(metadata:)` wrote).
    public init(contentsOf path: String) throws(GeometryError) {
        let file: ModelFile
        do { file = try WeightsFormat.read(contentsOf: path) } catch { throw .invalidWeights(error.description) }
        try self.init(modelFile: file)
    }
}
