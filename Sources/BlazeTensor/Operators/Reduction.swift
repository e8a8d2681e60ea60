/// MEAN and SUM over a set of axes (negative counts from the end), keeping the reduced axes as
/// 1 or dropping them (TFLite's ReducerOptions keep_dims). Sums in index order, in float; the
/// mean divides the sum by the element count.
public struct Reduce: TensorOperator {
    /// MEAN divides the sum by the element count; SUM does not.
    public enum Kind: String, Sendable { case mean, sum }
    /// Whether the result is the sum or the mean.
    public let kind: Kind
    /// The axes reduced; negative counts from the end.
    public let axes: [Int]
    /// Whether the reduced axes stay in the output as size 1 (TFLite's keep_dims).
    public let keepDims: Bool
    /// `.fastest` allows the vectorised summing loops; `.reference` keeps the plain ones.
    public let kernels: KernelChoice

    /// A MEAN or SUM over `axes`, checked against the input's rank when its shape is known.
    public init(_ kind: Kind, axes: [Int], keepDims: Bool, kernels: KernelChoice = .fastest) {
        (self.kind, self.axes, self.keepDims, self.kernels) = (kind, axes, keepDims, kernels)
    }

    func reducedAxes(_ rank: Int) throws(TensorError) -> Set<Int> {
        var set = Set<Int>()
        for a in axes {
            let n = a < 0 ? a + rank : a
            guard (0..<rank).contains(n) else { throw .invalidAttribute("\(kind.rawValue) axis \(a) is outside rank \(rank)") }
            set.insert(n)
        }
        return set
    }

    /// The input's shape, reduced axes as 1 or dropped; throws for an axis outside the rank.
    public func outputShapes(for inputs: [Shape]) throws(TensorError) -> [Shape] {
        try requireInputs(inputs, 1, kind.rawValue)
        let reduced = try reducedAxes(inputs[0].rank)
        let dims = inputs[0].dims.enumerated().compactMap { i, d -> Int? in
            reduced.contains(i) ? (keepDims ? 1 : nil) : d
        }
        return [Shape(dims)]
    }

    /// Binds the loop that fits the reduced axes: trailing, one adjacent run, or any set.
    public func bind(inputs: [UnsafePointer<Float>], shapes: [Shape],
                     outputs: [UnsafeMutablePointer<Float>]) throws(TensorError) -> BoundWork {
        let outCount = try outputShapes(for: shapes)[0].count
        let dims = shapes[0].dims, reduced = try reducedAxes(shapes[0].rank)
        let (x, y, mean) = (inputs[0], outputs[0], kind == .mean)
        let n = dims.enumerated().filter { reduced.contains($0.offset) }.map(\.element).reduce(1, *)
        // Reducing the trailing axes: each output sums one contiguous run, in order (the same
        // sums as the general loop, which also visits the input in index order).
        if reduced == Set((dims.count - reduced.count)..<dims.count) {
            if kernels == .fastest, n >= 8 {
                return BoundWork(units: outCount, costPerUnit: n) { r in f32SumRows8(x, rows: r, length: n, mean: mean, output: y) }
            }
            return BoundWork(units: outCount, costPerUnit: n) { r in
                f32SumRowsReference(x, rows: r, length: n, mean: mean, output: y)
            }
        }
        // Reducing a run of adjacent axes (outer x reduced x inner): the general loop's sums in
        // its order, without its per-element index arithmetic.
        if kernels == .fastest, let lo = reduced.min(), let hi = reduced.max(), hi - lo + 1 == reduced.count {
            let outer = dims[..<lo].reduce(1, *), inner = dims[(hi + 1)...].reduce(1, *)
            return BoundWork(cost: shapes[0].count) {
                f32SumAxisRuns(x, outer: outer, length: n, inner: inner, mean: mean, output: y)
            }
        }
        return BoundWork(cost: shapes[0].count) {
            f32ReduceSumReference(x, dims: dims, reduced: reduced, output: y, outputCount: outCount)
            if mean { for i in 0..<outCount { y[i] /= Float(n) } }
        }
    }
}

/// Sums `x` (shape `dims`) over the `reduced` axes into `output` (the kept axes in order),
/// visiting the input in index order.
func f32ReduceSumReference(_ x: UnsafePointer<Float>, dims: [Int], reduced: Set<Int>,
                           output: UnsafeMutablePointer<Float>, outputCount: Int) {
    output.update(repeating: 0, count: outputCount)
    // Output strides of each input axis (0 on reduced axes).
    var strides = [Int](repeating: 0, count: dims.count)
    var step = 1
    for i in stride(from: dims.count - 1, through: 0, by: -1) where !reduced.contains(i) {
        strides[i] = step
        step *= dims[i]
    }
    var index = [Int](repeating: 0, count: dims.count)
    for i in 0..<dims.reduce(1, *) {
        var o = 0
        for d in 0..<dims.count { o += index[d] * strides[d] }
        output[o] += x[i]
        advance(&index, within: dims)
    }
}
