@testable import BlazeTensor
import TestSupport
import Testing

/// Every SIMD microkernel against the reference kernel: bit-identical outputs, because both
/// sum in the same order with fma. Shapes cover BlazeFace's layers and awkward tails
/// (channel counts that are not a multiple of 8 or 16, widths not a multiple of the tile).
@Suite struct KernelTests {
    static let pointwiseShapes: [(h: Int, w: Int, ic: Int, oc: Int)] = [
        (64, 64, 24, 24), (64, 64, 24, 28), (32, 32, 28, 32), (32, 32, 36, 42), (16, 16, 42, 48),
        (16, 16, 88, 2), (8, 8, 96, 6), (16, 16, 88, 32), (8, 8, 96, 96), (3, 5, 7, 9), (1, 1, 1, 1), (7, 1, 13, 17),
        (13, 1, 16, 8), (128, 3, 16, 8),   // 8-channel blocks: 8-, 4- and 1-pixel tiles
        (11, 1, 16, 16), (1, 2, 5, 16), (64, 1, 97, 97),   // 16-channel blocks: 6-, 4-, 2- and 1-pixel tiles
        (5, 7, 8, 16), (3, 13, 5, 20),   // at most 8 input channels: 12-pixel tiles, then the others
        (3, 7, 24, 144), (5, 5, 144, 24), (2, 9, 12, 40),   // two blocks at once (16 + 16, 16 + 8), then the pixels left
    ]

    @Test(arguments: pointwiseShapes.indices)
    func pointwiseGEMMEqualsReference(_ i: Int) throws {
        let (h, w, ic, oc) = Self.pointwiseShapes[i]
        var rng = SeededGenerator(seed: UInt64(100 + i))
        let x = randomTensor([1, h, w, ic], &rng)
        let weights = randomTensor([oc, 1, 1, ic], &rng), bias = randomTensor([oc], &rng)
        for activation in [Activation.none, .relu] {
            let fast = try Conv2D(weights: weights, bias: bias, strideH: 1, strideW: 1, padding: .same, activation: activation)
            let reference = try Conv2D(weights: weights, bias: bias, strideH: 1, strideW: 1, padding: .same,
                                       activation: activation, kernels: .reference)
            #expect(try fast(x) == reference(x))
        }
    }

    /// The fused residual: skip with fewer channels, pooled 2x2 or not, then ReLU.
    @Test(arguments: [(16, 16, 24, 28, 24, false), (8, 8, 28, 32, 28, true), (8, 8, 42, 48, 42, true),
                      (4, 4, 96, 96, 96, false), (4, 4, 88, 96, 88, true), (5, 3, 7, 9, 5, true)])
    func fusedResidualEqualsReference(_ h: Int, _ w: Int, _ ic: Int, _ oc: Int, _ skipC: Int, _ pooled: Bool) throws {
        var rng = SeededGenerator(seed: UInt64(h * 1000 + ic + oc))
        let x = randomTensor([1, h, w, ic], &rng)
        let skip = randomTensor([1, pooled ? 2 * h : h, pooled ? 2 * w : w, skipC], &rng)
        let weights = randomTensor([oc, 1, 1, ic], &rng), bias = randomTensor([oc], &rng)
        func op(_ kernels: KernelChoice) throws -> Conv2D {
            try Conv2D(weights: weights, bias: bias, strideH: 1, strideW: 1, padding: .valid, activation: .relu,
                       residual: Residual(pooled: pooled), kernels: kernels)
        }
        let fused = try op(.fastest)(x, skip)
        #expect(fused == (try op(.reference)(x, skip)))
        // And the reference itself is conv, then (pool), pad, add, relu as separate TFLite ops.
        let plain = try Conv2D(weights: weights, bias: bias, strideH: 1, strideW: 1, padding: .valid, activation: .none)(x)
        var s = skip
        if pooled { s = try MaxPool2D(filterH: 2, filterW: 2, strideH: 2, strideW: 2, padding: .valid)(s) }
        s = try Pad(paddings: [(0, 0), (0, 0), (0, 0), (0, oc - skipC)])(s)
        #expect(fused == (try ReLU()(try Add()(plain, s))))
    }

    @Test(arguments: [(128, 128, 3, 24, 5, 2, Padding.same), (13, 11, 3, 24, 5, 2, .same), (9, 9, 4, 10, 3, 1, .same),
                      (9, 10, 5, 17, 3, 2, .valid), (6, 7, 2, 8, 2, 3, .same),
                      (20, 17, 3, 32, 3, 2, .explicit(top: 1, bottom: 1, left: 1, right: 1)),
                      (9, 40, 3, 16, 3, 2, .same), (7, 23, 3, 16, 3, 1, .same),   // 6x16 tiles and their tails
                      (9, 9, 5, 64, 3, 1, .explicit(top: 0, bottom: 2, left: 1, right: 0)),
                      // AVX-512's 8-pixel tiles of 24 and 32 channels, and their tails
                      (12, 40, 24, 24, 3, 1, .same), (21, 41, 3, 32, 3, 2, .explicit(top: 1, bottom: 1, left: 1, right: 1)),
                      (9, 30, 5, 64, 3, 1, .same)])
    func directConvolutionEqualsReference(_ h: Int, _ w: Int, _ ic: Int, _ oc: Int, _ k: Int, _ stride: Int, _ padding: Padding) throws {
        var rng = SeededGenerator(seed: UInt64(h * w + oc))
        let x = randomTensor([1, h, w, ic], &rng)
        let weights = randomTensor([oc, k, k, ic], &rng), bias = randomTensor([oc], &rng)
        let fast = try Conv2D(weights: weights, bias: bias, strideH: stride, strideW: stride, padding: padding, activation: .relu)
        let reference = try Conv2D(weights: weights, bias: bias, strideH: stride, strideW: stride, padding: padding,
                                   activation: .relu, kernels: .reference)
        #expect(try fast(x) == reference(x))
    }

    @Test(arguments: [(64, 64, 24, 1, Padding.same), (64, 64, 28, 2, .same), (32, 32, 42, 2, .same), (16, 16, 88, 2, .same),
                      (8, 8, 96, 1, .same), (7, 5, 3, 1, .same), (7, 9, 13, 2, .valid), (1, 1, 8, 1, .same),
                      (12, 12, 32, 2, .explicit(top: 1, bottom: 1, left: 1, right: 1)),
                      (6, 6, 16, 1, .explicit(top: 1, bottom: 1, left: 1, right: 1)),
                      // Interior widths 0 to 9 at stride 1 and 2: every tail of the 4- and 2-pixel paths.
                      (3, 2, 8, 1, .same), (3, 3, 8, 1, .valid), (4, 5, 8, 1, .same), (4, 7, 8, 1, .same),
                      (3, 11, 16, 1, .same), (4, 6, 8, 2, .same), (4, 9, 8, 2, .same), (5, 12, 16, 2, .valid),
                      (3, 4, 8, 2, .explicit(top: 0, bottom: 1, left: 0, right: 1))])
    func depthwiseEqualsReference(_ h: Int, _ w: Int, _ c: Int, _ stride: Int, _ padding: Padding) throws {
        var rng = SeededGenerator(seed: UInt64(h + w * c))
        let x = randomTensor([1, h, w, c], &rng)
        let weights = randomTensor([1, 3, 3, c], &rng), bias = randomTensor([c], &rng)
        let fast = try DepthwiseConv2D(weights: weights, bias: bias, strideH: stride, strideW: stride, padding: padding, activation: .none)
        let reference = try DepthwiseConv2D(weights: weights, bias: bias, strideH: stride, strideW: stride, padding: padding,
                                            activation: .none, kernels: .reference)
        #expect(try fast(x) == reference(x))
    }

    /// Splitting the work into unit ranges (as threads do) gives the same result as one call.
    @Test func splitWorkEqualsWholeWork() throws {
        var rng = SeededGenerator(seed: 9)
        let x = randomTensor([1, 16, 16, 24], &rng)
        let op = try Conv2D(weights: randomTensor([28, 1, 1, 24], &rng), bias: randomTensor([28], &rng),
                            strideH: 1, strideW: 1, padding: .same, activation: .relu)
        let whole = try op(x)
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 16 * 16 * 28 + kernelSlack)
        defer { out.deallocate() }
        try x.scalars.withUnsafeBufferPointer { input in
            let work = try op.bind(inputs: [input.baseAddress!], shapes: [x.shape], outputs: [out])
            #expect(work.units == 16)
            let scratch = UnsafeMutablePointer<Float>.allocate(capacity: work.scratchFloats + kernelSlack)
            defer { scratch.deallocate() }
            for r in stride(from: 0, to: 16, by: 5) { work.run(r..<min(r + 5, 16), scratch) }
        }
        #expect(Array(UnsafeBufferPointer(start: out, count: 16 * 16 * 28)) == whole.scalars)
    }

    /// The fused depthwise + pointwise operator equals the two run apart, whole or split into
    /// row ranges (as threads split it), with and without a (pooled) residual.
    @Test(arguments: [(16, 16, 24, 28, 1, false, false), (12, 10, 32, 8, 1, true, false), (16, 16, 28, 32, 2, true, true),
                      (7, 5, 13, 17, 2, false, false), (9, 22, 8, 16, 1, true, false)])
    func depthwisePointwiseEqualsSeparateOperators(_ h: Int, _ w: Int, _ c: Int, _ oc: Int, _ stride: Int,
                                                   _ residual: Bool, _ pooled: Bool) throws {
        var rng = SeededGenerator(seed: UInt64(h * 31 + c * 7 + oc))
        let x = randomTensor([1, h, w, c], &rng)
        let dw = try DepthwiseConv2D(weights: randomTensor([1, 3, 3, c], &rng), bias: randomTensor([c], &rng),
                                     strideH: stride, strideW: stride, padding: .same, activation: .none)
        let middle = try dw(x)
        let (mh, mw) = (middle.shape[1], middle.shape[2])
        let skip = residual ? randomTensor([1, pooled ? 2 * mh : mh, pooled ? 2 * mw : mw, min(c, oc)], &rng) : nil
        let pw = try Conv2D(weights: randomTensor([oc, 1, 1, c], &rng), bias: randomTensor([oc], &rng), strideH: 1, strideW: 1,
                            padding: .valid, activation: .relu, residual: residual ? Residual(pooled: pooled) : nil)
        let apart = try pw.apply([middle] + (skip.map { [$0] } ?? []))[0]
        let fused = try DepthwisePointwise(depthwise: dw, pointwise: pw)
        let inputs = [x] + (skip.map { [$0] } ?? [])
        #expect(try fused.apply(inputs)[0] == apart)
    }

    /// The SpMM kernel for pruned 1x1 weights: bit-identical to the reference, with every
    /// epilogue (plain, residual, pooled residual, PReLU), pixel counts that leave a partial
    /// tile (or are one), and rows of very different lengths (some all zero).
    @Test(arguments: [(6, 16, 32, 16, 0.5, 0), (6, 6, 96, 384, 0.3, 0), (6, 6, 384, 96, 0.3, 1), (5, 7, 128, 64, 0.1, 2),
                      (12, 12, 64, 48, 0.45, 3), (4, 5, 64, 24, 0.3, 4), (1, 3, 256, 32, 0.2, 0)])
    func sparsePointwiseEqualsReference(_ h: Int, _ w: Int, _ ic: Int, _ oc: Int, _ density: Double, _ variant: Int) throws {
        var rng = SeededGenerator(seed: UInt64(h * 7919 + ic * 31 + oc))
        let x = randomTensor([1, h, w, ic], &rng)
        var weights = randomTensor([oc, 1, 1, ic], &rng)
        // Variant 4 also empties every fifth output channel.
        let keep = weights.scalars.indices.map { i in
            Double.random(in: 0..<1, using: &rng) < density && !(variant == 4 && (i / ic) % 5 == 0)
        }
        weights = try Tensor(shape: weights.shape, scalars: zip(weights.scalars, keep).map { $1 ? $0 : 0 })
        let bias = randomTensor([oc], &rng)
        let pooled = variant == 2
        let skip = variant == 1 || variant == 2 ? randomTensor([1, pooled ? 2 * h : h, pooled ? 2 * w : w, oc - 8], &rng) : nil
        let prelu = variant == 3 ? try PReLU(alpha: randomTensor([oc], &rng)) : nil
        func op(_ kernels: KernelChoice) throws -> Conv2D {
            try Conv2D(weights: weights, bias: bias, strideH: 1, strideW: 1, padding: .valid,
                       activation: variant == 4 ? .relu6 : .relu, residual: skip == nil ? nil : Residual(pooled: pooled),
                       prelu: prelu, kernels: kernels)
        }
        let fast = try op(.fastest)
        #expect(fast.sparseDensity != nil)
        let inputs = [x] + (skip.map { [$0] } ?? [])
        #expect(try fast.apply(inputs)[0] == op(.reference).apply(inputs)[0])
    }

    /// Dense weights keep the dense GEMM.
    @Test func denseWeightsKeepTheGEMM() throws {
        var rng = SeededGenerator(seed: 5)
        let conv = try Conv2D(weights: randomTensor([32, 1, 1, 32], &rng), bias: randomTensor([32], &rng),
                              strideH: 1, strideW: 1, padding: .valid, activation: .none)
        #expect(conv.sparseDensity == nil)
    }
}

/// Both SpMM tile shapes on the same pruned weights, called directly: equal to the reference.
@Suite struct SparseTileTests {
    @Test(arguments: [16, 32])
    func tileShapesEqualReference(_ tile: Int) throws {
        let (h, w, ic, oc) = (5, 9, 64, 40)
        var rng = SeededGenerator(seed: UInt64(tile))
        let x = randomTensor([1, h, w, ic], &rng)
        let dense = randomTensor([oc, 1, 1, ic], &rng), bias = randomTensor([oc], &rng)
        let weights = try Tensor(shape: dense.shape, scalars: dense.scalars.map { abs($0) < 0.35 ? $0 : 0 })
        let expected = try Conv2D(weights: weights, bias: bias, strideH: 1, strideW: 1, padding: .valid,
                                  activation: .relu, kernels: .reference)(x)
        var io = [Float](repeating: 0, count: ic * oc)
        for o in 0..<oc { for i in 0..<ic { io[i * oc + o] = weights.scalars[o * ic + i] } }
        let sparse = SparsePointwiseWeights(weightsIO: io, bias: bias.scalars, inputChannels: ic, outputChannels: oc,
                                            tilePixels: tile)
        #expect(sparse.tilePixels == tile)
        let input = x.scalars + [Float](repeating: 0, count: kernelSlack)
        var output = [Float](repeating: .nan, count: h * w * oc + kernelSlack)
        var scratch = [Float](repeating: .nan, count: sparse.scratchFloats)
        input.withUnsafeBufferPointer { xin in
            output.withUnsafeMutableBufferPointer { out in
                scratch.withUnsafeMutableBufferPointer { scratch in
                    // Two calls, split mid-tile, as threads split the rows.
                    for range in [0..<19, 19..<h * w] {
                        f32PointwiseConvSpMM(pixels: range, input: xin.baseAddress!, weights: sparse,
                                             epilogue: PointwiseEpilogue(activation: .relu), output: out.baseAddress!,
                                             scratch: scratch.baseAddress!)
                    }
                }
            }
        }
        #expect(Array(output.prefix(h * w * oc)) == expected.scalars)
    }
}
