/// How an operator pads its input: TFLite's SAME and VALID, or explicit zero rows and columns
/// (a PAD folded into the operator that consumed it).
public enum Padding: Sendable, Hashable {
    /// Output size `ceil(in / stride)`; the missing rows and columns are split, the extra one after.
    case same
    /// No padding: output size `ceil((in - kernel + 1) / stride)`.
    case valid
    /// These many zero rows above and below, columns left and right, then VALID.
    case explicit(top: Int, bottom: Int, left: Int, right: Int)

    /// Output length and leading pad along height (`vertical`) or width (TFLite's
    /// `ComputePaddingHeightWidth` for SAME and VALID).
    public func outputSize(input: Int, kernel: Int, stride: Int, dilation: Int = 1, vertical: Bool = true) -> (size: Int, padBefore: Int) {
        let effective = (kernel - 1) * dilation + 1
        switch self {
        case .same:
            let out = (input + stride - 1) / stride
            let total = max((out - 1) * stride + effective - input, 0)
            return (out, total / 2)
        case .valid:
            return (max((input - effective + stride) / stride, 0), 0)
        case .explicit(let top, let bottom, let left, let right):
            let (before, after) = vertical ? (top, bottom) : (left, right)
            let padded = input + before + after
            return (padded >= effective ? (padded - effective) / stride + 1 : 0, before)
        }
    }

    /// True when no tap can fall outside the input (1x1 kernels need this to run as a GEMM).
    public var isNone: Bool {
        switch self {
        case .valid: true
        case .explicit(let t, let b, let l, let r): t == 0 && b == 0 && l == 0 && r == 0
        case .same: false
        }
    }
}

/// An activation fused into the operator that produces a value.
public enum Activation: String, Sendable, Hashable {
    case none, relu, relu6

    /// TFLite's `std::max(0.f, x)` (and `std::min(6.f, ...)`): NaN maps to 0, as XNNPACK's maxps does.
    @inline(__always) func apply(_ x: Float) -> Float {
        switch self {
        case .none: x
        case .relu: x > 0 ? x : 0
        case .relu6: x > 0 ? (x < 6 ? x : 6) : 0
        }
    }
}
