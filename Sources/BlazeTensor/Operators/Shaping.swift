/// PAD with zeros; `paddings[axis] = (before, after)` for each of the four NHWC axes.
public struct Pad: TensorOperator {
    /// The zeros added before and after each NHWC axis, in axis order.
    public let paddings: [(before: Int, after: Int)]

    /// A PAD by `paddings`; throws unless they are four non-negative pairs, one per axis.
    public init(paddings: [(before: Int, after: Int)]) throws(TensorError) {
        guard paddings.count == 4, paddings.allSatisfy({ $0.before >= 0 && $0.after >= 0 }) else {
            throw .invalidAttribute("PAD needs four non-negative (before, after) pairs")
        }
        self.paddings = paddings
    }

    /// The one NHWC input's shape, each axis grown by its padding.
    public func outputShapes(for inputs: [Shape]) throws(TensorError) -> [Shape] {
        try requireInputs(inputs, 1, "PAD")
        _ = try requireNHWC(inputs[0], "PAD")
        return [Shape(zip(inputs[0].dims, paddings).map { $0 + $1.before + $1.after })]
    }

    /// Copies the input into the output's interior and zeros the rest, as one unit of work.
    public func bind(inputs: [UnsafePointer<Float>], shapes: [Shape],
                     outputs: [UnsafeMutablePointer<Float>]) throws(TensorError) -> BoundWork {
        let out = try requireNHWC(outputShapes(for: shapes)[0], "PAD")
        let shape = try requireNHWC(shapes[0], "PAD")
        let before = paddings.map(\.before)
        let (x, y) = (inputs[0], outputs[0])
        return BoundWork(cost: out.count) { f32PadReference(input: x, shape: shape, before: before, output: y, outShape: out) }
    }
}

/// MAX_POOL_2D over a window, TFLite padding semantics, fused activation.
public struct MaxPool2D: TensorOperator {
    /// The window's height and width, and its step between output pixels along each.
    public let filterH: Int, filterW: Int, strideH: Int, strideW: Int
    /// Where the window starts at the edges; taps outside the input are skipped, not zeros.
    public let padding: Padding
    /// The activation applied to each maximum (TFLite's fused_activation_function).
    public let activation: Activation

    /// A MAX_POOL_2D with this window, stride, padding and activation.
    public init(filterH: Int, filterW: Int, strideH: Int, strideW: Int,
                padding: Padding, activation: Activation = .none) {
        (self.filterH, self.filterW, self.strideH, self.strideW) = (filterH, filterW, strideH, strideW)
        (self.padding, self.activation) = (padding, activation)
    }

    func geometry(_ inputs: [Shape]) throws(TensorError) -> WindowGeometry {
        try requireInputs(inputs, 1, "MAX_POOL_2D")
        let x = try requireNHWC(inputs[0], "MAX_POOL_2D")
        return try .make(input: x, outputChannels: x.c, kernelH: filterH, kernelW: filterW,
                         strideH: strideH, strideW: strideW, padding: padding)
    }

    /// The pooled shape of the one NHWC input; channels are unchanged.
    public func outputShapes(for inputs: [Shape]) throws(TensorError) -> [Shape] {
        try [geometry(inputs).output.shape]
    }

    /// Runs the reference pooling loop over the whole output as one unit of work.
    public func bind(inputs: [UnsafePointer<Float>], shapes: [Shape],
                     outputs: [UnsafeMutablePointer<Float>]) throws(TensorError) -> BoundWork {
        let g = try geometry(shapes)
        let (x, y, act) = (inputs[0], outputs[0], activation)
        return BoundWork(cost: g.output.count) { f32MaxPool2DReference(g, input: x, activation: act, output: y) }
    }
}

/// RESHAPE: the same values under a new shape (one dimension may be -1, inferred).
public struct Reshape: TensorOperator {
    /// The output dimensions; at most one is -1, inferred from the element count.
    public let newShape: [Int]
    /// A RESHAPE to `newShape`, checked against the input when its shape is known.
    public init(newShape: [Int]) { self.newShape = newShape }

    /// `newShape` with its -1 resolved; throws unless it holds exactly the input's elements.
    public func outputShapes(for inputs: [Shape]) throws(TensorError) -> [Shape] {
        try requireInputs(inputs, 1, "RESHAPE")
        let total = inputs[0].count
        var dims = newShape
        let unknown = dims.indices.filter { dims[$0] == -1 }
        guard unknown.count <= 1, dims.allSatisfy({ $0 == -1 || $0 >= 0 }) else {
            throw .invalidAttribute("RESHAPE shape \(newShape) is not valid")
        }
        if let u = unknown.first {
            guard let known = Shape.checkedProduct(dims.filter { $0 != -1 }), known > 0, total % known == 0 else {
                throw .shapeMismatch("RESHAPE cannot fit \(inputs[0]) into \(newShape)")
            }
            dims[u] = total / known
        }
        guard Shape(dims).checkedCount == total else {
            throw .shapeMismatch("RESHAPE cannot fit \(inputs[0]) into \(newShape)")
        }
        return [Shape(dims)]
    }

    /// Copies the values unchanged into the output: only the shape differs.
    public func bind(inputs: [UnsafePointer<Float>], shapes: [Shape],
                     outputs: [UnsafeMutablePointer<Float>]) throws(TensorError) -> BoundWork {
        let count = try outputShapes(for: shapes)[0].count
        let (x, y) = (inputs[0], outputs[0])
        return BoundWork(cost: count) { y.update(from: x, count: count) }
    }
}

/// CONCATENATION along `axis` (negative counts from the end), fused activation none only.
public struct Concatenation: TensorOperator {
    /// The axis the inputs are joined along; negative counts from the end.
    public let axis: Int
    /// A CONCATENATION along `axis`, checked against the inputs' rank when shapes are known.
    public init(axis: Int) { self.axis = axis }

    func normalizedAxis(_ rank: Int) throws(TensorError) -> Int {
        let a = axis < 0 ? axis + rank : axis
        guard (0..<rank).contains(a) else {
            throw .invalidAttribute("CONCATENATION axis \(axis) is outside rank \(rank)")
        }
        return a
    }

    /// The inputs' common shape with `axis` the sum of theirs; every other dimension must match.
    public func outputShapes(for inputs: [Shape]) throws(TensorError) -> [Shape] {
        guard let first = inputs.first else { throw .shapeMismatch("CONCATENATION needs inputs") }
        let a = try normalizedAxis(first.rank)
        var dims = first.dims
        dims[a] = 0
        for s in inputs {
            guard s.rank == first.rank,
                  zip(s.dims, first.dims).enumerated().allSatisfy({ $0.offset == a || $0.element.0 == $0.element.1 }) else {
                throw .shapeMismatch("CONCATENATION on axis \(a) cannot join \(first) and \(s)")
            }
            dims[a] += s[a]
        }
        return [Shape(dims)]
    }

    /// Copies each input's run in turn for every index before `axis`, as one unit of work.
    public func bind(inputs: [UnsafePointer<Float>], shapes: [Shape],
                     outputs: [UnsafeMutablePointer<Float>]) throws(TensorError) -> BoundWork {
        _ = try outputShapes(for: shapes)
        let a = try normalizedAxis(shapes[0].rank)
        let outer = shapes[0].dims[..<a].reduce(1, *)
        let parts = zip(inputs, shapes).map { (pointer: $0, inner: $1.dims[a...].reduce(1, *)) }
        let y = outputs[0]
        return BoundWork(cost: outer * parts.reduce(0) { $0 + $1.inner }) {
            f32ConcatenateReference(inputs: parts, outer: outer, output: y)
        }
    }
}
