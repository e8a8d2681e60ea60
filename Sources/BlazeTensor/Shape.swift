/// The dimensions of a tensor, outermost first (NHWC for images).
public struct Shape: Hashable, Sendable, CustomStringConvertible {
    /// The size of each axis, outermost first.
    public var dims: [Int]

    /// A shape with these dimensions.
    public init(_ dims: [Int]) { self.dims = dims }
    /// A rank-4 NHWC shape: batch, height, width, channels.
    public init(n: Int, h: Int, w: Int, c: Int) { self.dims = [n, h, w, c] }

    /// The number of axes.
    public var rank: Int { dims.count }
    /// The number of elements; 1 for a scalar. Traps on overflow: shapes from files go through
    /// `checkedCount` first.
    public var count: Int { dims.reduce(1, *) }
    /// The number of elements, or nil if a dimension is negative or the product overflows.
    public var checkedCount: Int? { Shape.checkedProduct(dims) }

    /// The product of `values`, or nil if one is negative or the product overflows Int.
    public static func checkedProduct(_ values: some Sequence<Int>) -> Int? {
        var product = 1
        for v in values {
            guard v >= 0 else { return nil }
            let (p, overflow) = product.multipliedReportingOverflow(by: v)
            guard !overflow else { return nil }
            product = p
        }
        return product
    }
    /// The size of axis `i`.
    public subscript(i: Int) -> Int { dims[i] }

    /// The dimensions joined by "x" in brackets, such as `[1x128x128x3]`.
    public var description: String { "[" + dims.map(String.init).joined(separator: "x") + "]" }
}

/// An NHWC view of a rank-4 shape, the layout every image operator works in.
public struct NHWC: Hashable, Sendable {
    /// Batch, height, width and channels.
    public var n: Int, h: Int, w: Int, c: Int
    /// The view with these sizes.
    public init(n: Int, h: Int, w: Int, c: Int) { (self.n, self.h, self.w, self.c) = (n, h, w, c) }
    /// The NHWC view of `shape`, or nil unless it has rank 4.
    public init?(_ shape: Shape) {
        guard shape.rank == 4 else { return nil }
        self.init(n: shape[0], h: shape[1], w: shape[2], c: shape[3])
    }
    /// The rank-4 `Shape` of these sizes.
    public var shape: Shape { Shape([n, h, w, c]) }
    /// The number of elements, `n * h * w * c`.
    public var count: Int { n * h * w * c }
}
