/// ADD, SUB, MUL, DIV and SQUARED_DIFFERENCE with NumPy broadcasting (TFLite's
/// broadcast rules: shapes right-aligned, an axis of 1 stretches), then a fused activation.
public struct BinaryElementwise: TensorOperator {
    /// The operation: ADD, SUB, MUL, DIV or SQUARED_DIFFERENCE.
    public let kind: BinaryKind
    /// The activation applied to each result (TFLite's fused_activation_function).
    public let activation: Activation
    /// Whether to bind the 8-wide kernel where the shapes allow, or only the reference loops.
    public let kernels: KernelChoice
    /// An operator for `kind` with a fused activation, on the fastest kernels by default.
    public init(_ kind: BinaryKind, activation: Activation = .none, kernels: KernelChoice = .fastest) {
        (self.kind, self.activation, self.kernels) = (kind, activation, kernels)
    }

    /// The broadcast shape of the two inputs, or why they do not broadcast.
    public func outputShapes(for inputs: [Shape]) throws(TensorError) -> [Shape] {
        try requireInputs(inputs, 2, kind.rawValue)
        return [try Self.broadcast(inputs[0], inputs[1])]
    }

    /// The broadcast shape of `a` and `b`, or why they do not broadcast.
    public static func broadcast(_ a: Shape, _ b: Shape) throws(TensorError) -> Shape {
        let rank = max(a.rank, b.rank)
        var dims = [Int](repeating: 1, count: rank)
        for i in 0..<rank {
            let da = i < rank - a.rank ? 1 : a[i - (rank - a.rank)]
            let db = i < rank - b.rank ? 1 : b[i - (rank - b.rank)]
            guard da == db || da == 1 || db == 1 else { throw .shapeMismatch("\(a) and \(b) do not broadcast") }
            dims[i] = da == 1 ? db : da
        }
        return Shape(dims)
    }

    /// (row, column) element strides of `shape` when the output is seen as rows x its last axis,
    /// or nil when the operand broadcasts along some but not all of the row axes.
    static func rowColumnStrides(_ shape: Shape, output: Shape) -> (row: Int, column: Int)? {
        guard output.rank >= 1 else { return (0, 0) }
        let dims = [Int](repeating: 1, count: output.rank - shape.rank) + shape.dims
        let last = dims[output.rank - 1]
        let column = last == output[output.rank - 1] ? 1 : 0
        let outer = dims.dropLast().reduce(1, *)
        if outer == 1 { return (0, column) }
        guard zip(dims.dropLast(), output.dims.dropLast()).allSatisfy({ $0 == $1 }) else { return nil }
        return (last, column)
    }

    /// `rowColumnStrides` of both operands and the column count after dropping the trailing axes
    /// of 1 (every operand's too), so that a `[N, 1]` output is one row of N; nil as there.
    static func rowColumnStrides(_ a: Shape, _ b: Shape, output: Shape)
        -> (a: (row: Int, column: Int), b: (row: Int, column: Int), columns: Int)?
    {
        var (a, b, output) = (a.dims, b.dims, output.dims)
        while output.count > 1, output.last == 1 {
            output.removeLast()
            if !a.isEmpty { a.removeLast() }
            if !b.isEmpty { b.removeLast() }
        }
        let out = Shape(output)
        guard let sa = rowColumnStrides(Shape(a), output: out), let sb = rowColumnStrides(Shape(b), output: out) else { return nil }
        return (sa, sb, max(output.last ?? 1, 1))
    }

    /// Element strides of `shape` seen in the output's rank, 0 on broadcast axes.
    static func broadcastStrides(_ shape: Shape, rank: Int, output: Shape) -> [Int] {
        var strides = [Int](repeating: 0, count: rank)
        var step = 1
        for i in stride(from: rank - 1, through: 0, by: -1) {
            let j = i - (rank - shape.rank)
            guard j >= 0 else { break }
            strides[i] = shape[j] == 1 && output[i] != 1 ? 0 : step
            step *= shape[j]
        }
        return strides
    }

    /// Binds the fastest loop the shapes allow: the 8-wide row kernel (no activation), an
    /// equal-shape loop, a strided rows x columns loop, or a general broadcast.
    public func bind(inputs: [UnsafePointer<Float>], shapes: [Shape],
                     outputs: [UnsafeMutablePointer<Float>]) throws(TensorError) -> BoundWork {
        let out = try outputShapes(for: shapes)[0]
        let (a, b, y, kind, act) = (inputs[0], inputs[1], outputs[0], kind, activation)
        let count = out.count
        // Without activation, the 8-wide kernel on rows x columns (trailing 1s dropped): one row
        // when each operand is either whole or a scalar, else rows at least 8 wide, each operand
        // a full row or one value per row (a row for all included).
        if kernels == .fastest, act == .none, let (sa, sb, columns) = Self.rowColumnStrides(shapes[0], shapes[1], output: out) {
            func wholeOrScalar(_ s: (row: Int, column: Int)) -> Bool { s == (columns, 1) || s == (0, 0) }
            if count == columns || (wholeOrScalar(sa) && wholeOrScalar(sb)) {
                return BoundWork(cost: count) {
                    f32BinaryRows8(kind, a, strides: (0, sa.column), b, strides: (0, sb.column), rows: 0..<1, columns: count, output: y)
                }
            }
            if columns >= 8 {
                return BoundWork(units: count / columns, costPerUnit: columns) { rows in
                    f32BinaryRows8(kind, a, strides: sa, b, strides: sb, rows: rows, columns: columns, output: y)
                }
            }
        }
        if shapes[0] == shapes[1] {
            if kind == .add { return BoundWork(cost: count) { f32AddReference(a, b, count: count, activation: act, output: y) } }
            return BoundWork(cost: count) { for i in 0..<count { y[i] = act.apply(kind.apply(a[i], b[i])) } }
        }
        // Most broadcasts are rows x columns (columns: the output's last axis) with each operand
        // either full, one value per row, one row for all, or a scalar: a strided loop, no index
        // arithmetic per element.
        if let sa = Self.rowColumnStrides(shapes[0], output: out), let sb = Self.rowColumnStrides(shapes[1], output: out) {
            let columns = out.dims.last ?? 1
            return BoundWork(units: count / max(columns, 1), costPerUnit: columns) { rows in
                f32BinaryRowsReference(kind, a, strides: sa, b, strides: sb, rows: rows, columns: columns, activation: act, output: y)
            }
        }
        let aStrides = Self.broadcastStrides(shapes[0], rank: out.rank, output: out)
        let bStrides = Self.broadcastStrides(shapes[1], rank: out.rank, output: out)
        return BoundWork(cost: count) {
            f32BinaryBroadcastReference(kind, a, aStrides: aStrides, b, bStrides: bStrides, outputDims: out.dims,
                                        activation: act, output: y)
        }
    }
}

/// LOGISTIC, NEG, SQRT and RSQRT, elementwise.
public struct Unary: TensorOperator {
    /// The function: LOGISTIC, NEG, SQRT or RSQRT.
    public let kind: UnaryKind
    /// An operator applying `kind` to every element.
    public init(_ kind: UnaryKind) { self.kind = kind }

    /// One input; the output has its shape.
    public func outputShapes(for inputs: [Shape]) throws(TensorError) -> [Shape] {
        try requireInputs(inputs, 1, kind.rawValue)
        return inputs
    }

    /// Binds the reference loop over every element.
    public func bind(inputs: [UnsafePointer<Float>], shapes: [Shape],
                     outputs: [UnsafeMutablePointer<Float>]) throws(TensorError) -> BoundWork {
        let count = try outputShapes(for: shapes)[0].count
        let (x, y, kind) = (inputs[0], outputs[0], kind)
        return BoundWork(cost: count) { f32UnaryReference(kind, x, count: count, output: y) }
    }
}

/// PRELU with one slope per channel (the innermost axis): TFLite's `x >= 0 ? x : x * alpha`
/// for an alpha that broadcasts along every other axis (the landmark network's `[1, 1, C]`).
public struct PReLU: TensorOperator {
    /// Whether to bind the 8-wide kernel or the reference loop.
    public let kernels: KernelChoice
    /// The slopes, padded with `kernelSlack` zeros for whole-vector loads.
    let slopes: AlignedBuffer<Float>
    /// The number of slopes: the size of the input's innermost axis.
    public let channels: Int

    /// Takes the slopes from `alpha`, which must hold one value per channel (shape `[..., 1, C]`).
    public init(alpha: Tensor, kernels: KernelChoice = .fastest) throws(TensorError) {
        guard let c = alpha.shape.dims.last, c > 0, alpha.shape.count == c else {
            throw .shapeMismatch("PRELU needs one slope per channel ([..., 1, C]), got \(alpha.shape)")
        }
        channels = c
        self.kernels = kernels
        slopes = AlignedBuffer(alpha.scalars, padding: kernelSlack)
    }

    /// The slope of channel `c`.
    public func slope(_ c: Int) -> Float { slopes.pointer[c] }

    /// The input's shape, unchanged; its innermost axis must have `channels` values.
    public func outputShapes(for inputs: [Shape]) throws(TensorError) -> [Shape] {
        try requireInputs(inputs, 1, "PRELU")
        guard inputs[0].dims.last == channels else {
            throw .shapeMismatch("PRELU has \(channels) slopes for input \(inputs[0])")
        }
        return inputs
    }

    /// Binds the 8-wide kernel over pixels, or the reference loop with `.reference`.
    public func bind(inputs: [UnsafePointer<Float>], shapes: [Shape],
                     outputs: [UnsafeMutablePointer<Float>]) throws(TensorError) -> BoundWork {
        let count = try outputShapes(for: shapes)[0].count
        let (x, y, c, slopes) = (inputs[0], outputs[0], channels, slopes)
        if kernels == .fastest {
            return BoundWork(units: count / c, costPerUnit: c) { r in
                f32PReLU8(x, pixels: r, slopes: slopes.pointer, channels: c, output: y)
            }
        }
        return BoundWork(cost: count) { f32PReLUReference(x, count: count, slopes: slopes.pointer, channels: c, output: y) }
    }
}

/// A weight tensor read as a runtime value (a constant operand of arithmetic or concatenation),
/// copied into its planned buffer on each run.
public struct ConstantValue: TensorOperator {
    /// The value the operator outputs.
    public let tensor: Tensor
    /// An operator with no inputs whose output is `tensor`.
    public init(_ tensor: Tensor) { self.tensor = tensor }

    /// The tensor's shape; the operator takes no inputs.
    public func outputShapes(for inputs: [Shape]) throws(TensorError) -> [Shape] {
        try requireInputs(inputs, 0, "CONSTANT")
        return [tensor.shape]
    }

    /// Binds a copy of the tensor's values into the output buffer.
    public func bind(inputs: [UnsafePointer<Float>], shapes: [Shape],
                     outputs: [UnsafeMutablePointer<Float>]) throws(TensorError) -> BoundWork {
        let (values, y) = (tensor.scalars, outputs[0])
        return BoundWork(cost: values.count) { y.update(from: values, count: values.count) }
    }
}
