/// ADD of two tensors of the same shape, with a fused activation.
/// (BlazeFace never broadcasts; a broadcast is refused rather than guessed.)
public struct Add: TensorOperator {
    public let activation: Activation
    public init(activation: Activation = .none) { self.activation = activation }

    public func outputShapes(for inputs: [Shape]) throws(TensorError) -> [Shape] {
        try requireInputs(inputs, 2, "ADD")
        guard inputs[0] == inputs[1] else {
            throw .shapeMismatch("ADD needs equal shapes, got \(inputs[0]) and \(inputs[1])")
        }
        return [inputs[0]]
    }

    public func bind(inputs: [UnsafePointer<Float>], shapes: [Shape],
                     outputs: [UnsafeMutablePointer<Float>]) throws(TensorError) -> BoundWork {
        let count = try outputShapes(for: shapes)[0].count
        let (a, b, y, act) = (inputs[0], inputs[1], outputs[0], activation)
        return BoundWork(cost: count) { f32AddReference(a, b, count: count, activation: act, output: y) }
    }
}

/// RELU: `max(x, 0)`.
public struct ReLU: TensorOperator {
    public init() {}

    public func outputShapes(for inputs: [Shape]) throws(TensorError) -> [Shape] {
        try requireInputs(inputs, 1, "RELU")
        return inputs
    }

    public func bind(inputs: [UnsafePointer<Float>], shapes: [Shape],
                     outputs: [UnsafeMutablePointer<Float>]) throws(TensorError) -> BoundWork {
        let count = try outputShapes(for: shapes)[0].count
        let (x, y) = (inputs[0], outputs[0])
        return BoundWork(cost: count) { f32ReLUReference(x, count: count, output: y) }
    }
}
