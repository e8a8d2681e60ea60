@testable import BlazeTensor
import CBFloat16
import TestSupport
import Testing

/// `Precision.bfloat16`'s pointwise convolution against its definition, written out here as
/// plain loops: inputs and weights rounded to the nearest bfloat16 (ties to even), each output
/// the bias plus, a pair of input channels after another, the odd channel's product then the
/// even one's, each added by one fma. Both of the kernel's paths (AVX512-BF16's vdpbf16ps where
/// the CPU has it, the float32 GEMM on rounded copies everywhere) must give exactly those bits.
@Suite struct BFloat16Tests {
    /// The bfloat16 nearest `x`, as a float: ties to even, subnormals to zero of their sign,
    /// NaN kept and made quiet.
    static func rounded(_ x: Float) -> Float {
        let u = x.bitPattern
        if u & 0x7f80_0000 == 0 { return Float(bitPattern: u & 0x8000_0000) }
        if x.isNaN { return Float(bitPattern: (u | 0x0040_0000) & 0xffff_0000) }
        let lsb = (u >> 16) & 1
        return Float(bitPattern: (u &+ 0x7fff &+ lsb) & 0xffff_0000)
    }

    @Test func roundingIsToNearestEvenWithSubnormalsFlushed() {
        let cases: [Float] = [
            0, -0, 1, -1, .pi, -.pi, 1 + 0x1p-8, 1 + 0x1p-8 + 0x1p-16, 1 + 3 * 0x1p-8, 1 + 0x1p-9,   // ties to even, and past them
            .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .infinity, -.infinity,
            .leastNormalMagnitude, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, 0x1p-127,   // subnormals flush to zero
            65504, 3.3895314e38, 1e-30,
        ]
        var out = [Float](repeating: 7, count: cases.count)
        bf16_round_floats(cases, cases.count, &out)
        for (x, y) in zip(cases, out) {
            #expect(y.bitPattern == Self.rounded(x).bitPattern, "\(x): \(y) vs \(Self.rounded(x))")
        }
        #expect(out[6].bitPattern == Float(1).bitPattern)   // 1 + 2^-8 is a tie: to the even 1
        #expect(out[8] == 1 + 4 * 0x1p-8)   // 1 + 3 * 2^-8 is a tie: to the even 1 + 2^-6
        #expect(out[14] == .leastNormalMagnitude && out[15] == 0 && out[16].bitPattern == (-Float(0)).bitPattern)
        var nan = [Float](repeating: 0, count: 1)
        bf16_round_floats([Float(bitPattern: 0x7f80_0001)], 1, &nan)
        #expect(nan[0].isNaN)   // a signalling NaN whose payload is all in the dropped half stays a NaN
    }

    /// out[p][o] by the definition above, then ReLU if asked.
    static func definition(_ x: Tensor, _ weightsIO: [Float], _ bias: [Float], ic: Int, oc: Int, relu: Bool) -> [Float] {
        let pixels = x.shape.count / ic, pairs = (ic + 1) / 2
        func input(_ p: Int, _ i: Int) -> Float { i < ic ? rounded(x.scalars[p * ic + i]) : 0 }
        func weight(_ i: Int, _ o: Int) -> Float { i < ic ? rounded(weightsIO[i * oc + o]) : 0 }
        var out = [Float](repeating: 0, count: pixels * oc)
        for p in 0..<pixels {
            for o in 0..<oc {
                var acc = bias[o]
                for k in 0..<pairs {
                    acc = acc.addingProduct(input(p, 2 * k + 1), weight(2 * k + 1, o))
                    acc = acc.addingProduct(input(p, 2 * k), weight(2 * k, o))
                }
                out[p * oc + o] = relu ? max(0, acc) : acc
            }
        }
        return out
    }

    static let shapes: [(pixels: Int, ic: Int, oc: Int)] = [
        (61, 32, 16), (50, 24, 144), (49, 144, 24), (17, 96, 32), (9, 33, 40), (100, 16, 64), (13, 7, 160),
        (3, 320, 24), (48, 64, 17), (97, 40, 240), (1, 2, 1024),   // odd channels, tails of 1 to 15 and 8 channels, chunks
    ]

    @Test(arguments: shapes.indices)
    func pointwiseEqualsItsDefinitionOnEveryPath(_ i: Int) throws {
        let (pixels, ic, oc) = Self.shapes[i]
        var rng = SeededGenerator(seed: UInt64(700 + i))
        let x = randomTensor([1, 1, pixels, ic], &rng)
        let w = (0..<ic * oc).map { _ in Float.random(in: -1...1, using: &rng) }
        let bias = (0..<oc).map { _ in Float.random(in: -1...1, using: &rng) }
        let paths = BFloat16PointwiseWeights.cpuHasDotProduct ? [false, true] : [false]
        for dotProduct in paths {
            let weights = BFloat16PointwiseWeights(weightsIO: w, bias: bias, inputChannels: ic, outputChannels: oc, dotProduct: dotProduct)
            #expect((weights.pairs != nil) == dotProduct)
            for relu in [false, true] {
                let scratch = UnsafeMutablePointer<Float>.allocate(capacity: weights.scratchFloats)
                defer { scratch.deallocate() }
                var out = [Float](repeating: .nan, count: pixels * oc)
                x.scalars.withUnsafeBufferPointer { input in
                    out.withUnsafeMutableBufferPointer { output in
                        bf16PointwiseConv(pixels: 0..<pixels, input: input.baseAddress!, weights: weights,
                                          epilogue: PointwiseEpilogue(activation: relu ? .relu : .none),
                                          output: output.baseAddress!, scratch: scratch)
                    }
                }
                let expected = Self.definition(x, w, bias, ic: ic, oc: oc, relu: relu)
                let differing = zip(out, expected).filter { $0.bitPattern != $1.bitPattern }.count
                #expect(differing == 0, "\(pixels)x\(ic)->\(oc), dot product \(dotProduct), relu \(relu): \(differing) outputs differ")
            }
        }
    }

    /// Through `Conv2D`: the precision reaches the 1x1 layers that pay (and only those), and a
    /// fused residual is added to the bfloat16 sum as float32 adds it to its own.
    @Test func conv2DRoundsOnlyThePointwiseLayersThatPay() throws {
        var rng = SeededGenerator(seed: 77)
        let x = randomTensor([1, 6, 7, 48], &rng)
        let weights = randomTensor([32, 1, 1, 48], &rng), bias = randomTensor([32], &rng)
        // OHWI to [input][output].
        let ohwi: [Float] = weights.scalars
        var w = [Float](repeating: 0, count: 48 * 32)
        for i in 0..<48 {
            for o in 0..<32 { w[i * 32 + o] = ohwi[o * 48 + i] }
        }
        let plain = try Conv2D(weights: weights, bias: bias, strideH: 1, strideW: 1, padding: .same, activation: .none,
                               precision: .bfloat16)
        let expected = Self.definition(x, w, bias.scalars, ic: 48, oc: 32, relu: false)
        let plainOut: [Float] = try plain(x).scalars
        #expect(plainOut.map { $0.bitPattern } == expected.map { $0.bitPattern })
        let skip = randomTensor([1, 6, 7, 32], &rng)
        let residual = try Conv2D(weights: weights, bias: bias, strideH: 1, strideW: 1, padding: .same, activation: .relu,
                                  residual: Residual(pooled: false), precision: .bfloat16)
        let sum: [Float] = try residual(x, skip).scalars
        let skipped: [Float] = skip.scalars
        let summed: [Float] = zip(expected, skipped).map { (a: Float, b: Float) -> Float in max(0, a + b) }
        #expect(sum.map { $0.bitPattern } == summed.map { $0.bitPattern })
        // Too small to pay (under 16 outputs): float32, the reference's bits.
        let small = randomTensor([8, 1, 1, 48], &rng), smallBias = randomTensor([8], &rng)
        let f32 = try Conv2D(weights: small, bias: smallBias, strideH: 1, strideW: 1, padding: .same, activation: .none)
        let bf = try Conv2D(weights: small, bias: smallBias, strideH: 1, strideW: 1, padding: .same, activation: .none, precision: .bfloat16)
        #expect(try bf(x) == f32(x))
        // The reference kernels stay float32 whatever the precision.
        let reference = try Conv2D(weights: weights, bias: bias, strideH: 1, strideW: 1, padding: .same, activation: .none, kernels: .reference)
        let referenceAsked = try Conv2D(weights: weights, bias: bias, strideH: 1, strideW: 1, padding: .same, activation: .none,
                                        kernels: .reference, precision: .bfloat16)
        #expect(try referenceAsked(x) == reference(x))
    }
}
