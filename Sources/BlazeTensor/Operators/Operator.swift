/// An operator of the graph: shape inference plus a binding to fixed buffers.
///
/// Binding happens once, when a network is planned; the returned closure is what runs per
/// call, so the steady state does no shape checks and no allocation.
public protocol TensorOperator: Sendable {
    /// The output shapes for these input shapes, or why they do not fit.
    func outputShapes(for inputs: [Shape]) throws(TensorError) -> [Shape]

    /// Returns the work of one call on these buffers (shapes as checked by `outputShapes`).
    func bind(inputs: [UnsafePointer<Float>], shapes: [Shape],
              outputs: [UnsafeMutablePointer<Float>]) throws(TensorError) -> () -> Void
}

extension TensorOperator {
    /// Runs the operator once on tensors, allocating its outputs. For tests and tools;
    /// networks bind operators to planned buffers instead.
    public func callAsFunction(_ inputs: Tensor...) throws(TensorError) -> Tensor {
        try apply(inputs)[0]
    }

    public func apply(_ inputs: [Tensor]) throws(TensorError) -> [Tensor] {
        let shapes = inputs.map(\.shape)
        let outputShapes = try outputShapes(for: shapes)
        let inputPointers = inputs.map { t -> UnsafeMutablePointer<Float> in
            let p = UnsafeMutablePointer<Float>.allocate(capacity: max(t.scalars.count, 1))
            p.initialize(from: t.scalars, count: t.scalars.count)
            return p
        }
        let outputPointers = outputShapes.map { UnsafeMutablePointer<Float>.allocate(capacity: max($0.count, 1)) }
        defer {
            inputPointers.forEach { $0.deallocate() }
            outputPointers.forEach { $0.deallocate() }
        }
        let work = try bind(inputs: inputPointers.map { UnsafePointer($0) }, shapes: shapes, outputs: outputPointers)
        work()
        var outputs: [Tensor] = []
        for (shape, pointer) in zip(outputShapes, outputPointers) {
            outputs.append(try Tensor(shape: shape, scalars: Array(UnsafeBufferPointer(start: pointer, count: shape.count))))
        }
        return outputs
    }
}

@inline(__always)
func requireInputs(_ shapes: [Shape], _ count: Int, _ op: String) throws(TensorError) {
    guard shapes.count == count else {
        throw .shapeMismatch("\(op) takes \(count) input(s), got \(shapes.count)")
    }
}

@inline(__always)
func requireNHWC(_ shape: Shape, _ op: String) throws(TensorError) -> NHWC {
    guard let s = NHWC(shape), s.count > 0 else {
        throw .shapeMismatch("\(op) needs a non-empty NHWC input, got \(shape)")
    }
    return s
}
