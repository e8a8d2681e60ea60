// Reference microkernels: plain loops, one per operator, the ground truth every faster
// kernel is tested against. Names follow XNNPACK's scheme: data type, operation, variant.
// Each takes raw pointers and a geometry; the operators in ../Operators own shapes and packing.
//
// Accumulation order is part of the contract. TFLite runs these models through XNNPACK,
// whose x86 kernels start each accumulator at the bias and add every product with one fused
// multiply-add, taps in a fixed order. The kernels here do the same, so their sums match
// XNNPACK's bit for bit rather than to a tolerance (`addingProduct` is IEEE fma: exact on any
// CPU, one instruction where the build targets FMA).

/// Convolution, NHWC input, weights packed HWIO (`[kh][kw][ic][oc]`), bias per output channel.
/// Sum order as XNNPACK's IGEMM: bias, then kernel rows, columns and input channels in turn
/// (padding taps add fma(0, w) = nothing, so they are skipped).
func f32Conv2DReference(
    _ g: WindowGeometry, input: UnsafePointer<Float>, weightsHWIO: UnsafePointer<Float>,
    bias: UnsafePointer<Float>, activation: Activation, output: UnsafeMutablePointer<Float>
) {
    let ic = g.input.c, oc = g.output.c
    g.forEachOutputPixel { out, rows, columns, tap in
        let acc = output + out
        acc.update(from: bias, count: oc)
        for ky in rows {
            for kx in columns {
                let pixel = input + tap(ky, kx)
                let taps = weightsHWIO + (ky * g.kernelW + kx) * ic * oc
                for i in 0..<ic {
                    let v = pixel[i]
                    let w = taps + i * oc
                    for o in 0..<oc { acc[o] = acc[o].addingProduct(v, w[o]) }
                }
            }
        }
        for o in 0..<oc { acc[o] = activation.apply(acc[o]) }
    }
}

/// Depthwise convolution with depth multiplier 1, weights packed HWC (`[kh][kw][c]`).
/// Sum order as XNNPACK's dwconv: bias, then taps column by column (its indirection buffer is
/// column-major), each tap one fma.
func f32DepthwiseConv2DReference(
    _ g: WindowGeometry, input: UnsafePointer<Float>, weightsHWC: UnsafePointer<Float>,
    bias: UnsafePointer<Float>, activation: Activation, output: UnsafeMutablePointer<Float>
) {
    let c = g.input.c
    g.forEachOutputPixel { out, rows, columns, tap in
        let acc = output + out
        acc.update(from: bias, count: c)
        for kx in columns {
            for ky in rows {
                let pixel = input + tap(ky, kx)
                let w = weightsHWC + (ky * g.kernelW + kx) * c
                for i in 0..<c { acc[i] = acc[i].addingProduct(pixel[i], w[i]) }
            }
        }
        for i in 0..<c { acc[i] = activation.apply(acc[i]) }
    }
}

/// Max pooling over the taps inside the input (TFLite ignores padding taps).
func f32MaxPool2DReference(
    _ g: WindowGeometry, input: UnsafePointer<Float>, activation: Activation,
    output: UnsafeMutablePointer<Float>
) {
    let c = g.input.c
    g.forEachOutputPixel { out, rows, columns, tap in
        let result = output + out
        result.update(repeating: -.infinity, count: c)
        for ky in rows {
            for kx in columns {
                let pixel = input + tap(ky, kx)
                for i in 0..<c { result[i] = max(result[i], pixel[i]) }
            }
        }
        for i in 0..<c { result[i] = activation.apply(result[i]) }
    }
}

/// Elementwise `a + b` over `count` values, then the activation.
func f32AddReference(
    _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int,
    activation: Activation, output: UnsafeMutablePointer<Float>
) {
    for i in 0..<count { output[i] = activation.apply(a[i] + b[i]) }
}

/// Elementwise ReLU (TFLite's `max(0, x)`).
func f32ReLUReference(_ x: UnsafePointer<Float>, count: Int, output: UnsafeMutablePointer<Float>) {
    for i in 0..<count { output[i] = Activation.relu.apply(x[i]) }
}

/// Zero padding of a rank-4 tensor: `before` and `after` give the pad per axis.
func f32PadReference(
    input: UnsafePointer<Float>, shape: NHWC, before: [Int], output: UnsafeMutablePointer<Float>, outShape: NHWC
) {
    output.update(repeating: 0, count: outShape.count)
    for n in 0..<shape.n {
        for y in 0..<shape.h {
            for x in 0..<shape.w {
                let src = input + ((n * shape.h + y) * shape.w + x) * shape.c
                let dst = output + (((n + before[0]) * outShape.h + y + before[1]) * outShape.w + x + before[2]) * outShape.c + before[3]
                dst.update(from: src, count: shape.c)
            }
        }
    }
}

/// Concatenation along one axis: `outer` blocks, each the inputs' `inner` runs in order.
func f32ConcatenateReference(
    inputs: [(pointer: UnsafePointer<Float>, inner: Int)], outer: Int, output: UnsafeMutablePointer<Float>
) {
    var dst = output
    for o in 0..<outer {
        for (pointer, inner) in inputs {
            dst.update(from: pointer + o * inner, count: inner)
            dst += inner
        }
    }
}

/// `output = activation(output + skip)` in place, the skip zero past its channels and, when
/// `pooled`, max-pooled 2x2 with stride 2 (a fused residual, spelled out).
func f32AddResidualReference(
    output: UnsafeMutablePointer<Float>, shape: NHWC, skip: UnsafePointer<Float>, skipShape: NHWC,
    pooled: Bool, activation: Activation
) {
    for n in 0..<shape.n {
        for y in 0..<shape.h {
            for x in 0..<shape.w {
                let out = output + ((n * shape.h + y) * shape.w + x) * shape.c
                for c in 0..<shape.c {
                    var s: Float = 0
                    if c < skipShape.c {
                        func at(_ sy: Int, _ sx: Int) -> Float { skip[((n * skipShape.h + sy) * skipShape.w + sx) * skipShape.c + c] }
                        s = pooled ? max(max(at(2 * y, 2 * x), at(2 * y, 2 * x + 1)), max(at(2 * y + 1, 2 * x), at(2 * y + 1, 2 * x + 1)))
                            : at(y, x)
                    }
                    out[c] = activation.apply(out[c] + s)
                }
            }
        }
    }
}

/// The next index of a row-major walk over `dims` (the last axis fastest): the odometer step
/// of the reference loops that visit a tensor index by index. Past the last index it wraps to 0.
@inline(__always)
func advance(_ index: inout [Int], within dims: [Int]) {
    var d = dims.count - 1
    while d >= 0 {
        index[d] += 1
        if index[d] < dims[d] { return }
        index[d] = 0
        d -= 1
    }
}

/// Transposed convolution with kernel == stride (no overlap), weights OHWI: output pixel
/// (y*kh+ky, x*kw+kx) is bias, then one fma per input channel in order with tap (ky, kx).
func f32TransposeConv2DReference(
    input: UnsafePointer<Float>, shape x: NHWC, weightsOHWI: UnsafePointer<Float>, bias: UnsafePointer<Float>,
    kernelH kh: Int, kernelW kw: Int, outputChannels oc: Int, activation: Activation, output: UnsafeMutablePointer<Float>
) {
    let (oh, ow) = (x.h * kh, x.w * kw)
    for n in 0..<x.n {
        for y in 0..<x.h {
            for xx in 0..<x.w {
                let pixel = input + ((n * x.h + y) * x.w + xx) * x.c
                for ky in 0..<kh {
                    for kx in 0..<kw {
                        let out = output + ((n * oh + y * kh + ky) * ow + xx * kw + kx) * oc
                        for o in 0..<oc {
                            var acc = bias[o]
                            let w = weightsOHWI + ((o * kh + ky) * kw + kx) * x.c
                            for i in 0..<x.c { acc = acc.addingProduct(pixel[i], w[i]) }
                            out[o] = activation.apply(acc)
                        }
                    }
                }
            }
        }
    }
}
