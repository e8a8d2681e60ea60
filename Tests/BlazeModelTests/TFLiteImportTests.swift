import InternalUtilities
import Testing
@testable import TFLiteImport

@Suite struct TFLiteImportTests {
    /// float16 -> float32 is exact for all 65,536 patterns (checked against the platform's Float16 where it has one).
    @Test func halfToFloatIsExact() {
        #if arch(x86_64) || arch(arm64)
        for bits in 0...UInt16.max {
            let ours = Exporter.floatFromHalf(bits)
            let theirs = Float(Float16(bitPattern: bits))
            if theirs.isNaN { #expect(ours.isNaN) } else { #expect(ours.bitPattern == theirs.bitPattern, "0x\(String(bits, radix: 16))") }
        }
        #endif
        #expect(Exporter.floatFromHalf(0x3c00) == 1)
        #expect(Exporter.floatFromHalf(0xc000) == -2)
        #expect(Exporter.floatFromHalf(0x0001) == Float(sign: .plus, exponent: -24, significand: 1))
        #expect(Exporter.floatFromHalf(0x7c00) == .infinity)
    }

    @Test func refusesFilesThatAreNotTFLite() {
        #expect(throws: TFLiteError.notTFLite) { try TFLiteModel(bytes: []) }
        #expect(throws: TFLiteError.notTFLite) { try TFLiteModel(bytes: Array("BFWF0000".utf8)) }
    }

    /// Random bytes behind a TFL3 identifier: always an error, never a trap.
    @Test func survivesGarbage() {
        var state: UInt64 = 42
        for length in stride(from: 8, to: 600, by: 7) {
            var bytes = (0..<length).map { _ -> UInt8 in
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return UInt8(truncatingIfNeeded: state >> 33)
            }
            bytes.replaceSubrange(4..<8, with: Array("TFL3".utf8))
            bytes[0] = UInt8(length % 64)
            _ = try? TFLiteModel(bytes: bytes)
        }
    }

    @Test func sha256MatchesKnownVectors() {
        #expect(SHA256.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(Array(String(repeating: "a", count: 1000).utf8))
                == "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3")
    }
}
