import BlazeModel
import Foundation
import LandmarkerGoldens
import TFLiteImport
import Testing
@testable import GeometryEstimation

/// The protobuf reader, the metadata's validation and its flat-format round trip.
@Suite struct MetadataTests {
    /// A minimal protobuf writer for building test inputs.
    struct ProtoWriter {
        var bytes: [UInt8] = []
        mutating func varint(_ v: UInt64) {
            var v = v
            while v >= 0x80 { bytes.append(UInt8(v & 0x7f) | 0x80); v >>= 7 }
            bytes.append(UInt8(v))
        }
        mutating func tag(_ field: UInt64, _ type: UInt64) { varint(field << 3 | type) }
        mutating func float(_ field: UInt64, _ f: Float) {
            tag(field, 5)
            bytes += withUnsafeBytes(of: f.bitPattern.littleEndian, Array.init)
        }
        mutating func message(_ field: UInt64, _ body: [UInt8]) { tag(field, 2); varint(UInt64(body.count)); bytes += body }
    }

    /// A 4-vertex, 2-triangle mesh with a 3-point basis; floats unpacked, ids packed or not.
    func sample(packedIndices: Bool = false, basisId: UInt64 = 2) -> [UInt8] {
        var mesh = ProtoWriter()
        mesh.tag(1, 0); mesh.varint(0)
        for v in 0..<4 { for k in 0..<5 { mesh.float(3, Float(v * 5 + k) * 0.5) } }
        let ids: [UInt64] = [0, 1, 2, 1, 2, 3]
        if packedIndices {
            var packed = ProtoWriter()
            ids.forEach { packed.varint($0) }
            mesh.message(4, packed.bytes)
        } else {
            for id in ids { mesh.tag(4, 0); mesh.varint(id) }
        }
        var top = ProtoWriter()
        top.message(1, mesh.bytes)
        for (id, w) in [(0 as UInt64, Float(0.5)), (1, 0.25), (basisId, 0.125)] {
            var ref = ProtoWriter()
            ref.tag(1, 0); ref.varint(id)
            ref.float(2, w)
            top.message(2, ref.bytes)
        }
        top.tag(99, 0); top.varint(7)   // an unknown field, skipped
        top.tag(3, 0); top.varint(1)
        return top.bytes
    }

    @Test func decodesTheWireFormat() throws {
        for packed in [false, true] {
            let m = try GeometryMetadata(protobuf: sample(packedIndices: packed))
            #expect(m.vertexCount == 4)
            #expect(m.positions[1] == SIMD3(2.5, 3, 3.5))
            #expect(m.textureCoordinates[3] == SIMD2(9, 9.5))
            #expect(m.triangles == [SIMD3(0, 1, 2), SIMD3(1, 2, 3)])
            #expect(m.weights == [0.5, 0.25, 0.125, 0])
            #expect(m.basis == [0, 1, 2])
            #expect(m.inputSource == .faceLandmarkPipeline)
        }
    }

    /// Every truncation of a valid message inside a field is refused with an error, never a
    /// crash; a cut between top-level fields is itself a valid (shorter) message.
    @Test func refusesEveryTruncationInsideAField() throws {
        let bytes = sample()
        var boundaries: Set<Int> = [bytes.count]
        var reader = ProtoWireReader(bytes[...])
        while let field = try reader.next() { boundaries.insert(field.offset) }
        for cut in 0..<bytes.count where !boundaries.contains(cut) {
            #expect(throws: GeometryError.self) { try GeometryMetadata(protobuf: Array(bytes[..<cut])) }
        }
    }

    @Test func refusesBadContent() {
        #expect(throws: GeometryError.self) { try GeometryMetadata(protobuf: sample(basisId: 4)) }   // basis id past the mesh
        #expect(throws: GeometryError.self) { try GeometryMetadata(protobuf: [0x0b]) }               // wire type 3 (group)
        #expect(throws: GeometryError.self) { try GeometryMetadata(protobuf: [0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]) }   // length past the end
        #expect(throws: GeometryError.self) { try GeometryMetadata(protobuf: [UInt8](repeating: 0xff, count: 11)) }  // endless varint
        #expect(throws: GeometryError.self) {
            try GeometryMetadata(inputSource: .faceLandmarkPipeline, positions: [.zero], textureCoordinates: [.zero], triangles: [], weights: [-1])
        }
        #expect(throws: GeometryError.self) {
            try GeometryMetadata(inputSource: .faceLandmarkPipeline, positions: [.zero], textureCoordinates: [.zero], triangles: [SIMD3(0, 0, 1)], weights: [1])
        }
    }

    @Test func roundTripsThroughTheWeightsFormat() throws {
        let m = try GeometryMetadata(protobuf: sample())
        let decoded = try WeightsFormat.decode(WeightsFormat.encode(m.modelFile(metadata: [("name", "test")])))
        #expect(try GeometryMetadata(modelFile: decoded) == m)
        #expect(throws: GeometryError.self) { try GeometryMetadata(modelFile: ModelFile(metadata: [], tensors: [], nodes: [])) }
    }

    /// `Exporter.exportGeometry` (`blazeface export-geometry`): the metadata written with its
    /// provenance and read back the same; a file that is no metadata, a missing file and a
    /// bundle hash for a plain file refused, naming the file, with nothing written.
    @Test func theExporterWritesWhatReadsBackTheSame() throws {
        let dir = NSTemporaryDirectory() + "geometry-export-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data(sample()).write(to: URL(fileURLWithPath: dir + "/meta.binarypb"))
        let file = try Exporter.exportGeometry(at: dir + "/meta.binarypb", to: dir + "/geometry.bin")
        #expect(try GeometryMetadata(contentsOf: dir + "/geometry.bin") == GeometryMetadata(protobuf: sample()))
        let metadata = Dictionary(file.metadata, uniquingKeysWith: { a, _ in a })
        #expect(metadata["name"] == "face_geometry" && metadata["source"] == "meta.binarypb" && metadata["source_sha256"]?.count == 64)
        try Data([0x0b]).write(to: URL(fileURLWithPath: dir + "/bad.binarypb"))
        #expect { try Exporter.exportGeometry(at: dir + "/bad.binarypb", to: dir + "/refused.bin") } throws: { "\($0)".hasPrefix(dir + "/bad.binarypb: ") }
        #expect { try Exporter.exportGeometry(at: dir + "/none.binarypb", to: dir + "/refused.bin") } throws: { "\($0)".contains("none.binarypb") }
        #expect { try Exporter.exportGeometry(at: dir + "/meta.binarypb", bundleSHA256: "00", to: dir + "/refused.bin") } throws: {
            "\($0)".contains("not a zip")
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/refused.bin"))
    }

    /// The committed export of MediaPipe's metadata: 468 vertices, 898 triangles, a 33-point basis.
    @Test func committedWeightsHoldMediaPipesCanonicalFace() throws {
        let m = try GeometryMetadata(contentsOf: LandmarkerGoldens.geometryWeights)
        #expect(m.vertexCount == 468)
        #expect(m.triangles.count == 898)
        #expect(m.basis.count == 33)
        #expect(m.inputSource == .faceLandmarkPipeline)
    }
}
