/// Layer normalisation over the last axis with a per-channel scale and no offset: the fused
/// form of the ten operators the blendshape model's MLP-mixer spells each of its layer norms
/// in (`MEAN`, `NEG`, `SQUARED_DIFFERENCE`, `MEAN`, `ADD` epsilon, `RSQRT`, `MUL` gamma, `MUL`,
/// `MUL`, `ADD`; BlazeModel's Fusion finds them). The same float operations in the same order
/// (see `f32LayerNormRowsReference`), so the same bits, in one pass over each row block
/// instead of ten passes with the intermediate tensors written out.
public struct LayerNorm: TensorOperator {
    /// The length of the normalised axis: one scale per channel.
    public let channels: Int
    /// Added to the variance before its reciprocal square root.
    public let epsilon: Float
    /// The axis normalised over, as the fused MEANs name it: only the last is supported.
    public let axis: Int
    /// Whether `bind` uses the eight-row SIMD kernel or the reference loops.
    public let kernels: KernelChoice
    /// The scale, padded with `kernelSlack` zeros for whole-vector loads.
    let gamma: AlignedBuffer<Float>

    /// - Parameters: `gamma` has one value per channel; `epsilon` is a single value; `axis`
    ///   counts from the end when negative and must be the input's last.
    public init(gamma: Tensor, epsilon: Tensor, axis: Int = -1, kernels: KernelChoice = .fastest) throws(TensorError) {
        guard let c = gamma.shape.dims.last, c > 0, gamma.shape.count == c else {
            throw .shapeMismatch("LAYER_NORM needs one scale per channel, got \(gamma.shape)")
        }
        guard epsilon.shape.count == 1 else {
            throw .shapeMismatch("LAYER_NORM needs a single epsilon, got \(epsilon.shape)")
        }
        (channels, self.epsilon, self.axis, self.kernels) = (c, epsilon.scalars[0], axis, kernels)
        self.gamma = AlignedBuffer(gamma.scalars, padding: kernelSlack)
    }

    /// The input's shape, once the axis and channel count are checked.
    public func outputShapes(for inputs: [Shape]) throws(TensorError) -> [Shape] {
        try requireInputs(inputs, 1, "LAYER_NORM")
        guard axis == -1 || axis == inputs[0].rank - 1 else {
            throw .invalidAttribute("LAYER_NORM over axis \(axis) of \(inputs[0]): only the last axis is supported")
        }
        guard inputs[0].dims.last == channels else {
            throw .shapeMismatch("LAYER_NORM has \(channels) scales for input \(inputs[0])")
        }
        return inputs
    }

    /// Normalises each row: eight rows at a time with `.fastest`, else the reference loops.
    public func bind(inputs: [UnsafePointer<Float>], shapes: [Shape],
                     outputs: [UnsafeMutablePointer<Float>]) throws(TensorError) -> BoundWork {
        let rows = try outputShapes(for: shapes)[0].count / channels
        let (x, y, n, epsilon, gamma) = (inputs[0], outputs[0], channels, epsilon, gamma)
        if kernels == .fastest {
            return BoundWork(units: rows, costPerUnit: 6 * n, scratchFloats: 8 * n) { r, scratch in
                f32LayerNormRows8(x, rows: r, length: n, epsilon: epsilon, gamma: gamma.pointer, scratch: scratch, output: y)
            }
        }
        return BoundWork(units: rows, costPerUnit: 6 * n) { r in
            f32LayerNormRowsReference(x, rows: r, length: n, epsilon: epsilon, gamma: gamma.pointer, output: y)
        }
    }
}
