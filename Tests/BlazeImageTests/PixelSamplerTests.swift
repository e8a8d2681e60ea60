import TestSupport
import Testing

import BlazeImage

@Suite struct PixelSamplerTests {
    static let (width, height) = (7, 5)

    /// A random odd-sized packed-RGB image with `padding` bytes after each row but the last
    /// (as a caller's buffer may end), and a sampler over it.
    static func withRandomImage(padding: Int, seed: UInt64, _ body: (RGBSampler, _ stride: Int) -> Void) {
        var rng = SeededGenerator(seed: seed)
        let stride = 3 * width + padding
        let bytes = (0..<(stride * (height - 1) + 3 * width)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        bytes.withUnsafeBytes { raw in
            body(RGBSampler(width: width, height: height, base: raw.baseAddress!, rowStride: stride, byteCount: raw.count), stride)
        }
    }

    /// The packed-RGB bilinear sum (each row's taps in one load, `bf_bilinear_rgb`) is
    /// the four-tap sum in R, G, B at every position of an odd-sized image, padded rows or not,
    /// for every fraction pair: the buffer's last pixels included (there it falls back).
    @Test(arguments: [0, 5])
    func packedRGBBilinearSumEqualsFourTaps(_ padding: Int) {
        let (width, height) = (Self.width, Self.height)
        var differences: [String] = []
        Self.withRandomImage(padding: padding, seed: UInt64(padding + 1)) { sampler, _ in
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

    /// The packed-RGB warp run (`warpInterior`) writes fma((four-tap sum
    /// + 512) >> 10, scale, offset) for each pixel whose taps lie inside the buffer, and stops at
    /// the first that does not (the last column and row, and the buffer's last pixels, whose
    /// 8-byte row reads would leave it): every position, every fraction pair.
    @Test(arguments: [0, 5])
    func packedRGBWarpRunEqualsFourTaps(_ padding: Int) {
        let (width, height) = (Self.width, Self.height)
        let (scale, offset): (Float, Float) = (2 / 255, -1)
        var differences: [String] = []
        Self.withRandomImage(padding: padding, seed: UInt64(padding + 11)) { sampler, stride in
            for y in -1..<height {
                for x in -1..<width {
                    for ay in Int32(0)...31 {
                        for ax in Int32(0)...31 {
                            // This pixel, then one that is never inside: the run is 1 or 0 long
                            // (its 16-byte store may write the next pixel's R, which that pixel's
                            // own path then writes).
                            let positions: [Int32] = [Int32(x) * 32 + ax, Int32(y) * 32 + ay, -64, 0]
                            var out = [Float](repeating: .nan, count: 6)
                            let n = positions.withUnsafeBufferPointer { p in
                                out.withUnsafeMutableBufferPointer {
                                    sampler.warpInterior(positions: p.baseAddress!, count: 2, scale: scale, offset: offset, output: $0.baseAddress!)
                                }
                            }
                            let inside = x >= 0 && x + 1 < width && y >= 0 && y + 1 < height
                                && (y + 1) * stride + 3 * x + 8 <= sampler.byteCount
                            guard n == (inside ? 1 : 0) else {
                                differences.append("(\(x), \(y)): run of \(n)"); continue
                            }
                            guard inside else { continue }
                            let v = (sampler.fourTapBilinearSum(x, y, ax: ax, ay: ay) &+ 512) &>> 10
                            let expected = (0..<3).map { offset.addingProduct(Float(v[$0]), scale) }
                            if out[0..<3].map(\.bitPattern) != expected.map(\.bitPattern) || !out[4...].allSatisfy(\.isNaN) {
                                differences.append("(\(x), \(y)) ax \(ax) ay \(ay): \(out) vs \(expected)")
                            }
                        }
                    }
                }
            }
        }
        #expect(differences.isEmpty, "\(differences.count) differ, first \(differences.first ?? "")")
    }

    /// Long runs (the eight-pixel AVX2 path of `bf_warp_rgb_interior`): random sample positions
    /// over a 40x30 image, a few of them outside. The run stops at the first pixel whose taps
    /// leave the buffer, writes each pixel before it as the four-tap sum does, and writes
    /// nothing past the stopping pixel's R and G (which that pixel's own path then writes), nor
    /// past the last pixel of a run that reaches `count` (runs of 8, 16, ... included).
    @Test(arguments: [0, 5])
    func packedRGBWarpLongRunsEqualFourTaps(_ padding: Int) {
        let (width, height) = (40, 30)
        let (scale, offset): (Float, Float) = (1 / 255, 0)
        var rng = SeededGenerator(seed: UInt64(100 + padding))
        let stride = 3 * width + padding
        let bytes = (0..<(stride * (height - 1) + 3 * width)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        var differences: [String] = []
        bytes.withUnsafeBytes { raw in
            let sampler = RGBSampler(width: width, height: height, base: raw.baseAddress!, rowStride: stride, byteCount: raw.count)
            func inside(_ x: Int, _ y: Int) -> Bool {
                x >= 0 && x + 1 < width && y >= 0 && y + 1 < height && (y + 1) * stride + 3 * x + 8 <= raw.count
            }
            for trial in 0..<2000 {
                let count = Int.random(in: 1...40, using: &rng)
                var pixels: [(x: Int, y: Int, ax: Int32, ay: Int32)] = []
                for _ in 0..<count {
                    let outside = Int.random(in: 0..<60, using: &rng) == 0
                    let x = outside ? [-1, width - 1][Int.random(in: 0...1, using: &rng)] : Int.random(in: 0..<width, using: &rng)
                    pixels.append((x, Int.random(in: 0..<height, using: &rng), Int32.random(in: 0...31, using: &rng),
                                   Int32.random(in: 0...31, using: &rng)))
                }
                let positions = pixels.flatMap { [Int32($0.x) * 32 + $0.ax, Int32($0.y) * 32 + $0.ay] }
                var out = [Float](repeating: .nan, count: 3 * count + 8)
                let n = positions.withUnsafeBufferPointer { p in
                    out.withUnsafeMutableBufferPointer {
                        sampler.warpInterior(positions: p.baseAddress!, count: count, scale: scale, offset: offset, output: $0.baseAddress!)
                    }
                }
                let expectedRun = pixels.firstIndex { !inside($0.x, $0.y) } ?? count
                guard n == expectedRun else { differences.append("trial \(trial): run of \(n), expected \(expectedRun)"); continue }
                for (i, p) in pixels.prefix(n).enumerated() {
                    let v = (sampler.fourTapBilinearSum(p.x, p.y, ax: p.ax, ay: p.ay) &+ 512) &>> 10
                    let expected = (0..<3).map { offset.addingProduct(Float(v[$0]), scale) }
                    if out[(3 * i)..<(3 * i + 3)].map(\.bitPattern) != expected.map(\.bitPattern) {
                        differences.append("trial \(trial) pixel \(i): \(out[(3 * i)..<(3 * i + 3)]) vs \(expected)")
                    }
                }
                // A run that ends at `count` writes nothing past its last pixel.
                if !out[min(n == count ? 3 * n : 3 * n + 2, out.count)...].allSatisfy(\.isNaN) {
                    differences.append("trial \(trial): wrote past pixel \(n)'s R and G, or past the run's end")
                }
            }
        }
        #expect(differences.isEmpty, "\(differences.count) differ, first \(differences.first ?? "")")
    }
}
