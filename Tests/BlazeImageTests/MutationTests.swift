import BlazeImageIO
import Foundation
import Testing

@testable import BlazeImage

/// Seeded random damage to valid files: every outcome is a whole image or an `ImageError`
/// (typed throws), never a trap, a hang or a partially filled image.
@Suite struct MutationTests {
    /// A small deterministic generator (64-bit LCG), so failures reproduce.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return state
        }
    }

    static func mutations(of bytes: [UInt8], count: Int, seed: UInt64) -> [[UInt8]] {
        var rng = Generator(state: seed)
        return (0..<count).map { _ in
            var b = bytes
            switch rng.next() % 3 {
            case 0:   // flip a few bytes
                for _ in 0..<(1 + Int(rng.next() % 4)) { b[Int(rng.next() % UInt64(b.count))] ^= UInt8(truncatingIfNeeded: rng.next() | 1) }
            case 1:   // cut
                b = Array(b.prefix(Int(rng.next() % UInt64(b.count))))
            default:  // overwrite a run with one value
                let start = Int(rng.next() % UInt64(b.count)), run = min(b.count - start, 1 + Int(rng.next() % 64))
                let v = UInt8(truncatingIfNeeded: rng.next())
                for i in start..<(start + run) { b[i] = v }
            }
            return b
        }
    }

    @Test(arguments: ["orientation_6.jpg", "astronaut_gray.jpg", "astronaut_progressive.jpg"])
    func damagedJPEGsGiveAnImageOrAnError(_ name: String) throws {
        let bytes = try JPEGFixtures.bytes(name)
        var decoded = 0, refused = 0
        for data in Self.mutations(of: bytes, count: name.hasPrefix("orientation") ? 400 : 40, seed: 7) {
            do {
                let image = try ImageFile.read(data: data, applyingOrientation: true)
                #expect(image.pixels.count == image.width * image.height * 3)
                decoded += 1
            } catch {
                refused += 1
            }
        }
        #expect(refused > 0 && decoded + refused > 0)   // cuts at least are caught
    }

    @Test func damagedPNMsGiveAnImageOrAnError() throws {
        let image = try RGBImage(width: 9, height: 7, pixels: (0..<189).map { UInt8($0 % 251) })
        for encoded in [try PNM.encode(image), try PNM.encode(image, as: .pgm, sixteenBit: true),
                        Array("P3 2 2 255 1 2 3 4 5 6 7 8 9 10 11 12\n".utf8)] {
            for data in Self.mutations(of: encoded, count: 300, seed: 11) {
                if let decoded = try? ImageFile.read(data: data) {
                    #expect(decoded.pixels.count == decoded.width * decoded.height * 3)
                }
            }
        }
    }
}
