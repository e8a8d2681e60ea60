import CVectorFMA

// Elementwise microkernels: PReLU (the landmark network's activation), the unary functions and
// the broadcasting binary arithmetic of the blendshape MLP-mixer. Each has a reference loop;
// PReLU, the only one on a hot path, also has an 8-wide SIMD kernel tested equal to it.

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
public func f32PReLUReference(_ x: UnsafePointer<Float>, count: Int, slopes: UnsafePointer<Float>, channels: Int,
                              output: UnsafeMutablePointer<Float>) {
    for i in 0..<count {
        let v = x[i]
        output[i] = v >= 0 ? v : v * slopes[i % channels]
    }
}

/// PReLU, 8 channels at a time: the same products and selection as the reference.
/// `slopes` holds `channels` values plus `kernelSlack`.
public func f32PReLU8(_ x: UnsafePointer<Float>, pixels: Range<Int>, slopes: UnsafePointer<Float>, channels: Int,
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

/// Unary function, reference loop.
public func f32UnaryReference(_ kind: UnaryKind, _ x: UnsafePointer<Float>, count: Int, output: UnsafeMutablePointer<Float>) {
    for i in 0..<count { output[i] = kind.apply(x[i]) }
}

/// Broadcasting binary arithmetic (NumPy rules, shapes right-aligned), reference loop: output
/// index by index, each operand read at its broadcast position (`aStrides`/`bStrides` are 0
/// on broadcast axes), then the activation.
public func f32BinaryBroadcastReference(
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
public func f32BinaryRowsReference(
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
