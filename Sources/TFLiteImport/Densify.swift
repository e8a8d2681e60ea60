import BlazeTensor

extension TFLiteModel.Sparsity {
    /// Expands stored values into the dense tensor of `shape`, as TFLite's FormatConverter
    /// (sparsity/format_converter.cc, SparseToDense) does: walk the dimensions in traversal
    /// order, dense ones by count and compressed ones by their CSR segments, and map each
    /// visited position (block dimensions folded back into their original dimension) to its
    /// row-major index. Every index is checked; malformed metadata is an error, never a trap.
    func densify<T>(_ values: [T], shape: [Int], zero: T) throws(TFLiteError) -> [T] {
        let rank = shape.count
        guard let total = Shape.checkedProduct(shape) else {
            throw .corrupt("sparse tensor has an invalid shape \(shape)")
        }
        guard traversalOrder.count == rank + blockMap.count,
              Set(traversalOrder) == Set(0..<traversalOrder.count),
              blockMap.allSatisfy({ (0..<rank).contains($0) }) else {
            throw .corrupt("sparse tensor's traversal order \(traversalOrder) / block map \(blockMap) do not fit rank \(rank)")
        }
        var blockSize: [Int] = []
        for b in blockMap.indices {
            guard case .dense(let size) = dimensions[rank + b], size > 0 else {
                throw .unsupported("a sparse block dimension that is not dense")
            }
            blockSize.append(size)
        }
        var dense = [T](repeating: zero, count: total)
        var indices = [Int](repeating: 0, count: traversalOrder.count)
        var next = 0

        func visit(level: Int, previous: Int) throws(TFLiteError) {
            if level == indices.count {
                var original = [Int](repeating: 0, count: rank)
                for i in 0..<rank { original[traversalOrder[i]] = indices[i] }
                for i in rank..<indices.count {
                    let block = traversalOrder[i] - rank
                    original[blockMap[block]] = original[blockMap[block]] * blockSize[block] + indices[i]
                }
                var flat = 0
                for d in 0..<rank {
                    guard original[d] >= 0, original[d] < shape[d] else { throw .corrupt("sparse index \(original) outside \(shape)") }
                    flat = flat * shape[d] + original[d]
                }
                guard next < values.count else { throw .corrupt("sparse tensor has fewer values than its indices") }
                dense[flat] = values[next]
                next += 1
                return
            }
            switch dimensions[level] {
            case .dense(let size):
                guard size >= 0, size <= total else { throw .corrupt("sparse dense size \(size)") }
                for i in 0..<size {
                    indices[level] = i
                    try visit(level: level + 1, previous: previous * size + i)
                }
            case .compressed(let segments, let positions):
                guard previous + 1 < segments.count else { throw .corrupt("sparse segment \(previous) out of range") }
                let (lower, upper) = (segments[previous], segments[previous + 1])
                guard lower >= 0, lower <= upper, upper <= positions.count else { throw .corrupt("sparse segments out of range") }
                for i in lower..<upper {
                    indices[level] = positions[i]
                    try visit(level: level + 1, previous: i)
                }
            }
        }
        try visit(level: 0, previous: 0)
        guard next == values.count else { throw .corrupt("sparse tensor has \(values.count) values, its indices use \(next)") }
        return dense
    }
}
