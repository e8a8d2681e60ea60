// Bilinear resampling, eight channels at a time.

/// One output pixel of RESIZE_BILINEAR from its four source pixels, TFLite's reference
/// arithmetic: `p00·(1-dy)·(1-dx) + p10·dy·(1-dx) + p01·(1-dy)·dx + p11·dy·dx`, left to right;
/// then plus `addend` (a fused ADD) and `activation`. Eight channels at a time, the same
/// operations per lane.
@inline(__always)
func f32ResizeBilinearPixelSIMD8(_ p00: UnsafePointer<Float>, _ p10: UnsafePointer<Float>, _ p01: UnsafePointer<Float>,
                            _ p11: UnsafePointer<Float>, dy: Float, dx: Float, channels: Int,
                            addend: UnsafePointer<Float>?, activation: Activation, output: UnsafeMutablePointer<Float>) {
    let (ny, nx) = (1 - dy, 1 - dx)
    var c = 0
    while c &+ 8 <= channels {
        var v = load8(p00 + c) * ny * nx + load8(p10 + c) * dy * nx + load8(p01 + c) * ny * dx + load8(p11 + c) * dy * dx
        if let addend { v = v + load8(addend + c) }
        store8(activation.apply(v), output + c)
        c &+= 8
    }
    while c < channels {
        var v = p00[c] * ny * nx + p10[c] * dy * nx + p01[c] * ny * dx + p11[c] * dy * dx
        if let addend { v = v + addend[c] }
        output[c] = activation.apply(v)
        c &+= 1
    }
}
