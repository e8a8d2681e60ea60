/// Which kernels an operator binds: the fastest that fits, or the plain reference loops
/// (the ground truth; both give identical results).
public enum KernelChoice: Sendable, Hashable {
    /// `fastest`: SIMD kernels on packed weights where they fit; `reference`: the plain loops
    /// the fast kernels must match.
    case fastest, reference
}

/// The arithmetic of an operator's multiply-adds.
public enum Precision: Sendable, Hashable {
    /// Float32 throughout: the reference runtime's results (TFLite + XNNPACK, ONNX Runtime).
    case float32
    /// Pointwise (1x1) convolutions with at least 16 output channels and 1,024 weights round
    /// their inputs and weights to bfloat16 and sum the products in float32, a pair of channels
    /// at a time; everything else stays float32. Twice the
    /// multiply-adds per cycle on CPUs with AVX512-BF16 (AMD Zen 4, Intel Sapphire Rapids), the
    /// same bits on every CPU with FMA, and within bfloat16's 2^-9 relative rounding of the
    /// float32 inputs. Only with `KernelChoice.fastest`; the reference loops stay float32.
    case bfloat16
}

/// A skip connection fused into a convolution: `output = activation(conv(x) + skip)`, where the
/// skip may have fewer channels (the rest add zero: TFLite's channel PAD) and may be max-pooled
/// 2x2 with stride 2 on the fly (TFLite's MAX_POOL_2D). Added after the bias-and-fma sum, exactly
/// as the separate ADD would add it.
public struct Residual: Sendable, Hashable {
    /// Whether the skip is max-pooled 2x2 with stride 2 before it is added.
    public var pooled: Bool
    /// A skip connection, max-pooled 2x2 with stride 2 before the add when `pooled` is true.
    public init(pooled: Bool) { self.pooled = pooled }
}

/// CONV_2D: a 2-D convolution with bias and a fused activation (TFLite's conv.cc semantics),
/// optionally with a fused residual (a second input).
public struct Conv2D: TensorOperator {
    /// The output and input channel counts (the weights' O and I).
    public let outputChannels: Int, inputChannels: Int
    /// The filter's height and width.
    public let kernelH: Int, kernelW: Int
    /// The vertical and horizontal strides.
    public let strideH: Int, strideW: Int
    /// TFLite's SAME or VALID padding, or explicit pad rows and columns.
    public let padding: Padding
    /// The fused activation (TFLite's fused_activation_function): none, ReLU or ReLU6.
    public let activation: Activation
    /// The fused skip connection, if any: it is the second input.
    public let residual: Residual?
    /// A PRELU folded in: applied to the result last (after the residual and activation).
    public let prelu: PReLU?
    /// Whether `bind` uses the fastest kernels or the reference loops.
    public let kernels: KernelChoice
    /// Weights packed once, at load: HWIO for the reference kernel, and in 8/16-channel blocks
    /// (bias first) for the SIMD kernels.
    let weightsHWIO: [Float]
    let bias: [Float]
    let packed: PackedPointwiseWeights
    /// For kxk kernels: the same in blocks of 32 channels where they divide evenly, else 24 (the
    /// direct kernel's 2x32 and 4x24 tiles).
    let packedDirect: PackedPointwiseWeights
    /// For 1x1 kernels whose weights are mostly zero (a pruned model): the nonzero weights
    /// for the SpMM kernel.
    let sparse: SparsePointwiseWeights?
    /// For large kxk kernels whose weights are all exact halves (a float16 model): the weights
    /// in half precision, for the one-output-pixel case (a window over the whole input), which
    /// streams its weights once per call.
    let half: HalfPackedWeights?
    /// For 1x1 kernels in `Precision.bfloat16`: the weights rounded and packed for it.
    let bfloat16: BFloat16PointwiseWeights?

    /// Whether the weights are kept in half precision (see `half`).
    var usesHalfWeights: Bool { half != nil }
    /// Whether the fastest kernels run this convolution as a sparse product (SpMM), and the
    /// fraction of its weights that are nonzero.
    var sparseDensity: Double? { sparse?.density }

    /// A convolution with TFLite's CONV_2D semantics.
    /// - Parameters:
    ///   - weights: TFLite's OHWI layout, `[outputChannels, kh, kw, inputChannels]`.
    ///   - bias: One value per output channel, or nil for none.
    ///   - strideH: The vertical stride.
    ///   - strideW: The horizontal stride.
    ///   - padding: TFLite's SAME or VALID padding, or explicit pad rows and columns.
    ///   - activation: The fused activation (none, ReLU or ReLU6).
    ///   - residual: The fused skip connection (the second input), or nil for none.
    ///   - prelu: A PRELU folded in (applied last, after the residual and activation), or nil.
    ///   - kernels: The fastest kernels or the reference loops.
    ///   - precision: Float32, or bfloat16 for a 1x1 stride-1 kernel with the fastest kernels.
    public init(weights: Tensor, bias: Tensor?, strideH: Int, strideW: Int, padding: Padding,
                activation: Activation, residual: Residual? = nil, prelu: PReLU? = nil,
                kernels: KernelChoice = .fastest, precision: Precision = .float32) throws(TensorError) {
        guard weights.shape.rank == 4 else {
            throw .shapeMismatch("CONV_2D weights must be OHWI, got \(weights.shape)")
        }
        let (o, kh, kw, i) = (weights.shape[0], weights.shape[1], weights.shape[2], weights.shape[3])
        guard strideH > 0, strideW > 0 else { throw .invalidAttribute("CONV_2D stride must be positive") }
        guard o > 0, kh > 0, kw > 0, i > 0 else { throw .shapeMismatch("CONV_2D weights \(weights.shape) are empty") }
        if let bias, bias.shape.count != o {
            throw .shapeMismatch("CONV_2D bias has \(bias.shape.count) values for \(o) output channels")
        }
        var hwio = [Float](repeating: 0, count: weights.scalars.count)
        for oc in 0..<o { for y in 0..<kh { for x in 0..<kw { for ic in 0..<i {
            hwio[((y * kw + x) * i + ic) * o + oc] = weights.scalars[((oc * kh + y) * kw + x) * i + ic]
        } } } }
        (outputChannels, inputChannels, kernelH, kernelW) = (o, i, kh, kw)
        (self.strideH, self.strideW, self.padding, self.activation) = (strideH, strideW, padding, activation)
        (self.residual, self.kernels) = (residual, kernels)
        if let prelu, prelu.channels != o {
            throw .shapeMismatch("CONV_2D has \(o) output channels, its PRELU \(prelu.channels) slopes")
        }
        self.prelu = prelu
        weightsHWIO = hwio
        self.bias = bias?.scalars ?? [Float](repeating: 0, count: o)
        packed = PackedPointwiseWeights(weightsIO: hwio, bias: self.bias, inputChannels: kh * kw * i, outputChannels: o)
        packedDirect = PackedPointwiseWeights(weightsIO: hwio, bias: self.bias, inputChannels: kh * kw * i,
                                              outputChannels: o, maxWidth: o % 32 == 0 ? 32 : 24)
        let pointwiseShape = kh == 1 && kw == 1 && strideH == 1 && strideW == 1 && (padding.isNone || padding == .same)
        bfloat16 = kernels == .fastest && pointwiseShape && precision == .bfloat16 && BFloat16PointwiseWeights.pays(inputChannels: i, outputChannels: o)
            ? BFloat16PointwiseWeights(weightsIO: hwio, bias: self.bias, inputChannels: i, outputChannels: o) : nil
        sparse = kernels == .fastest && pointwiseShape && bfloat16 == nil
            && SparsePointwiseWeights.fits(weightsIO: hwio, inputChannels: i, outputChannels: o)
            ? SparsePointwiseWeights(weightsIO: hwio, bias: self.bias, inputChannels: i, outputChannels: o) : nil
        half = kernels == .fastest && !pointwiseShape && hwio.count >= HalfPackedWeights.minimumCount
            ? HalfPackedWeights(weightsIO: hwio, bias: self.bias, taps: kh * kw * i, outputChannels: o) : nil
    }

    /// Scratch floats the pointwise kernel needs per call (the SpMM kernel's tiles, or the
    /// bfloat16 kernel's rounded inputs).
    var pointwiseScratchFloats: Int { bfloat16?.scratchFloats ?? sparse?.scratchFloats ?? 0 }

    /// The pointwise kernel for pixels `pixels`: bfloat16 where asked, SpMM for sparse weights,
    /// else the dense GEMM. `scratch` holds `pointwiseScratchFloats` floats.
    func pointwise(pixels: Range<Int>, input: UnsafePointer<Float>, epilogue: PointwiseEpilogue,
                   output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>) {
        if let bfloat16 {
            bf16PointwiseConv(pixels: pixels, input: input, weights: bfloat16, epilogue: epilogue, output: output, scratch: scratch)
        } else if let sparse {
            f32PointwiseConvSpMM(pixels: pixels, input: input, weights: sparse, epilogue: epilogue, output: output,
                                 scratch: scratch)
        } else {
            f32PointwiseConvGEMM6x16FMA(pixels: pixels, input: input, weights: packed, epilogue: epilogue, output: output)
        }
    }

    /// The NHWC output for the input (and the residual's skip), by TFLite's padding rules.
    public func outputShapes(for inputs: [Shape]) throws(TensorError) -> [Shape] {
        try [geometry(inputs).output.shape]
    }

    func geometry(_ inputs: [Shape]) throws(TensorError) -> WindowGeometry {
        try requireInputs(inputs, residual == nil ? 1 : 2, "CONV_2D")
        let x = try requireNHWC(inputs[0], "CONV_2D")
        guard x.c == inputChannels else {
            throw .shapeMismatch("CONV_2D expects \(inputChannels) input channels, got \(inputs[0])")
        }
        let g = try WindowGeometry.make(input: x, outputChannels: outputChannels, kernelH: kernelH, kernelW: kernelW,
                                        strideH: strideH, strideW: strideW, padding: padding)
        if let residual {
            let s = try requireNHWC(inputs[1], "CONV_2D residual")
            let (h, w) = residual.pooled ? (s.h / 2, s.w / 2) : (s.h, s.w)
            guard s.n == g.output.n, h == g.output.h, w == g.output.w, s.c <= outputChannels else {
                throw .shapeMismatch("CONV_2D residual \(inputs[1]) does not fit output \(g.output.shape)")
            }
        }
        return g
    }

    /// The fastest kernel that fits (pointwise GEMM or SpMM, half-weight GEMV, direct kxk),
    /// or the reference loops.
    public func bind(inputs: [UnsafePointer<Float>], shapes: [Shape],
                     outputs: [UnsafeMutablePointer<Float>]) throws(TensorError) -> BoundWork {
        let g = try geometry(shapes)
        let (x, y, act) = (inputs[0], outputs[0], activation)
        let skip = residual == nil ? nil : inputs[1]
        let skipShape = residual == nil ? nil : NHWC(shapes[1])
        let macsPerRow = g.output.w * outputChannels * kernelH * kernelW * inputChannels
        let rows = g.output.n * g.output.h
        let isPointwise = kernelH == 1 && kernelW == 1 && strideH == 1 && strideW == 1 && (padding.isNone || padding == .same)
        if kernels == .fastest, isPointwise, residual == nil || g.output.n == 1 {
            let epilogue = PointwiseEpilogue(
                activation: act, skip: skip, skipChannels: skipShape?.c ?? 0, pooled: residual?.pooled ?? false,
                outputWidth: g.output.w, skipWidth: skipShape?.w ?? 1, slopes: prelu.map(\.slopes.pointer))
            let width = g.output.w
            return BoundWork(units: rows, costPerUnit: macsPerRow, scratchFloats: pointwiseScratchFloats) { [self] r, scratch in
                // `self` keeps the PRELU slopes the epilogue points to alive.
                pointwise(pixels: r.lowerBound * width..<r.upperBound * width, input: x, epilogue: epilogue, output: y,
                          scratch: scratch)
            }
        }
        if kernels == .fastest, residual == nil, let half, g.output.count == outputChannels,
           g.input.h == kernelH, g.input.w == kernelW, g.padTop == 0, g.padLeft == 0 {
            // One output pixel whose window is the whole input: a matrix-vector product.
            let prelu = prelu
            return BoundWork(units: 1, costPerUnit: macsPerRow) { _ in
                withExtendedLifetime(prelu) {
                    f32GEMVHalfWeights(input: x, weights: half, activation: act,
                                       slopes: prelu.map(\.slopes.pointer), output: y)
                }
            }
        }
        if kernels == .fastest, residual == nil, g.output.n == 1 {
            let prelu = prelu
            return BoundWork(units: g.output.h, costPerUnit: macsPerRow) { r in
                // `prelu` keeps the slopes alive; the kernel applies them as it stores.
                withExtendedLifetime(prelu) {
                    f32Conv2DDirectFMA(g, rows: r, input: x, weights: packedDirect, activation: act,
                                       slopes: prelu.map(\.slopes.pointer), output: y)
                }
            }
        }
        let weights = weightsHWIO, bias = bias, residual = residual, prelu = prelu
        let count = g.output.count, oc = outputChannels
        return BoundWork(cost: rows * macsPerRow) {
            weights.withUnsafeBufferPointer { w in
                bias.withUnsafeBufferPointer { b in
                    f32Conv2DReference(g, input: x, weightsHWIO: w.baseAddress!, bias: b.baseAddress!,
                                       activation: residual == nil ? act : .none, output: y)
                }
            }
            if let residual, let skip, let skipShape {
                f32AddResidualReference(output: y, shape: g.output, skip: skip, skipShape: skipShape,
                                        pooled: residual.pooled, activation: act)
            }
            if let prelu { f32PReLUReference(y, count: count, slopes: prelu.slopes.pointer, channels: oc, output: y) }
        }
    }
}

/// DEPTHWISE_CONV_2D with depth multiplier 1: one 2-D filter per channel, bias, activation.
public struct DepthwiseConv2D: TensorOperator {
    /// The channel count of input and output (depth multiplier 1).
    public let channels: Int
    /// The filter's height and width.
    public let kernelH: Int, kernelW: Int
    /// The vertical and horizontal strides.
    public let strideH: Int, strideW: Int
    /// TFLite's SAME or VALID padding, or explicit pad rows and columns.
    public let padding: Padding
    /// The fused activation (TFLite's fused_activation_function): none, ReLU or ReLU6.
    public let activation: Activation
    /// Whether `bind` uses the fastest kernels or the reference loops.
    public let kernels: KernelChoice
    /// Weights as HWC; TFLite's `[1, kh, kw, c]` is already that layout.
    let weightsHWC: [Float]
    let bias: [Float]
    /// For 3x3 filters: channel blocks with the taps in the SIMD kernel's order.
    let packed3x3: PackedDepthwise3x3Weights?

    /// A depthwise convolution with TFLite's DEPTHWISE_CONV_2D semantics.
    /// - Parameters:
    ///   - weights: TFLite's layout, `[1, kh, kw, channels]`.
    ///   - bias: One value per channel, or nil for none.
    ///   - strideH: The vertical stride.
    ///   - strideW: The horizontal stride.
    ///   - padding: TFLite's SAME or VALID padding, or explicit pad rows and columns.
    ///   - activation: The fused activation (none, ReLU or ReLU6).
    ///   - kernels: The fastest kernels or the reference loops.
    public init(weights: Tensor, bias: Tensor?, strideH: Int, strideW: Int, padding: Padding,
                activation: Activation, kernels: KernelChoice = .fastest) throws(TensorError) {
        guard weights.shape.rank == 4, weights.shape[0] == 1 else {
            throw .shapeMismatch("DEPTHWISE_CONV_2D weights must be [1, kh, kw, c], got \(weights.shape)")
        }
        let (kh, kw, c) = (weights.shape[1], weights.shape[2], weights.shape[3])
        guard strideH > 0, strideW > 0 else { throw .invalidAttribute("DEPTHWISE_CONV_2D stride must be positive") }
        guard kh > 0, kw > 0, c > 0 else { throw .shapeMismatch("DEPTHWISE_CONV_2D weights \(weights.shape) are empty") }
        if let bias, bias.shape.count != c {
            throw .shapeMismatch("DEPTHWISE_CONV_2D bias has \(bias.shape.count) values for \(c) channels")
        }
        (channels, kernelH, kernelW) = (c, kh, kw)
        (self.strideH, self.strideW, self.padding, self.activation, self.kernels) = (strideH, strideW, padding, activation, kernels)
        weightsHWC = weights.scalars
        self.bias = bias?.scalars ?? [Float](repeating: 0, count: c)
        packed3x3 = kh == 3 && kw == 3 ? PackedDepthwise3x3Weights(weightsHWC: weightsHWC, bias: self.bias, channels: c) : nil
    }

    /// The NHWC output for the input, by TFLite's padding rules.
    public func outputShapes(for inputs: [Shape]) throws(TensorError) -> [Shape] {
        try [geometry(inputs).output.shape]
    }

    func geometry(_ inputs: [Shape]) throws(TensorError) -> WindowGeometry {
        try requireInputs(inputs, 1, "DEPTHWISE_CONV_2D")
        let x = try requireNHWC(inputs[0], "DEPTHWISE_CONV_2D")
        guard x.c == channels else {
            throw .shapeMismatch("DEPTHWISE_CONV_2D expects \(channels) channels, got \(inputs[0]) (depth multiplier 1 only)")
        }
        return try .make(input: x, outputChannels: channels, kernelH: kernelH, kernelW: kernelW,
                         strideH: strideH, strideW: strideW, padding: padding)
    }

    /// The SIMD kernel for 3x3 filters with `.fastest`, else the reference loops.
    public func bind(inputs: [UnsafePointer<Float>], shapes: [Shape],
                     outputs: [UnsafeMutablePointer<Float>]) throws(TensorError) -> BoundWork {
        let g = try geometry(shapes)
        let (x, y, act) = (inputs[0], outputs[0], activation)
        let macsPerRow = g.output.w * channels * kernelH * kernelW
        if kernels == .fastest, let packed = packed3x3 {
            let zeroRow = AlignedBuffer<Float>(zeros: (g.input.w + 3) * channels + kernelSlack)
            return BoundWork(units: g.output.h, costPerUnit: macsPerRow * g.output.n) { r in
                f32Depthwise3x3FMA(g, rows: r, input: x, weights: packed, activation: act,
                                   zeroRow: zeroRow.pointer, output: y)
            }
        }
        let weights = weightsHWC, bias = bias
        return BoundWork(cost: macsPerRow * g.output.h * g.output.n) {
            weights.withUnsafeBufferPointer { w in
                bias.withUnsafeBufferPointer { b in
                    f32DepthwiseConv2DReference(g, input: x, weightsHWC: w.baseAddress!, bias: b.baseAddress!,
                                                activation: act, output: y)
                }
            }
        }
    }
}
