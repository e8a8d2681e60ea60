/// An operator of the graph: shape inference plus a binding to fixed buffers.
///
/// Binding happens once, when a network is planned; the returned work is what runs per
/// call, so the steady state does no shape checks and no allocation.
public protocol TensorOperator: Sendable {
    /// The output shapes for these input shapes, or why they do not fit.
    func outputShapes(for inputs: [Shape]) throws(TensorError) -> [Shape]

    /// Returns the work of one call on these buffers (shapes as checked by `outputShapes`).
    func bind(inputs: [UnsafePointer<Float>], shapes: [Shape],
              outputs: [UnsafeMutablePointer<Float>]) throws(TensorError) -> BoundWork
}

/// One call's work, bound to its buffers, split into independent units (usually output rows)
/// so that threads can share it: `run` may be called on disjoint unit ranges concurrently,
/// each call with its own scratch memory of `scratchFloats` floats (planned by the network).
public struct BoundWork {
    /// The number of independent units (at least 1).
    public let units: Int
    /// Multiply-adds (or element operations) per unit: what decides whether threads pay off.
    public let costPerUnit: Int
    /// Floats of scratch each concurrent call needs (0 for most operators).
    public let scratchFloats: Int
    /// Runs a range of units with one scratch buffer of at least `scratchFloats` floats.
    public let run: (Range<Int>, UnsafeMutablePointer<Float>) -> Void

    /// Work of `units` units (at least 1), each call needing `scratchFloats` floats of scratch.
    public init(units: Int, costPerUnit: Int, scratchFloats: Int,
                run: @escaping (Range<Int>, UnsafeMutablePointer<Float>) -> Void) {
        (self.units, self.costPerUnit, self.scratchFloats, self.run) = (max(units, 1), costPerUnit, scratchFloats, run)
    }

    /// Work of `units` units that needs no scratch memory.
    public init(units: Int, costPerUnit: Int, run: @escaping (Range<Int>) -> Void) {
        self.init(units: units, costPerUnit: costPerUnit, scratchFloats: 0) { r, _ in run(r) }
    }

    /// Work that cannot be split.
    public init(cost: Int, _ run: @escaping () -> Void) {
        self.init(units: 1, costPerUnit: cost) { _ in run() }
    }

    /// Runs all units on this thread with `scratch` (at least `scratchFloats` floats).
    public func callAsFunction(scratch: UnsafeMutablePointer<Float>) { run(0..<units, scratch) }

    /// Runs all units on this thread, allocating scratch if any is needed: for tests and tools.
    public func callAsFunction() {
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: scratchFloats + kernelSlack)
        defer { scratch.deallocate() }
        run(0..<units, scratch)
    }
}

extension TensorOperator {
    /// Runs the operator once on tensors, allocating its outputs. For tests and tools;
    /// networks bind operators to planned buffers instead.
    public func callAsFunction(_ inputs: Tensor...) throws(TensorError) -> Tensor {
        try apply(inputs)[0]
    }

    /// Runs the operator once on tensors, returning all its outputs in order: for tests and tools.
    public func apply(_ inputs: [Tensor]) throws(TensorError) -> [Tensor] {
        let shapes = inputs.map(\.shape)
        let outputShapes = try outputShapes(for: shapes)
        let inputPointers = inputs.map { t -> UnsafeMutablePointer<Float> in
            let p = UnsafeMutablePointer<Float>.allocate(capacity: t.scalars.count + kernelSlack)
            p.initialize(repeating: 0, count: t.scalars.count + kernelSlack)
            p.update(from: t.scalars, count: t.scalars.count)
            return p
        }
        let outputPointers = outputShapes.map { UnsafeMutablePointer<Float>.allocate(capacity: $0.count + kernelSlack) }
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

/// Floats of slack every buffer handed to a kernel has past its end: SIMD kernels may load
/// (never store) a partial vector beyond the last channel of the last pixel.
public let kernelSlack = 16

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
