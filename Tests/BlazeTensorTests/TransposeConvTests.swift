@testable import BlazeTensor
import TestSupport
import Testing

/// TRANSPOSE_CONV with kernel == stride (CenterFace's 2x2 stride-2 upsampling): the GEMM path
/// against the reference loop (bit-identical: both sum bias, then input channels in order with
/// fma), the reference loop against a textbook loop in Double, and the operator against its
/// definition as a pointwise convolution to kh*kw*O channels followed by DEPTH_TO_SPACE.
@Suite struct TransposeConvTests {
    /// Textbook transposed convolution (scatter form), no padding, in Double.
    static func naive(_ x: Tensor, weightsOHWI w: Tensor, bias: [Float], stride: (Int, Int), relu: Bool) -> Tensor {
        let (n, h, wd, ic) = (x.shape[0], x.shape[1], x.shape[2], x.shape[3])
        let (oc, kh, kw) = (w.shape[0], w.shape[1], w.shape[2])
        let (oh, ow) = ((h - 1) * stride.0 + kh, (wd - 1) * stride.1 + kw)
        var sums = [Double](repeating: 0, count: n * oh * ow * oc)
        for b in 0..<n { for y in 0..<h { for xx in 0..<wd { for ky in 0..<kh { for kx in 0..<kw { for o in 0..<oc {
            var s = 0.0
            for i in 0..<ic { s += Double(x.scalars[((b * h + y) * wd + xx) * ic + i]) * Double(w.scalars[((o * kh + ky) * kw + kx) * ic + i]) }
            sums[((b * oh + y * stride.0 + ky) * ow + xx * stride.1 + kx) * oc + o] += s
        } } } } } }
        let out = sums.enumerated().map { k, s -> Float in
            let v = s + Double(bias[k % oc])
            return Float(relu ? max(v, 0) : v)
        }
        return try! Tensor(shape: Shape([n, oh, ow, oc]), scalars: out)
    }

    static let shapes: [(n: Int, h: Int, w: Int, ic: Int, oc: Int, k: Int)] = [
        (1, 15, 20, 24, 24, 2),   // CenterFace's deconvolutions (one of them)
        (1, 3, 7, 8, 5, 2), (2, 4, 3, 17, 9, 2), (1, 5, 13, 3, 40, 2),   // odd channels, batches, tile tails
        (1, 2, 3, 7, 16, 3), (1, 4, 4, 6, 6, 1),   // 3x3 stride 3; 1x1 stride 1 (a pointwise convolution)
    ]

    @Test(arguments: shapes.indices)
    func gemmEqualsReference(_ i: Int) throws {
        let s = Self.shapes[i]
        var rng = SeededGenerator(seed: UInt64(700 + i))
        let x = randomTensor([s.n, s.h, s.w, s.ic], &rng)
        let weights = randomTensor([s.oc, s.k, s.k, s.ic], &rng), bias = randomTensor([s.oc], &rng)
        for activation in [Activation.none, .relu, .relu6] {
            let fast = try TransposeConv2D(weights: weights, bias: bias, strideH: s.k, strideW: s.k, activation: activation)
            let reference = try TransposeConv2D(weights: weights, bias: bias, strideH: s.k, strideW: s.k, activation: activation,
                                                kernels: .reference)
            let y = try fast(x)
            #expect(y.shape == Shape([s.n, s.h * s.k, s.w * s.k, s.oc]))
            #expect(y == (try reference(x)))
        }
    }

    @Test(arguments: shapes.indices)
    func referenceEqualsTextbook(_ i: Int) throws {
        let s = Self.shapes[i]
        var rng = SeededGenerator(seed: UInt64(800 + i))
        let x = randomTensor([s.n, s.h, s.w, s.ic], &rng)
        let weights = randomTensor([s.oc, s.k, s.k, s.ic], &rng), bias = randomTensor([s.oc], &rng)
        let ours = try TransposeConv2D(weights: weights, bias: bias, strideH: s.k, strideW: s.k, activation: .relu,
                                       kernels: .reference)(x)
        let expected = Self.naive(x, weightsOHWI: weights, bias: bias.scalars, stride: (s.k, s.k), relu: true)
        #expect(ours.shape == expected.shape)
        for (a, b) in zip(ours.scalars, expected.scalars) { #expect(abs(a - b) <= 1e-5 * max(1, abs(b))) }
    }

    /// The definition: a pointwise convolution to (ky, kx, o) channels, then DEPTH_TO_SPACE.
    @Test func equalsPointwiseThenDepthToSpace() throws {
        var rng = SeededGenerator(seed: 900)
        let (ic, oc, k) = (24, 24, 2)
        let x = randomTensor([1, 6, 10, ic], &rng)
        let weights = randomTensor([oc, k, k, ic], &rng), bias = randomTensor([oc], &rng)
        var pointwise = [Float](repeating: 0, count: k * k * oc * ic), tiledBias = [Float]()
        for ky in 0..<k { for kx in 0..<k { for o in 0..<oc {
            for i in 0..<ic { pointwise[(((ky * k + kx) * oc + o) * ic + i)] = weights.scalars[((o * k + ky) * k + kx) * ic + i] }
            tiledBias.append(bias.scalars[o])
        } } }
        let conv = try Conv2D(weights: try Tensor(shape: Shape([k * k * oc, 1, 1, ic]), scalars: pointwise),
                              bias: try Tensor(shape: Shape([k * k * oc]), scalars: tiledBias),
                              strideH: 1, strideW: 1, padding: .valid, activation: .relu)
        let composed = try DepthToSpace(blockSize: k)(try conv(x))
        #expect(try TransposeConv2D(weights: weights, bias: bias, strideH: k, strideW: k, activation: .relu)(x) == composed)
    }

    @Test func overlappingKernelsAndPaddingAreRefused() throws {
        var rng = SeededGenerator(seed: 1)
        let weights = randomTensor([4, 3, 3, 4], &rng)
        #expect(throws: TensorError.self) { try TransposeConv2D(weights: weights, bias: nil, strideH: 2, strideW: 2, activation: .none) }
        #expect(throws: TensorError.self) {
            try TransposeConv2D(weights: weights, bias: nil, strideH: 3, strideW: 3,
                                padding: .explicit(top: 1, bottom: 1, left: 1, right: 1), activation: .none)
        }
    }
}
