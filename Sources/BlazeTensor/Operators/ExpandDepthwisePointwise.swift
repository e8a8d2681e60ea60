/// MobileNetV2's inverted residual block in one operator: a 1x1 stride-1 "expand" convolution,
/// the 3x3 depthwise convolution that alone consumes it, and the 1x1 "project" convolution
/// (with its fused residual) that alone consumes that: `DepthwisePointwise` with the expand
/// computed band by band too. For a band of output rows, the expand GEMM writes just the
/// input rows the depthwise band reads into per-thread scratch, a ring of rows in which the
/// rows a band shares with the one before are kept, not computed again, so the expanded
/// tensor, the largest of the block (six times its input), is never written to memory and
/// each of its rows is computed once per thread. The same kernels on the same values: results
/// equal the three operators run apart, bit for bit.
public struct ExpandDepthwisePointwise: TensorOperator {
    /// The 1x1 stride-1 expand convolution (no residual, no PRELU).
    public let expand: Conv2D
    /// The depthwise and project convolutions.
    public let block: DepthwisePointwise

    /// Chains the expand convolution to the block; throws unless `expand` is a plain 1x1
    /// stride-1 convolution with the depthwise's channel count as its output.
    public init(expand: Conv2D, block: DepthwisePointwise) throws(TensorError) {
        guard expand.kernelH == 1, expand.kernelW == 1, expand.strideH == 1, expand.strideW == 1,
              expand.padding.isNone || expand.padding == .same, expand.residual == nil, expand.prelu == nil,
              expand.outputChannels == block.depthwise.channels else {
            throw .invalidAttribute("EXPAND_DEPTHWISE_POINTWISE needs a 1x1 stride-1 convolution feeding the depthwise one")
        }
        (self.expand, self.block) = (expand, block)
    }

    /// Inputs: the block input, then the project convolution's residual skip if it has one.
    public func outputShapes(for inputs: [Shape]) throws(TensorError) -> [Shape] {
        guard let first = inputs.first else { throw .shapeMismatch("EXPAND_DEPTHWISE_POINTWISE needs an input") }
        let expanded = try expand.outputShapes(for: [first])[0]
        return try block.outputShapes(for: [expanded] + inputs.dropFirst())
    }

    /// One unit per output row; each call runs bands of rows: expand the input rows the band
    /// needs, depthwise them into a second scratch band, project to the output.
    public func bind(inputs: [UnsafePointer<Float>], shapes: [Shape],
                     outputs: [UnsafeMutablePointer<Float>]) throws(TensorError) -> BoundWork {
        let expanded = try requireNHWC(try expand.outputShapes(for: [shapes[0]])[0], "EXPAND_DEPTHWISE_POINTWISE")
        let depthwise = block.depthwise, pointwise = block.pointwise, expand = expand
        let g = try depthwise.geometry([expanded.shape])
        let middle = g.output
        _ = try outputShapes(for: shapes)
        guard middle.n == 1, let packedDepthwise = depthwise.packed3x3 else {
            throw .shapeMismatch("EXPAND_DEPTHWISE_POINTWISE runs batch 1")
        }
        let skipShape = shapes.count > 1 ? NHWC(shapes[1]) : nil
        let epilogue = PointwiseEpilogue(
            activation: pointwise.activation, skip: shapes.count > 1 ? inputs[1] : nil, skipChannels: skipShape?.c ?? 0,
            pooled: pointwise.residual?.pooled ?? false, outputWidth: middle.w, skipWidth: skipShape?.w ?? 1,
            slopes: pointwise.prelu.map(\.slopes.pointer))
        let expandEpilogue = PointwiseEpilogue(activation: expand.activation)
        // Bands of output rows whose expanded input rows take about 256 KB (L2-resident), at
        // least 2 rows, so that rows shared by neighbouring bands are a small part of the work.
        let expandedRow = expanded.w * expanded.c
        let inputRowsFor = { (rows: Int) in (rows - 1) * g.strideH + g.kernelH }
        var band = 2
        while band < middle.h, inputRowsFor(band + 1) * expandedRow * 4 <= 256 * 1024 { band += 1 }
        let (x, y, dwActivation) = (inputs[0], outputs[0], depthwise.activation)
        let prelu = pointwise.prelu
        let zeroRow = AlignedBuffer<Float>(zeros: (g.input.w + 3) * middle.c + kernelSlack)
        let rowFloats = middle.w * middle.c
        let ringRows = inputRowsFor(band)
        let expandFloats = ringRows * expandedRow + kernelSlack
        let bandFloats = band * rowFloats + kernelSlack
        // Then the GEMMs' own scratch (SpMM tiles where weights are sparse).
        let gemmFloats = max(expand.pointwiseScratchFloats, pointwise.pointwiseScratchFloats)
        let macsPerRow = rowFloats * 9 + middle.w * pointwise.outputChannels * middle.c
            + g.strideH * expanded.w * expanded.c * expand.inputChannels
        let (inputHeight, inputWidth) = (expanded.h, expanded.w)
        return BoundWork(units: middle.h, costPerUnit: macsPerRow, scratchFloats: expandFloats + bandFloats + gemmFloats) { [expand] rows, scratch in
            withExtendedLifetime(prelu) {}
            let expandedBand = scratch, depthwiseBand = scratch + expandFloats, gemmScratch = depthwiseBand + bandFloats
            var first = rows.lowerBound
            // The expanded rows in the ring: row y at slot y % ringRows.
            var kept = 0..<0
            while first < rows.upperBound {
                let last = min(first + band, rows.upperBound)
                // The input rows this band's windows touch, inside the image (at most `ringRows`).
                let lo = max(0, first * g.strideH - g.padTop)
                let hi = min(inputHeight, (last - 1) * g.strideH - g.padTop + g.kernelH)
                // Rows lo..<hi not kept from the band before, in runs that do not wrap the ring.
                var row = kept.contains(lo) ? kept.upperBound : lo
                while row < hi {
                    let slot = row % ringRows, n = min(hi - row, ringRows - slot)
                    expand.pointwise(pixels: row * inputWidth..<(row + n) * inputWidth, input: x, epilogue: expandEpilogue,
                                     output: expandedBand + (slot - row) * expandedRow, scratch: gemmScratch)
                    row += n
                }
                kept = lo < hi ? lo..<hi : 0..<0
                let depthwiseBase = depthwiseBand - first * rowFloats
                f32Depthwise3x3FMA(g, rows: first..<last, input: expandedBand, weights: packedDepthwise, activation: dwActivation,
                                   zeroRow: zeroRow.pointer, output: depthwiseBase, ringRows: ringRows)
                pointwise.pointwise(pixels: first * middle.w..<last * middle.w, input: depthwiseBase, epilogue: epilogue,
                                    output: y, scratch: gemmScratch)
                first = last
            }
        }
    }
}
