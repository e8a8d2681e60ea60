import TestSupport
import Testing

import BlazeImage

@Suite struct PixelSamplerTests {
    /// The packed-RGB bilinear sum (both taps of a row in one load, a 16-bit multiply-add) is
    /// the four-tap sum in R, G, B at every position of an odd-sized image, padded rows or not,
    /// for every fraction pair: the buffer's last pixels included (there it falls back).
    @Test(arguments: [0, 5])
    func packedRGBBilinearSumEqualsFourTaps(_ padding: Int) {
        var rng = SeededGenerator(seed: UInt64(padding + 1))
        let (width, height) = (7, 5)
        let stride = 3 * width + padding
        // The last row without its padding, as a caller's buffer may end.
        let bytes = (0..<(stride * (height - 1) + 3 * width)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        var differences: [String] = []
        bytes.withUnsafeBytes { raw in
            let sampler = RGBSampler(width: width, height: height, base: raw.baseAddress!, rowStride: stride, byteCount: raw.count)
            for y in 0..<(height - 1) {
                for x in 0..<(width - 1) {
                    for ay in Int32(0)...31 {
                        for ax in Int32(0)...31 {
                            let fast = sampler.bilinearSum(x, y, ax: ax, ay: ay)
                            let taps = sampler.fourTapBilinearSum(x, y, ax: ax, ay: ay)
                            if SIMD3(fast[0], fast[1], fast[2]) != SIMD3(taps[0], taps[1], taps[2]) {
                                differences.append("(\(x), \(y)) ax \(ax) ay \(ay): \(fast) vs \(taps)")
                            }
                        }
                    }
                }
            }
        }
        #expect(differences.isEmpty, "\(differences.count) differ, first \(differences.first ?? "")")
    }
}
