/// A dense Float32 tensor, row-major (NHWC for images). Value semantics.
public struct Tensor: Equatable, Sendable {
    /// The dimensions.
    public private(set) var shape: Shape
    /// The values in row-major order, `shape.count` of them.
    public private(set) var scalars: [Float]

    /// Creates a tensor; `scalars.count` must equal `shape.count`.
    public init(shape: Shape, scalars: [Float]) throws(TensorError) {
        guard shape.dims.allSatisfy({ $0 >= 0 }), shape.count == scalars.count else {
            throw .shapeMismatch("\(scalars.count) values do not fill shape \(shape)")
        }
        self.shape = shape
        self.scalars = scalars
    }

    /// A tensor of `shape` filled with `value`.
    public init(shape: Shape, repeating value: Float = 0) {
        self.shape = shape
        self.scalars = Array(repeating: value, count: shape.count)
    }

    /// The same values under another shape with the same element count.
    public func reshaped(_ newShape: Shape) throws(TensorError) -> Tensor {
        try Tensor(shape: newShape, scalars: scalars)
    }
}

/// Errors of the tensor layer: shapes or attributes an operator cannot accept.
public enum TensorError: Error, Equatable, CustomStringConvertible {
    /// A shape, or a count of values, that does not fit (the message says which).
    case shapeMismatch(String)
    /// An attribute the operator cannot accept, such as a stride or permutation.
    case invalidAttribute(String)

    /// A readable message naming the problem.
    public var description: String {
        switch self {
        case .shapeMismatch(let s): "shape mismatch: \(s)"
        case .invalidAttribute(let s): "invalid attribute: \(s)"
        }
    }
}
