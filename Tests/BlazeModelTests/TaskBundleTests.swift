import BlazeModel
import Foundation
import InternalUtilities
import Testing
@testable import TFLiteImport

/// A minimal zip writer for the tests: stored members (or a claimed method), local headers,
/// central directory, end record — the structure `TaskBundle` reads.
private func zip(_ members: [(name: String, data: [UInt8])], method: UInt16 = 0, badCRC: Bool = false) -> [UInt8] {
    func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8 & 0xff)] }
    func le32(_ v: Int) -> [UInt8] { le16(v & 0xffff) + le16(v >> 16 & 0xffff) }
    var out: [UInt8] = [], directory: [UInt8] = []
    for m in members {
        let crc = Int(CRC32.checksum(m.data)) ^ (badCRC ? 1 : 0)
        let name = Array(m.name.utf8)
        let offset = out.count
        out += le32(0x0403_4b50) + le16(10) + le16(0) + le16(Int(method)) + le16(0) + le16(0)
            + le32(crc) + le32(m.data.count) + le32(m.data.count) + le16(name.count) + le16(0) + name + m.data
        directory += le32(0x0201_4b50) + le16(20) + le16(10) + le16(0) + le16(Int(method)) + le16(0) + le16(0)
            + le32(crc) + le32(m.data.count) + le32(m.data.count) + le16(name.count) + le16(0) + le16(0)
            + le16(0) + le16(0) + le32(0) + le32(offset) + name
    }
    let dirOffset = out.count
    out += directory
    out += le32(0x0605_4b50) + le16(0) + le16(0) + le16(members.count) + le16(members.count)
        + le32(directory.count) + le32(dirOffset) + le16(0)
    return out
}

@Suite struct TaskBundleTests {
    let members: [(name: String, data: [UInt8])] = [("a.tflite", Array("TFL3 model a".utf8)), ("b.binarypb", [1, 2, 3])]

    @Test func readsStoredMembers() throws {
        let bundle = try TaskBundle(bytes: zip(members))
        #expect(bundle.names == ["a.tflite", "b.binarypb"])
        #expect(try bundle.member("a.tflite") == members[0].data)
        #expect(try bundle.member("b.binarypb") == [1, 2, 3])
        #expect(throws: TaskBundleError.missingMember("c", available: ["a.tflite", "b.binarypb"])) { try bundle.member("c") }
    }

    @Test func checksTheBundleHash() throws {
        let bytes = zip(members)
        _ = try TaskBundle(bytes: bytes, expectedSHA256: SHA256.hex(bytes).uppercased())
        #expect(throws: TaskBundleError.self) { try TaskBundle(bytes: bytes, expectedSHA256: String(repeating: "0", count: 64)) }
    }

    @Test func refusesCompressedMembers() {
        #expect(throws: TaskBundleError.compressed(member: "a.tflite", method: 8)) { try TaskBundle(bytes: zip(members, method: 8)) }
    }

    @Test func refusesABadCRC() throws {
        let bundle = try TaskBundle(bytes: zip(members, badCRC: true))
        #expect(throws: TaskBundleError.self) { try bundle.member("a.tflite") }
    }

    @Test func crc32KnownVector() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xcbf4_3926)
    }

    /// Every truncation and single-byte corruption is an error or a valid read, never a trap.
    @Test func survivesTruncationAndCorruption() {
        let bytes = zip(members)
        for n in 0..<bytes.count { _ = try? TaskBundle(bytes: Array(bytes.prefix(n))) }
        for i in 0..<bytes.count {
            var b = bytes
            b[i] ^= 0xff
            if let bundle = try? TaskBundle(bytes: b) { for name in bundle.names { _ = try? bundle.member(name) } }
        }
    }
}

/// `Exporter.export(modelAt:...)`, what `blazeface export` runs, on the fuzz corpus's small
/// convolution model: from the file and from a `.task` bundle holding it, with its provenance.
@Suite struct ModelExportTests {
    static let model = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fuzz/corpus/FuzzTFLite/conv.tflite").path

    @Test func aModelIsExportedFromItsFileOrABundleWithItsProvenance() throws {
        let dir = NSTemporaryDirectory() + "export-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.model)))
        let plain = try Exporter.export(modelAt: Self.model, to: dir + "/plain.bin")
        let read = try WeightsFormat.read(contentsOf: dir + "/plain.bin")
        #expect(read.nodes == plain.nodes && read.tensors.map(\.name) == plain.tensors.map(\.name))
        let metadata = Dictionary(plain.metadata, uniquingKeysWith: { a, _ in a })
        #expect(metadata["name"] == "conv" && metadata["source"] == "conv.tflite" && metadata["source_sha256"] == SHA256.hex(bytes))
        #expect(metadata["bundle"] == nil)
        // The same model as a member of a bundle: the same graph, the bundle recorded.
        let bundle = zip([("conv.tflite", bytes)])
        try Data(bundle).write(to: URL(fileURLWithPath: dir + "/m.task"))
        let member = try Exporter.export(modelAt: dir + "/m.task", member: "conv.tflite", bundleSHA256: SHA256.hex(bundle), name: "c",
                                         to: dir + "/member.bin")
        let memberMetadata = Dictionary(member.metadata, uniquingKeysWith: { a, _ in a })
        #expect(member.nodes == plain.nodes && memberMetadata["name"] == "c" && memberMetadata["bundle"] == "m.task"
                && memberMetadata["bundle_sha256"] == SHA256.hex(bundle) && memberMetadata["source_sha256"] == SHA256.hex(bytes))
        // A bundle of another hash, or a missing file: refused, naming the file; nothing written.
        #expect { try Exporter.export(modelAt: dir + "/m.task", member: "conv.tflite", bundleSHA256: String(repeating: "0", count: 64),
                                      to: dir + "/refused.bin") } throws: { "\($0)".hasPrefix(dir + "/m.task: ") }
        #expect { try Exporter.export(modelAt: dir + "/none.tflite", to: dir + "/refused.bin") } throws: { "\($0)".contains("none.tflite") }
        #expect(!FileManager.default.fileExists(atPath: dir + "/refused.bin"))
    }
}
