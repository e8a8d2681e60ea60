import CVectorMath

// Elementwise microkernels: PReLU (the landmark network's activation), the unary functions, the
// broadcasting binary arithmetic and row sums of the blendshape MLP-mixer's layer norms. Each
// has a reference loop; PReLU, the binary arithmetic and the row sums also have a faster kernel
// tested equal to it bit for bit.

/// The binary arithmetic TFLite's ADD, SUB, MUL, DIV and SQUARED_DIFFERENCE compute.
public enum BinaryKind: String, Sendable, Hashable {
    case add, subtract, multiply, divide, squaredDifference

    @inline(__always) func apply(_ a: Float, _ b: Float) -> Float {
        switch self {
        case .add: a + b
        case .subtract: a - b
        case .multiply: a * b
        case .divide: a / b
        case .squaredDifference: (a - b) * (a - b)
        }
    }
}

/// The unary functions of TFLite's LOGISTIC, NEG, SQRT and RSQRT.
public enum UnaryKind: String, Sendable, Hashable {
    case logistic, negate, squareRoot, reciprocalSquareRoot

    @inline(__always) func apply(_ x: Float) -> Float {
        switch self {
        case .logistic: 1 / (1 + (-x).exponential)
        case .negate: -x
        case .squareRoot: x.squareRoot()
        case .reciprocalSquareRoot: 1 / x.squareRoot()
        }
    }
}

extension Float {
    /// e^self through Foundation-free libm (`expf`).
    @inline(__always) var exponential: Float { bf_expf(self) }
}

/// PReLU, reference: `x >= 0 ? x : x * slope[c]` with the slope per channel (innermost axis).
func f32PReLUReference(_ x: UnsafePointer<Float>, count: Int, slopes: UnsafePointer<Float>, channels: Int,
                       output: UnsafeMutablePointer<Float>) {
    for i in 0..<count {
        let v = x[i]
        output[i] = v >= 0 ? v : v * slopes[i % channels]
    }
}

/// PReLU, 8 channels at a time: the same products and selection as the reference.
/// `slopes` holds `channels` values plus `kernelSlack`.
func f32PReLU8(_ x: UnsafePointer<Float>, pixels: Range<Int>, slopes: UnsafePointer<Float>, channels: Int,
               output: UnsafeMutablePointer<Float>) {
    for p in pixels {
        let row = x + p &* channels, out = output + p &* channels
        var c = 0
        while c &+ 8 <= channels {
            store8(prelu8(load8(row + c), load8(slopes + c)), out + c)
            c &+= 8
        }
        if c < channels {
            store8(prelu8(load8(row + c), load8(slopes + c)), out + c, count: channels &- c)
        }
    }
}

/// One vector of PReLU: negative lanes (x < 0) take x * slope.
@inline(__always) func prelu8(_ v: F8, _ slope: F8) -> F8 {
    bf_select_negative8(v, v * slope)
}

/// The same on sixteen lanes.
@inline(__always) func prelu16(_ v: F16, _ slope: F16) -> F16 {
    bf_select_negative16(v, v * slope)
}

/// Unary function, reference loop.
func f32UnaryReference(_ kind: UnaryKind, _ x: UnsafePointer<Float>, count: Int, output: UnsafeMutablePointer<Float>) {
    for i in 0..<count { output[i] = kind.apply(x[i]) }
}

/// Broadcasting binary arithmetic (NumPy rules, shapes right-aligned), reference loop: output
/// index by index, each operand read at its broadcast position (`aStrides`/`bStrides` are 0
/// on broadcast axes), then the activation.
func f32BinaryBroadcastReference(
    _ kind: BinaryKind, _ a: UnsafePointer<Float>, aStrides: [Int], _ b: UnsafePointer<Float>, bStrides: [Int],
    outputDims: [Int], activation: Activation, output: UnsafeMutablePointer<Float>
) {
    let rank = outputDims.count
    let count = outputDims.reduce(1, *)
    var index = [Int](repeating: 0, count: rank)
    for o in 0..<count {
        var ia = 0, ib = 0
        for d in 0..<rank { ia += index[d] * aStrides[d]; ib += index[d] * bStrides[d] }
        output[o] = activation.apply(kind.apply(a[ia], b[ib]))
        advance(&index, within: outputDims)
    }
}

/// Broadcasting binary arithmetic over `rows` of a rows x `columns` output, each operand read
/// at `row * strides.row + column * strides.column` (strides 0 where it broadcasts): the same
/// values and operations as `f32BinaryBroadcastReference`, in a plain strided loop.
func f32BinaryRowsReference(
    _ kind: BinaryKind, _ a: UnsafePointer<Float>, strides sa: (row: Int, column: Int),
    _ b: UnsafePointer<Float>, strides sb: (row: Int, column: Int), rows: Range<Int>, columns: Int,
    activation: Activation, output: UnsafeMutablePointer<Float>
) {
    @inline(__always) func loop(_ f: (Float, Float) -> Float) {
        for r in rows {
            let pa = a + r &* sa.row, pb = b + r &* sb.row, py = output + r &* columns
            for c in 0..<columns { py[c] = activation.apply(f(pa[c &* sa.column], pb[c &* sb.column])) }
        }
    }
    switch kind {
    case .add: loop { $0 + $1 }
    case .subtract: loop { $0 - $1 }
    case .multiply: loop { $0 * $1 }
    case .divide: loop { $0 / $1 }
    case .squaredDifference: loop { ($0 - $1) * ($0 - $1) }
    }
}

/// Broadcasting binary arithmetic over `rows` of a rows x `columns` output, 8 columns at a time,
/// without activation. Each operand is a full row (column stride 1) or one value per row (column
/// stride 0, splatted): the values and the one IEEE operation per element of
/// `f32BinaryRowsReference`, so the same floats. Never reads past a row's `columns`.
func f32BinaryRows8(
    _ kind: BinaryKind, _ a: UnsafePointer<Float>, strides sa: (row: Int, column: Int),
    _ b: UnsafePointer<Float>, strides sb: (row: Int, column: Int), rows: Range<Int>, columns: Int,
    output: UnsafeMutablePointer<Float>
) {
    precondition((0...1).contains(sa.column) && (0...1).contains(sb.column), "column strides are 0 or 1")
    switch kind {
    case .add: binaryRows8(a, sa, b, sb, rows, columns, output) { $0 + $1 }
    case .subtract: binaryRows8(a, sa, b, sb, rows, columns, output) { $0 - $1 }
    case .multiply: binaryRows8(a, sa, b, sb, rows, columns, output) { $0 * $1 }
    case .divide: binaryRows8(a, sa, b, sb, rows, columns, output) { $0 / $1 }
    case .squaredDifference: binaryRows8(a, sa, b, sb, rows, columns, output) { let d = $0 - $1; return d * d }
    }
}

/// The loops of `f32BinaryRows8` for one operation: one specialisation per pair of column strides.
@inline(__always) func binaryRows8(
    _ a: UnsafePointer<Float>, _ sa: (row: Int, column: Int), _ b: UnsafePointer<Float>, _ sb: (row: Int, column: Int),
    _ rows: Range<Int>, _ columns: Int, _ output: UnsafeMutablePointer<Float>, _ f: (F8, F8) -> F8
) {
    for r in rows {
        let pa = a + r &* sa.row, pb = b + r &* sb.row, py = output + r &* columns
        switch (sa.column, sb.column) {
        case (1, 1): row8(columns, py) { c, n in f(load8(pa + c, count: n), load8(pb + c, count: n)) }
        case (1, _):
            let vb = F8(repeating: pb[0])
            row8(columns, py) { c, n in f(load8(pa + c, count: n), vb) }
        case (_, 1):
            let va = F8(repeating: pa[0])
            row8(columns, py) { c, n in f(va, load8(pb + c, count: n)) }
        default:
            let v = f(F8(repeating: pa[0]), F8(repeating: pb[0]))
            row8(columns, py) { _, _ in v }
        }
    }
}

/// Stores `value(c, n)` (lanes 0..<n: columns c..<c+n) over one row of `columns`, 8 at a time.
@inline(__always) func row8(_ columns: Int, _ y: UnsafeMutablePointer<Float>, _ value: (Int, Int) -> F8) {
    var c = 0
    while c &+ 8 <= columns {
        store8(value(c, 8), y + c)
        c &+= 8
    }
    if c < columns { store8(value(c, columns &- c), y + c, count: columns &- c) }
}

/// The sum of each of `rows` runs of `length` floats (row `r` at `x + r * length`), added in
/// index order from 0, divided by `length` if `mean`: the reference reduction's loop.
func f32SumRowsReference(_ x: UnsafePointer<Float>, rows: Range<Int>, length n: Int, mean: Bool,
                         output: UnsafeMutablePointer<Float>) {
    for o in rows {
        let row = x + o &* n
        var s: Float = 0
        for i in 0..<n { s += row[i] }
        output[o] = mean ? s / Float(n) : s
    }
}

/// `f32SumRowsReference` eight rows at a time, a row per lane: each 8x8 block is transposed and
/// its columns added in order, so each row is still summed one float after the other from 0
/// (the same floats). A short last block adds +0 in the missing columns, which leaves any sum
/// unchanged (a sum from +0 is never -0); the rows past the last eight run the reference loop.
func f32SumRows8(_ x: UnsafePointer<Float>, rows: Range<Int>, length n: Int, mean: Bool,
                 output: UnsafeMutablePointer<Float>) {
    var o = rows.lowerBound
    while o &+ 8 <= rows.upperBound {
        let p = x + o &* n
        var sums = F8()
        var c = 0
        while c &+ 8 <= n {
            @inline(__always) func row(_ i: Int) -> F8 { load8(p + (i &* n &+ c)) }
            sums = bf_add_columns8x8(sums, row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7))
            c &+= 8
        }
        if c < n { sums = addColumns8(sums, p + c, stride: n, count: n &- c) }
        store8(mean ? sums / F8(repeating: Float(n)) : sums, output + o)
        o &+= 8
    }
    f32SumRowsReference(x, rows: o..<rows.upperBound, length: n, mean: mean, output: output)
}

/// `sum` plus the first `count` (< 8) floats of eight rows `stride` apart, in column order.
@inline(never) func addColumns8(_ sum: F8, _ p: UnsafePointer<Float>, stride: Int, count: Int) -> F8 {
    @inline(__always) func row(_ i: Int) -> F8 { load8(p + i &* stride, count: count) }
    return bf_add_columns8x8(sum, row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7))
}

/// Sums over the middle axis of `x` seen as `outer` x `length` x `inner`: output `o * inner + i`
/// adds its `length` floats in index order from 0 (the general reduction's order, so the same
/// floats), then divides by `length` if `mean`.
func f32SumAxisRuns(_ x: UnsafePointer<Float>, outer: Int, length n: Int, inner: Int, mean: Bool,
                    output: UnsafeMutablePointer<Float>) {
    for o in 0..<outer {
        let y = output + o &* inner
        y.update(repeating: 0, count: inner)
        for r in 0..<n {
            let row = x + (o &* n &+ r) &* inner
            for i in 0..<inner { y[i] += row[i] }
        }
        if mean { for i in 0..<inner { y[i] = y[i] / Float(n) } }
    }
}

/// Layer normalisation over rows of `length` floats with scale `gamma` and no offset, as the
/// blendshape model's MLP-mixer spells it in ten TFLite operators (see `LayerNorm`), each
/// step the float operation of its own operator, in its order: per row, `mean` = MEAN(x),
/// `variance` = MEAN((x - mean)²), `inverse` = RSQRT(variance + epsilon), and per channel
/// `s = inverse * gamma[c]`, `y = x * s + (-mean) * s`. Reference: one row at a time.
func f32LayerNormRowsReference(_ x: UnsafePointer<Float>, rows: Range<Int>, length n: Int, epsilon: Float,
                               gamma: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>) {
    for r in rows {
        let row = x + r &* n, out = output + r &* n
        var sum: Float = 0
        for i in 0..<n { sum += row[i] }
        let mean = sum / Float(n)
        var squares: Float = 0
        for i in 0..<n { squares += BinaryKind.squaredDifference.apply(row[i], mean) }
        let inverse = UnaryKind.reciprocalSquareRoot.apply(squares / Float(n) + epsilon)
        let negatedMean = UnaryKind.negate.apply(mean)
        for c in 0..<n {
            let s = inverse * gamma[c]
            out[c] = row[c] * s + negatedMean * s
        }
    }
}

/// `f32LayerNormRowsReference` eight rows at a time: the two means by `f32SumRows8` (the MEAN
/// operator's kernel: the same sums), the squared differences of the block in `scratch`
/// (`8 * length` floats), the rest eight channels per vector, with the same operations per lane.
func f32LayerNormRows8(_ x: UnsafePointer<Float>, rows: Range<Int>, length n: Int, epsilon: Float,
                       gamma: UnsafePointer<Float>, scratch: UnsafeMutablePointer<Float>,
                       output: UnsafeMutablePointer<Float>) {
    withUnsafeTemporaryAllocation(of: Float.self, capacity: 16) { stats in
        let means = stats.baseAddress!, variances = means + 8
        var r = rows.lowerBound
        while r < rows.upperBound {
            let block = min(8, rows.upperBound &- r)
            let x0 = x + r &* n
            f32SumRows8(x0, rows: 0..<block, length: n, mean: true, output: means)
            for i in 0..<block {
                let row = x0 + i &* n, squares = scratch + i &* n, mean = F8(repeating: means[i])
                row8(n, squares) { c, count in
                    let d = load8(row + c, count: count) - mean
                    return d * d
                }
            }
            f32SumRows8(scratch, rows: 0..<block, length: n, mean: true, output: variances)
            for i in 0..<block {
                let row = x0 + i &* n
                let inverse = F8(repeating: UnaryKind.reciprocalSquareRoot.apply(variances[i] + epsilon))
                let negatedMean = F8(repeating: UnaryKind.negate.apply(means[i]))
                row8(n, output + (r &+ i) &* n) { c, count in
                    let s = inverse * load8(gamma + c)
                    return load8(row + c, count: count) * s + negatedMean * s
                }
            }
            r &+= block
        }
    }
}
