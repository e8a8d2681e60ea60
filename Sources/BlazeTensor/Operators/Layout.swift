/// TRANSPOSE by a permutation of the axes: `out.dims[i] = in.dims[perm[i]]`.
public struct Transpose: TensorOperator {
    /// Output axis `i` is input axis `perm[i]`.
    public let perm: [Int]
    /// Throws unless `perm` is a permutation of `0..<perm.count`.
    public init(perm: [Int]) throws(TensorError) {
        guard perm.sorted() == Array(0..<perm.count) else { throw .invalidAttribute("TRANSPOSE perm \(perm) is not a permutation") }
        self.perm = perm
    }

    /// The input's dimensions in `perm` order.
    public func outputShapes(for inputs: [Shape]) throws(TensorError) -> [Shape] {
        try requireInputs(inputs, 1, "TRANSPOSE")
        guard inputs[0].rank == perm.count else { throw .shapeMismatch("TRANSPOSE perm \(perm) for input \(inputs[0])") }
        return [Shape(perm.map { inputs[0][$0] })]
    }

    /// A batch of 2-D transposes when only the last two axes swap, else a strided gather.
    public func bind(inputs: [UnsafePointer<Float>], shapes: [Shape],
                     outputs: [UnsafeMutablePointer<Float>]) throws(TensorError) -> BoundWork {
        let out = try outputShapes(for: shapes)[0]
        var inStrides = [Int](repeating: 1, count: perm.count)
        for i in stride(from: perm.count - 2, through: 0, by: -1) { inStrides[i] = inStrides[i + 1] * shapes[0][i + 1] }
        let strides = perm.map { inStrides[$0] }   // input stride of each output axis
        let (x, y) = (inputs[0], outputs[0])
        let r = perm.count
        if r >= 2, perm == Array(0..<(r - 2)) + [r - 1, r - 2] {
            // The last two axes swapped (the MLP-mixer's token/channel flips): a batch of 2-D transposes.
            let (rows, columns) = (shapes[0][r - 2], shapes[0][r - 1])
            let batches = shapes[0].count / max(rows * columns, 1)
            return BoundWork(cost: out.count) {
                for b in 0..<batches {
                    let src = x + b * rows * columns, dst = y + b * rows * columns
                    for i in 0..<rows { for j in 0..<columns { dst[j &* rows &+ i] = src[i &* columns &+ j] } }
                }
            }
        }
        return BoundWork(cost: out.count) { f32GatherStridedReference(x, strides: strides, offset: 0, outputDims: out.dims, output: y) }
    }
}

/// STRIDED_SLICE as the exporter resolves it: `begin` and `size` per input axis (stride 1),
/// then the output `shape` (TFLite's shrunk axes dropped).
public struct Slice: TensorOperator {
    /// The first index and extent per input axis, and the output's shape.
    public let begin: [Int], size: [Int], shape: [Int]
    /// Throws unless `begin` and `size` have one value per axis, `begin` is not negative,
    /// and `size` and `shape` are positive with the same element count.
    public init(begin: [Int], size: [Int], shape: [Int]) throws(TensorError) {
        /// The product of positive extents, or nil if one is not positive or it overflows.
        func product(_ dims: [Int]) -> Int? {
            var p = 1
            for d in dims {
                guard d > 0 else { return nil }
                let (q, overflow) = p.multipliedReportingOverflow(by: d)
                guard !overflow else { return nil }
                p = q
            }
            return p
        }
        guard begin.count == size.count, begin.allSatisfy({ $0 >= 0 }), let n = product(size), product(shape) == n else {
            throw .invalidAttribute("STRIDED_SLICE begin \(begin), size \(size), shape \(shape)")
        }
        (self.begin, self.size, self.shape) = (begin, size, shape)
    }

    /// `shape`, once the slice is checked to lie inside the input.
    public func outputShapes(for inputs: [Shape]) throws(TensorError) -> [Shape] {
        try requireInputs(inputs, 1, "STRIDED_SLICE")
        guard inputs[0].rank == begin.count, zip(inputs[0].dims, zip(begin, size)).allSatisfy({ $1.0 <= $0 && $1.1 <= $0 - $1.0 }) else {
            throw .shapeMismatch("STRIDED_SLICE begin \(begin) size \(size) does not fit \(inputs[0])")
        }
        return [Shape(shape)]
    }

    /// A strided gather of the slice.
    public func bind(inputs: [UnsafePointer<Float>], shapes: [Shape],
                     outputs: [UnsafeMutablePointer<Float>]) throws(TensorError) -> BoundWork {
        _ = try outputShapes(for: shapes)
        var strides = [Int](repeating: 1, count: begin.count)
        for i in stride(from: begin.count - 2, through: 0, by: -1) { strides[i] = strides[i + 1] * shapes[0][i + 1] }
        let offset = zip(begin, strides).reduce(0) { $0 + $1.0 * $1.1 }
        let (x, y, size) = (inputs[0], outputs[0], size)
        return BoundWork(cost: size.reduce(1, *)) { f32GatherStridedReference(x, strides: strides, offset: offset, outputDims: size, output: y) }
    }
}

/// `output[i0, i1, ...] = x[offset + Σ i_k * strides[k]]`, output in index order: the copy
/// loop of TRANSPOSE and STRIDED_SLICE.
func f32GatherStridedReference(_ x: UnsafePointer<Float>, strides: [Int], offset: Int, outputDims: [Int],
                               output: UnsafeMutablePointer<Float>) {
    let rank = outputDims.count
    var index = [Int](repeating: 0, count: rank)
    for o in 0..<outputDims.reduce(1, *) {
        var i = offset
        for d in 0..<rank { i += index[d] * strides[d] }
        output[o] = x[i]
        advance(&index, within: outputDims)
    }
}
