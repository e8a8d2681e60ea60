import BlazeModel
import Foundation
import Testing
import TFLiteImport

/// Every input the fuzzers (Fuzz/, Tools/fuzz.sh) ever crashed on, replayed through the same
/// steps as the fuzz target: each must now end in a clean error or a result, never a trap.
/// Files live in Tests/Fixtures/fuzz/<target>/, one per bug, named after it.
@Suite struct FuzzRegressionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/fuzz")

    static func inputs(_ target: String) -> [URL] {
        let folder = root.appendingPathComponent(target)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted().map { folder.appendingPathComponent($0) }
    }

    /// What each weights input must now give: the start of the error message, or nil for a
    /// file that loads (and then builds and runs).
    static let weightsOutcomes: [String: String?] = [
        // A shape whose element count times 4 overflowed UInt64 in the byte-count check.
        "tensor-byte-count-overflow.bin": "weights file is malformed: tensor",
        // An attribute of Int64.min: abs() overflowed in the range check.
        "attribute-int64-min.bin": "node ",
        // An ADD that declares no output: fusion read its first output.
        "add-without-output.bin": "node ",
    ]

    /// As FuzzWeights: checksum recomputed, decoded, built into a network, run if small.
    @Test(arguments: inputs("FuzzWeights"))
    func weightsInput(_ file: URL) throws {
        let expected = try #require(Self.weightsOutcomes[file.lastPathComponent], "no expected outcome for \(file.lastPathComponent)")
        var bytes = [UInt8](try Data(contentsOf: file))
        if bytes.count >= 48 {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for b in bytes[48...] { hash = (hash ^ UInt64(b)) &* 0x100_0000_01b3 }
            for i in 0..<8 { bytes[40 + i] = UInt8(truncatingIfNeeded: hash >> (8 * UInt64(i))) }
        }
        do {
            let network = try Network(model: try WeightsFormat.decode(bytes))
            #expect(expected == nil, "loaded, expected: \(expected ?? "")")
            if network.inputShapes.allSatisfy({ $0.count <= 1 << 16 }) { network.run() }
        } catch {
            #expect(expected.map { error.description.hasPrefix($0) } == true, "\(error.description)")
        }
    }

    /// What each TFLite input must now give: the start of the error message, or nil for a file
    /// that converts.
    static let tfliteOutcomes: [String: String?] = [
        // A tensor shape whose element count overflowed Int in the exporter.
        "shape-product-overflow.tflite": "corrupt TFLite model: tensor",
        // An operator output of -1 (TFLite's "omitted", valid only for inputs).
        "operator-output-minus-one.tflite": "corrupt TFLite model: operator",
    ]

    /// As FuzzTFLite: parsed, then converted to the flat format.
    @Test(arguments: inputs("FuzzTFLite"))
    func tfliteInput(_ file: URL) throws {
        let expected = try #require(Self.tfliteOutcomes[file.lastPathComponent], "no expected outcome for \(file.lastPathComponent)")
        let bytes = [UInt8](try Data(contentsOf: file))
        do throws(TFLiteError) {
            _ = try Exporter.convert(try TFLiteModel(bytes: bytes), metadata: [])
            #expect(expected == nil, "converted, expected: \(expected ?? "")")
        } catch {
            #expect(expected.map { error.description.hasPrefix($0) } == true, "\(error.description)")
        }
    }
}
