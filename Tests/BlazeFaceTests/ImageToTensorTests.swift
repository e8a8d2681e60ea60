import BlazeFace
import BlazeImage
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
}
