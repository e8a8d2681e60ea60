/// ADD of two tensors of the same shape, with a fused activation.
/// (BlazeFace never broadcasts; a broadcast is refused rather than guessed.)
public struct Add: TensorOperator {
    /// The activation applied to each sum.
    public let activation: Activation
    /// An ADD, with no activation by default.
    public init(activation: Activation = .none) { self.activation = activation }

    /// The shared shape of the two inputs; unequal shapes are refused.
    public func outputShapes(for inputs: [Shape]) throws(TensorError) -> [Shape] {
        try requireInputs(inputs, 2, "ADD")
        guard inputs[0] == inputs[1] else {
            throw .shapeMismatch("ADD needs equal shapes, got \(inputs[0]) and \(inputs[1])")
        }
        return [inputs[0]]
    }

    /// Binds the reference loop: the sum, then the activation.
    public func bind(inputs: [UnsafePointer<Float>], shapes: [Shape],
                     outputs: [UnsafeMutablePointer<Float>]) throws(TensorError) -> BoundWork {
        let count = try outputShapes(for: shapes)[0].count
        let (a, b, y, act) = (inputs[0], inputs[1], outputs[0], activation)
        return BoundWork(cost: count) { f32AddReference(a, b, count: count, activation: act, output: y) }
    }
}

/// RELU: `max(x, 0)`.
public struct ReLU: TensorOperator {
    /// A RELU (it has no parameters).
    public init() {}

    /// One input; the output has its shape.
    public func outputShapes(for inputs: [Shape]) throws(TensorError) -> [Shape] {
        try requireInputs(inputs, 1, "RELU")
        return inputs
    }

    /// Binds the reference loop over every element.
    public func bind(inputs: [UnsafePointer<Float>], shapes: [Shape],
                     outputs: [UnsafeMutablePointer<Float>]) throws(TensorError) -> BoundWork {
        let count = try outputShapes(for: shapes)[0].count
        let (x, y) = (inputs[0], outputs[0])
        return BoundWork(cost: count) { f32ReLUReference(x, count: count, output: y) }
    }
}
