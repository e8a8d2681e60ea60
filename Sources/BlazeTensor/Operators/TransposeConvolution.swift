/// TRANSPOSE_CONV whose kernel equals its stride (CenterFace's 2x2 stride-2 upsampling
/// deconvolutions): every output pixel receives exactly one kernel tap, so the operator is a
/// pointwise convolution to `kh * kw * O` channels followed by a depth-to-space. Bias and a
/// fused activation as CONV_2D's; VALID padding only (TFLite's TRANSPOSE_CONV semantics for
/// this case: output size `in * stride`).
public struct TransposeConv2D: TensorOperator {
    /// The output and input channel counts (the weights' O and I).
    public let outputChannels: Int, inputChannels: Int
    /// The filter's height and width: equal to the strides.
    public let kernelH: Int, kernelW: Int
    /// The fused activation: none, ReLU or ReLU6.
    public let activation: Activation
    /// Whether `bind` uses the fastest kernels or the reference loops.
    public let kernels: KernelChoice
    /// TFLite's layout, `[O][kh][kw][I]`, and the bias per output channel.
    let weightsOHWI: [Float]
    let bias: [Float]
    /// Per kernel row `ky`: the GEMM weights producing one output row's `kw` pixels of every
    /// input pixel, channels ordered (kx, o), bias repeated per kx.
    let packedRows: [PackedPointwiseWeights]

    /// A transposed convolution with kernel == stride and no padding.
    /// - Parameters:
    ///   - weights: TFLite's TRANSPOSE_CONV layout, `[outputChannels, kh, kw, inputChannels]`.
    ///   - bias: One value per output channel, or nil for none.
    ///   - strideH: The vertical stride (must equal kh).
    ///   - strideW: The horizontal stride (must equal kw).
    ///   - padding: `.valid` (or explicit zeros) only.
    ///   - activation: The fused activation.
    ///   - kernels: The fastest kernels or the reference loops.
    public init(weights: Tensor, bias: Tensor?, strideH: Int, strideW: Int, padding: Padding = .valid,
                activation: Activation, kernels: KernelChoice = .fastest) throws(TensorError) {
        guard weights.shape.rank == 4 else {
            throw .shapeMismatch("TRANSPOSE_CONV weights must be OHWI, got \(weights.shape)")
        }
        let (o, kh, kw, i) = (weights.shape[0], weights.shape[1], weights.shape[2], weights.shape[3])
        guard o > 0, kh > 0, kw > 0, i > 0 else { throw .shapeMismatch("TRANSPOSE_CONV weights \(weights.shape) are empty") }
        guard strideH == kh, strideW == kw, padding.isNone else {
            throw .invalidAttribute("TRANSPOSE_CONV supports kernel == stride and no padding only (kernel \(kh)x\(kw), stride \(strideH)x\(strideW), \(padding))")
        }
        if let bias, bias.shape.count != o {
            throw .shapeMismatch("TRANSPOSE_CONV bias has \(bias.shape.count) values for \(o) output channels")
        }
        (outputChannels, inputChannels, kernelH, kernelW) = (o, i, kh, kw)
        (self.activation, self.kernels) = (activation, kernels)
        weightsOHWI = weights.scalars
        let b = bias?.scalars ?? [Float](repeating: 0, count: o)
        self.bias = b
        let rowChannels = kw * o
        packedRows = (0..<kh).map { ky in
            var io = [Float](repeating: 0, count: i * rowChannels)
            for ic in 0..<i { for kx in 0..<kw { for oc in 0..<o {
                io[ic * rowChannels + kx * o + oc] = weights.scalars[((oc * kh + ky) * kw + kx) * i + ic]
            } } }
            return PackedPointwiseWeights(weightsIO: io, bias: (0..<kw).flatMap { _ in b },
                                          inputChannels: i, outputChannels: rowChannels)
        }
    }

    /// `[n, h * kh, w * kw, O]` for an NHWC input of I channels.
    public func outputShapes(for inputs: [Shape]) throws(TensorError) -> [Shape] {
        try requireInputs(inputs, 1, "TRANSPOSE_CONV")
        let x = try requireNHWC(inputs[0], "TRANSPOSE_CONV")
        guard x.c == inputChannels else {
            throw .shapeMismatch("TRANSPOSE_CONV expects \(inputChannels) input channels, got \(inputs[0])")
        }
        return [NHWC(n: x.n, h: x.h * kernelH, w: x.w * kernelW, c: outputChannels).shape]
    }

    /// Per input row, `kh` GEMMs, each writing one whole output row in place (no scratch):
    /// input pixel x's channels (kx, o) of kernel row ky are output row `kh*y+ky`'s pixel
    /// `kw*x+kx`, which lie contiguous. The reference loop otherwise.
    public func bind(inputs: [UnsafePointer<Float>], shapes: [Shape],
                     outputs: [UnsafeMutablePointer<Float>]) throws(TensorError) -> BoundWork {
        _ = try outputShapes(for: shapes)
        let x = NHWC(shapes[0])!
        let (input, output, act) = (inputs[0], outputs[0], activation)
        let (kh, kw, ic, oc) = (kernelH, kernelW, inputChannels, outputChannels)
        let rows = x.n * x.h, width = x.w
        let macsPerRow = width * ic * oc * kh * kw
        if kernels == .fastest {
            let packedRows = packedRows
            let outputRow = width * kw * oc
            return BoundWork(units: rows, costPerUnit: macsPerRow) { r in
                let epilogue = PointwiseEpilogue(activation: act)
                for row in r {
                    for ky in 0..<kh {
                        f32PointwiseConvGEMM6x16FMA(pixels: 0..<width, input: input + row * width * ic,
                                                    weights: packedRows[ky], epilogue: epilogue,
                                                    output: output + (row * kh + ky) * outputRow)
                    }
                }
            }
        }
        let weights = weightsOHWI, bias = bias
        return BoundWork(cost: rows * macsPerRow) {
            weights.withUnsafeBufferPointer { w in
                bias.withUnsafeBufferPointer { b in
                    f32TransposeConv2DReference(input: input, shape: x, weightsOHWI: w.baseAddress!, bias: b.baseAddress!,
                                                kernelH: kh, kernelW: kw, outputChannels: oc, activation: act, output: output)
                }
            }
        }
    }
}
