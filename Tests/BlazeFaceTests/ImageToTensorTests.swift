import BlazeFace
import BlazeImage
import CPixelWarp
import TestSupport
import Testing

/// The warp's fast interior (packed RGB's `bilinearSum`) against its tap-by-tap path.
@Suite struct ImageToTensorTests {
    /// Reads packed RGB one tap at a time: the protocol's default `bilinearSum`, the warp's
    /// plain per-tap path.
    struct TapByTap: PixelSampler {
        let rgb: RGBSampler
        var width: Int { rgb.width }
        var height: Int { rgb.height }
        func rgb(_ x: Int, _ y: Int) -> SIMD4<Int32> { rgb.rgb(x, y) }
    }

    /// On random rotated regions (affine maps: inside, across the edges, over the last pixels)
    /// of an odd-sized random image, both border modes, the tensor of an `RGBImage` equals the
    /// tap-by-tap tensor bit for bit.
    @Test(arguments: [ImageToTensor.BorderMode.zero, .replicate])
    func fastInteriorEqualsTapByTap(_ border: ImageToTensor.BorderMode) throws {
        var rng = SeededGenerator(seed: border == .zero ? 1 : 2)
        let (width, height) = (97, 61)
        let image = try RGBImage(width: width, height: height,
                                 pixels: (0..<(width * height * 3)).map { _ in UInt8.random(in: 0...255, using: &rng) })
        var regions = (0..<40).map { _ in
            RotatedRect(centerX: Float.random(in: -10...Float(width + 10), using: &rng),
                        centerY: Float.random(in: -10...Float(height + 10), using: &rng),
                        width: Float.random(in: 2...120, using: &rng), height: Float.random(in: 2...120, using: &rng),
                        rotation: Float.random(in: -3.2...3.2, using: &rng))
        }
        // The whole image and a small region over the bottom-right corner (the last pixels).
        regions += [.wholeImage(width: width, height: height),
                    RotatedRect(centerX: Float(width) - 1.5, centerY: Float(height) - 1.5, width: 3, height: 3)]
        for (i, region) in regions.enumerated() {
            let (w, h) = i % 2 == 0 ? (33, 17) : (64, 64)
            let convert = ImageToTensor(width: w, height: h, valueRange: -1...1, keepAspectRatio: i % 3 == 0, borderMode: border)
            var fast = [Float](repeating: .nan, count: w * h * 3), plain = fast
            _ = try fast.withUnsafeMutableBufferPointer { try convert.convert(image, region: region, into: $0) }
            try image.pixels.withUnsafeBytes { raw in
                let sampler = TapByTap(rgb: RGBSampler(width: width, height: height, base: raw.baseAddress!,
                                                       rowStride: 3 * width, byteCount: raw.count))
                _ = try plain.withUnsafeMutableBufferPointer { try convert.convert(sampler, region: region, into: $0) }
            }
            let first = fast.indices.first { fast[$0].bitPattern != plain[$0].bitPattern }
            #expect(first == nil, "region \(region): first difference at float \(first ?? -1)")
        }
    }

    /// `bf_opencv_positions_row` (eight pixels per step) against OpenCV's per-pixel formula
    /// written out in scalar Swift: random maps (affine, with tiny and large perspective
    /// terms, rows where w is 0, NaN and huge entries, ties to round), random rows, column
    /// ranges and block widths; the bits of every pair, and nothing written past the range.
    @Test func samplePositionsMatchTheScalarFormula() {
        var rng = SeededGenerator(seed: 3)
        var mismatches = 0, overwrites = 0
        for trial in 0..<3000 {
            var m = (0..<9).map { _ in Double.random(in: -3...3, using: &rng) }
            switch trial % 6 {
            case 0: (m[6], m[7], m[8]) = (0, 0, 1)                                     // affine
            case 1: (m[6], m[7]) = (Double.random(in: -1e-9...1e-9, using: &rng), 1e-10)  // a crop's
            case 2: (m[6], m[7], m[8]) = (0, 0, 0)                                     // w = 0 everywhere
            case 3: m[Int.random(in: 0..<9, using: &rng)] = [.nan, 1e300, -1e300][trial % 3]
            case 4: m = m.map { $0 * 1e6 }                                             // far outside: saturation
            default: m = m.map { ($0 * 64).rounded() / 64 }; (m[6], m[7], m[8]) = (0, 0, 1)  // exact halves: ties
            }
            let y = Int.random(in: 0..<300, using: &rng), first = Int.random(in: 0..<70, using: &rng)
            let count = Int.random(in: 0...70, using: &rng), blockWidth = Int.random(in: 1...80, using: &rng)
            var out = [Int32](repeating: 0x5a5a5a5a, count: 2 * count + 16)
            bf_opencv_positions_row(m, y, first, count, blockWidth, &out)
            for i in 0..<count {
                let (x, y) = Self.position(m, x: first + i, y: y, blockWidth: blockWidth)
                if out[2 * i] != x || out[2 * i + 1] != y { mismatches += 1 }
            }
            overwrites += out[(2 * count)...].filter { $0 != 0x5a5a5a5a }.count
        }
        #expect(mismatches == 0)
        #expect(overwrites == 0)
    }

    /// One pixel's position as WarpPerspectiveInvoker computes it: the sums of its block's first
    /// column, then the offset within the block; `32 / w`; rounding half to even; the int
    /// clamp (+-2e9) and the short saturation of the integer part.
    static func position(_ m: [Double], x: Int, y: Int, blockWidth: Int) -> (Int32, Int32) {
        let xb = x - x % blockWidth, x1 = Double(x - xb), yd = Double(y)
        let x0 = m[0] * Double(xb) + m[1] * yd + m[2]
        let y0 = m[3] * Double(xb) + m[4] * yd + m[5]
        let w0 = m[6] * Double(xb) + m[7] * yd + m[8]
        let w = w0 + m[6] * x1
        let scale = w == 0 ? 0 : 32 / w
        func saturated(_ v: Double) -> Int32 {
            let r = v.rounded(.toNearestOrEven)
            let clamped: Int32 = r.isNaN || r >= 2e9 ? 2_000_000_000 : r > -2e9 ? Int32(r) : -2_000_000_000
            return min(max(clamped >> 5, Int32(Int16.min)), Int32(Int16.max)) << 5 | (clamped & 31)
        }
        return (saturated((x0 + m[0] * x1) * scale), saturated((y0 + m[3] * x1) * scale))
    }
}
