/// Decoding MediaPipe's `geometry_pipeline_metadata_landmarks.binarypb` (from the
/// face_landmarker.task bundle) with our own wire-format reader.
///
/// Layout (protos/geometry_pipeline_metadata.proto, mesh_3d.proto): GeometryPipelineMetadata
/// { 1: Mesh3d canonical_mesh, 2: repeated WeightedLandmarkRef procrustes_landmark_basis,
/// 3: InputSource input_source }; Mesh3d { 1: vertex_type (0 = VERTEX_PT: x, y, z, u, v),
/// 2: primitive_type (0 = TRIANGLE), 3: repeated float vertex_buffer, 4: repeated uint32
/// index_buffer }; WeightedLandmarkRef { 1: uint32 landmark_id, 2: float weight }.
extension GeometryMetadata {
    /// Parses and validates the serialized proto. Unknown fields are skipped, as protobuf does.
    public init(protobuf bytes: [UInt8]) throws(GeometryError) {
        var reader = ProtoWireReader(bytes[...])
        var source: UInt64 = 0
        var vertexBuffer: [Float] = []
        var indexBuffer: [UInt64] = []
        var basis: [(id: UInt64, weight: Float)] = []
        while let field = try reader.next() {
            switch (field.number, field.type) {
            case (1, .lengthDelimited):
                var mesh = ProtoWireReader(field.bytes)
                while let f = try mesh.next() {
                    switch f.number {
                    case 1, 2:
                        guard f.type == .varint else { throw .malformedProtobuf(offset: f.offset, reason: "Mesh3d field \(f.number) is not a varint") }
                        guard f.varint == 0 else {
                            throw .invalidMetadata(f.number == 1 ? "vertex type \(f.varint) (only VERTEX_PT, 0)" : "primitive type \(f.varint) (only TRIANGLE, 0)")
                        }
                    case 3: vertexBuffer += try ProtoWireReader.floats(f)
                    case 4: indexBuffer += try ProtoWireReader.varints(f)
                    default: break
                    }
                }
            case (2, .lengthDelimited):
                var ref = ProtoWireReader(field.bytes)
                var entry: (id: UInt64, weight: Float) = (0, 0)
                while let f = try ref.next() {
                    switch (f.number, f.type) {
                    case (1, .varint): entry.id = f.varint
                    case (2, .fixed32): entry.weight = ProtoWireReader.float(f.bytes)
                    case (1, _), (2, _): throw .malformedProtobuf(offset: f.offset, reason: "WeightedLandmarkRef field \(f.number) has wire type \(f.type)")
                    default: break
                    }
                }
                basis.append(entry)
            case (3, .varint): source = field.varint
            case (1, _), (2, _), (3, _):
                throw .malformedProtobuf(offset: field.offset, reason: "GeometryPipelineMetadata field \(field.number) has wire type \(field.type)")
            default: break
            }
        }

        // VERTEX_PT: position x, y, z then texture u, v (mesh_3d_utils.cc).
        guard vertexBuffer.count % 5 == 0 else { throw .invalidMetadata("vertex buffer of \(vertexBuffer.count) floats is not a multiple of 5") }
        guard indexBuffer.count % 3 == 0 else { throw .invalidMetadata("index buffer of \(indexBuffer.count) ids is not a multiple of 3") }
        let count = vertexBuffer.count / 5
        let positions = (0..<count).map { SIMD3(vertexBuffer[5 * $0], vertexBuffer[5 * $0 + 1], vertexBuffer[5 * $0 + 2]) }
        let uvs = (0..<count).map { SIMD2(vertexBuffer[5 * $0 + 3], vertexBuffer[5 * $0 + 4]) }
        var triangles: [SIMD3<UInt32>] = []
        for t in stride(from: 0, to: indexBuffer.count, by: 3) {
            let ids = indexBuffer[t..<t + 3]
            guard let worst = ids.max(), worst < UInt64(count) else {
                throw .invalidMetadata("triangle \(t / 3) refers to vertex \(ids.max() ?? 0) of \(count)")
            }
            triangles.append(SIMD3(UInt32(ids[t]), UInt32(ids[t + 1]), UInt32(ids[t + 2])))
        }
        // As CreateGeometryPipeline: every basis entry sets its vertex's weight (the last one wins).
        var weights = [Float](repeating: 0, count: count)
        guard !basis.isEmpty else { throw .invalidMetadata("the Procrustes landmark basis is empty") }
        for entry in basis {
            guard entry.id < UInt64(count) else { throw .invalidMetadata("basis landmark \(entry.id) is not a vertex of the \(count)-vertex mesh") }
            weights[Int(entry.id)] = entry.weight
        }
        let inputSource: InputSource
        switch source {
        case 0, 1: inputSource = .faceLandmarkPipeline
        case 2: inputSource = .faceDetectionPipeline
        default: throw .invalidMetadata("input source \(source)")
        }
        try self.init(inputSource: inputSource, positions: positions, textureCoordinates: uvs,
                      triangles: triangles, weights: weights)
    }
}
