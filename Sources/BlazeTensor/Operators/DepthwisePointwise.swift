/// A 3x3 depthwise convolution followed by the 1x1 convolution that alone consumes it (the
/// body of every BlazeBlock), run band by band: the depthwise kernel writes a few output rows
/// into per-thread scratch, and the pointwise GEMM (with its fused residual and activation)
/// reads them back while they are still in L1, so the depthwise result never travels to L2 or
/// memory. The same kernels, on the same values: results equal the two operators run apart.
public struct DepthwisePointwise: TensorOperator {
    /// The 3x3 depthwise convolution, with packed weights.
    public let depthwise: DepthwiseConv2D
    /// The 1x1 stride-1 convolution that consumes it, with its fused epilogue.
    public let pointwise: Conv2D

    /// Pairs the two; throws unless a packed 3x3 depthwise feeds a 1x1 stride-1 convolution
    /// with as many input channels.
    public init(depthwise: DepthwiseConv2D, pointwise: Conv2D) throws(TensorError) {
        guard depthwise.kernelH == 3, depthwise.kernelW == 3, depthwise.packed3x3 != nil,
              pointwise.kernelH == 1, pointwise.kernelW == 1, pointwise.strideH == 1, pointwise.strideW == 1,
              pointwise.padding.isNone || pointwise.padding == .same,
              depthwise.channels == pointwise.inputChannels else {
            throw .invalidAttribute("DEPTHWISE_POINTWISE needs a 3x3 depthwise convolution feeding a 1x1 stride-1 convolution")
        }
        (self.depthwise, self.pointwise) = (depthwise, pointwise)
    }

    /// Inputs: the depthwise input, then the pointwise residual's skip if it has one.
    public func outputShapes(for inputs: [Shape]) throws(TensorError) -> [Shape] {
        guard let first = inputs.first else { throw .shapeMismatch("DEPTHWISE_POINTWISE needs an input") }
        let middle = try depthwise.outputShapes(for: [first])[0]
        return try pointwise.outputShapes(for: [middle] + inputs.dropFirst())
    }

    /// Binds the band-by-band run: one unit per output row, the band in each call's scratch.
    public func bind(inputs: [UnsafePointer<Float>], shapes: [Shape],
                     outputs: [UnsafeMutablePointer<Float>]) throws(TensorError) -> BoundWork {
        let g = try depthwise.geometry([shapes[0]])
        let middle = g.output
        _ = try outputShapes(for: shapes)
        guard middle.n == 1, let packedDepthwise = depthwise.packed3x3 else {
            throw .shapeMismatch("DEPTHWISE_POINTWISE runs batch 1")
        }
        let skipShape = shapes.count > 1 ? NHWC(shapes[1]) : nil
        let epilogue = PointwiseEpilogue(
            activation: pointwise.activation, skip: shapes.count > 1 ? inputs[1] : nil, skipChannels: skipShape?.c ?? 0,
            pooled: pointwise.residual?.pooled ?? false, outputWidth: middle.w, skipWidth: skipShape?.w ?? 1,
            slopes: pointwise.prelu.map(\.slopes.pointer))
        // Bands of whole rows, at least 192 pixels and a multiple of six, so that GEMM tiles of
        // six pixels do not split (3 rows of 128 or 64, 2 of 96, 4 of 48, ...); 192 measured
        // 0.7% faster than 96 on the full-range model, and 384 no faster again.
        let rowsPerSix = 6 / gcd(middle.w, 6)
        let band = (max(1, 192 / middle.w) + rowsPerSix - 1) / rowsPerSix * rowsPerSix
        let (x, y, dwActivation) = (inputs[0], outputs[0], depthwise.activation)
        let prelu = pointwise.prelu
        let zeroRow = AlignedBuffer<Float>(zeros: (g.input.w + 3) * middle.c + kernelSlack)
        let rowFloats = middle.w * middle.c
        let macsPerRow = rowFloats * 9 + middle.w * pointwise.outputChannels * middle.c
        // Scratch: the band of depthwise rows, then the pointwise kernel's own.
        let bandFloats = band * rowFloats + kernelSlack
        return BoundWork(units: middle.h, costPerUnit: macsPerRow,
                         scratchFloats: bandFloats + pointwise.pointwiseScratchFloats) { [pointwise] rows, scratch in
            withExtendedLifetime(prelu) {}
            var first = rows.lowerBound
            while first < rows.upperBound {
                let last = min(first + band, rows.upperBound)
                // The scratch stands in for rows first..<last of the depthwise output.
                let base = scratch - first * rowFloats
                f32Depthwise3x3FMA(g, rows: first..<last, input: x, weights: packedDepthwise, activation: dwActivation,
                                   zeroRow: zeroRow.pointer, output: base)
                pointwise.pointwise(pixels: first * middle.w..<last * middle.w, input: base, epilogue: epilogue, output: y,
                                    scratch: scratch + bandFloats)
                first = last
            }
        }
    }
}

private func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
