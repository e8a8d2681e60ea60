/// DEPTH_TO_SPACE: moves blocks of channels into space (TFLite's DCR order):
/// `out[n, y*b + i, x*b + j, c] = in[n, y, x, (i*b + j) * C + c]`.
public struct DepthToSpace: TensorOperator {
    /// The side of the square of output pixels that one input pixel's channels fill.
    public let blockSize: Int
    /// A DEPTH_TO_SPACE with this block size; throws below 1.
    public init(blockSize: Int) throws(TensorError) {
        guard blockSize >= 1 else { throw .invalidAttribute("DEPTH_TO_SPACE block size \(blockSize)") }
        self.blockSize = blockSize
    }

    /// Height and width times `blockSize`, channels over its square (which must divide them).
    public func outputShapes(for inputs: [Shape]) throws(TensorError) -> [Shape] {
        try requireInputs(inputs, 1, "DEPTH_TO_SPACE")
        let x = try requireNHWC(inputs[0], "DEPTH_TO_SPACE")
        guard x.c % (blockSize * blockSize) == 0 else {
            throw .shapeMismatch("DEPTH_TO_SPACE needs channels divisible by \(blockSize * blockSize), got \(inputs[0])")
        }
        return [Shape([x.n, x.h * blockSize, x.w * blockSize, x.c / (blockSize * blockSize)])]
    }

    /// Copies each block of channels to its output pixel, as one unit of work.
    public func bind(inputs: [UnsafePointer<Float>], shapes: [Shape],
                     outputs: [UnsafeMutablePointer<Float>]) throws(TensorError) -> BoundWork {
        let out = try requireNHWC(outputShapes(for: shapes)[0], "DEPTH_TO_SPACE")
        let x = try requireNHWC(shapes[0], "DEPTH_TO_SPACE")
        let (src, dst, b) = (inputs[0], outputs[0], blockSize)
        return BoundWork(cost: out.count) {
            for n in 0..<x.n { for y in 0..<x.h { for xx in 0..<x.w { for i in 0..<b { for j in 0..<b {
                let from = src + ((n * x.h + y) * x.w + xx) * x.c + (i * b + j) * out.c
                let to = dst + ((n * out.h + y * b + i) * out.w + xx * b + j) * out.c
                to.update(from: from, count: out.c)
            } } } } }
        }
    }
}

/// RESIZE_BILINEAR with TFLite's `align_corners` and `half_pixel_centers` (reference_ops
/// ResizeBilinear and ComputeInterpolationValues), in float as TFLite computes it.
/// Optionally fused with the `ADD` that consumes it (the feature pyramid's upsample-and-add):
/// a second input of the output's shape is added, then `activation`: the same operations on
/// the same values as the two operators apart, without writing the resized tensor.
public struct ResizeBilinear: TensorOperator {
    /// The output's height and width.
    public let height: Int, width: Int
    /// TFLite's ResizeBilinearOptions flags: where each output pixel samples the input.
    public let alignCorners: Bool, halfPixelCenters: Bool
    /// The activation after the fused addition (only with a second input).
    public let activation: Activation

    /// A RESIZE_BILINEAR to `height` x `width`; throws unless both are at least 1.
    public init(height: Int, width: Int, alignCorners: Bool, halfPixelCenters: Bool,
                activation: Activation = .none) throws(TensorError) {
        guard height >= 1, width >= 1 else { throw .invalidAttribute("RESIZE_BILINEAR size \(height)x\(width)") }
        (self.height, self.width, self.alignCorners, self.halfPixelCenters) = (height, width, alignCorners, halfPixelCenters)
        self.activation = activation
    }

    /// Inputs: the image, then optionally the addend (of the output's shape).
    public func outputShapes(for inputs: [Shape]) throws(TensorError) -> [Shape] {
        guard inputs.count == 1 || inputs.count == 2 else {
            throw .shapeMismatch("RESIZE_BILINEAR takes 1 input (2 with a fused ADD), got \(inputs.count)")
        }
        let x = try requireNHWC(inputs[0], "RESIZE_BILINEAR")
        let out = Shape([x.n, height, width, x.c])
        if inputs.count == 2, inputs[1] != out {
            throw .shapeMismatch("RESIZE_BILINEAR's fused addend must be \(out), got \(inputs[1])")
        }
        return [out]
    }

    /// Source position, lower and upper source index for output index `v`.
    static func interpolation(_ v: Int, scale: Float, halfPixel: Bool, size: Int) -> (Float, Int, Int) {
        let scaled = halfPixel ? (Float(v) + 0.5) * scale - 0.5 : Float(v) * scale
        let lower = max(Int(scaled.rounded(.down)), 0)
        let upper = min(Int(scaled.rounded(.up)), size - 1)
        return (scaled, lower, upper)
    }

    /// Binds the resize (and the fused addition) with one unit of work per output row.
    public func bind(inputs: [UnsafePointer<Float>], shapes: [Shape],
                     outputs: [UnsafeMutablePointer<Float>]) throws(TensorError) -> BoundWork {
        _ = try outputShapes(for: shapes)
        let x = try requireNHWC(shapes[0], "RESIZE_BILINEAR")
        var hScale = Float(x.h) / Float(height), wScale = Float(x.w) / Float(width)
        if alignCorners && height > 1 { hScale = Float(x.h - 1) / Float(height - 1) }
        if alignCorners && width > 1 { wScale = Float(x.w - 1) / Float(width - 1) }
        let (src, dst, oh, ow, half) = (inputs[0], outputs[0], height, width, halfPixelCenters)
        let addend = shapes.count == 2 ? inputs[1] : nil
        let activation = activation
        // The source columns and weight of each output column, once, at bind.
        let columns = (0..<ow).map { xx in
            let (ix, x0, x1) = Self.interpolation(xx, scale: wScale, halfPixel: half, size: x.w)
            return (x0: x0, x1: x1, dx: ix - Float(x0))
        }
        // One unit per output row, so threads can share the work.
        return BoundWork(units: x.n * oh, costPerUnit: ow * x.c * 8, scratchFloats: 0) { rows, _ in
            for r in rows {
                let (n, y) = r.quotientAndRemainder(dividingBy: oh)
                let (iy, y0, y1) = Self.interpolation(y, scale: hScale, halfPixel: half, size: x.h)
                let dy = iy - Float(y0)
                for (xx, (x0, x1, dx)) in columns.enumerated() {
                    func at(_ yy: Int, _ xxx: Int) -> UnsafePointer<Float> { src + ((n * x.h + yy) * x.w + xxx) * x.c }
                    let offset = ((n * oh + y) * ow + xx) * x.c
                    f32ResizeBilinearPixelSIMD8(at(y0, x0), at(y1, x0), at(y0, x1), at(y1, x1), dy: dy, dx: dx,
                                           channels: x.c, addend: addend.map { $0 + offset },
                                           activation: activation, output: dst + offset)
                }
            }
        }
    }
}
