/// How an operator pads its input, in TFLite's terms.
public enum Padding: String, Sendable, Hashable {
    /// Output size `ceil(in / stride)`; the missing rows and columns are split, the extra one after.
    case same
    /// No padding: output size `ceil((in - kernel + 1) / stride)`.
    case valid

    /// Output length and leading pad along one axis (TFLite's `ComputePaddingHeightWidth`).
    public func outputSize(input: Int, kernel: Int, stride: Int, dilation: Int = 1) -> (size: Int, padBefore: Int) {
        let effective = (kernel - 1) * dilation + 1
        switch self {
        case .same:
            let out = (input + stride - 1) / stride
            let total = max((out - 1) * stride + effective - input, 0)
            return (out, total / 2)
        case .valid:
            return (max((input - effective + stride) / stride, 0), 0)
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
