/// The dimensions of a tensor, outermost first (NHWC for images).
public struct Shape: Hashable, Sendable, CustomStringConvertible {
    public var dims: [Int]

    public init(_ dims: [Int]) { self.dims = dims }
    public init(n: Int, h: Int, w: Int, c: Int) { self.dims = [n, h, w, c] }

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
    public subscript(i: Int) -> Int { dims[i] }

    public var description: String { "[" + dims.map(String.init).joined(separator: "x") + "]" }
}

/// An NHWC view of a rank-4 shape, the layout every image operator works in.
public struct NHWC: Hashable, Sendable {
    public var n: Int, h: Int, w: Int, c: Int
    public init(n: Int, h: Int, w: Int, c: Int) { (self.n, self.h, self.w, self.c) = (n, h, w, c) }
    public init?(_ shape: Shape) {
        guard shape.rank == 4 else { return nil }
        self.init(n: shape[0], h: shape[1], w: shape[2], c: shape[3])
    }
    public var shape: Shape { Shape([n, h, w, c]) }
    public var count: Int { n * h * w * c }
}
