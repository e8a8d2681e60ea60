// Depthwise 3x3 convolution, SIMD over channels: for each block of 8 channels the nine taps
// stay in registers while the kernel walks the output pixels. Taps are summed column by
// column with fma, the reference kernel's (and XNNPACK's) order. Interior pixels take a
// branch-free path (two at a time at stride 1, sharing two of their three input columns);
// border pixels skip the taps outside the input.

/// Depthwise weights packed once: per block of 8 channels, the bias then the 3x3 taps in
/// column-major order (kx outer, ky inner), zero-padded to a multiple of 8 channels; then a
/// zero vector, which taps outside the input read (as XNNPACK's indirection buffer does).
public struct PackedDepthwise3x3Weights: Sendable {
    public let channels: Int
    let data: [Float]

    /// - Parameters: `weightsHWC` is `[3][3][channels]`, `bias` has `channels` values.
    public init(weightsHWC: [Float], bias: [Float], channels: Int) {
        var data: [Float] = []
        for block in stride(from: 0, to: channels, by: 8) {
            for i in 0..<8 { data.append(block + i < channels ? bias[block + i] : 0) }
            for kx in 0..<3 {
                for ky in 0..<3 {
                    for i in 0..<8 { data.append(block + i < channels ? weightsHWC[(ky * 3 + kx) * channels + block + i] : 0) }
                }
            }
        }
        data += [Float](repeating: 0, count: 16)   // the zero vector border taps read
        self.channels = channels
        self.data = data
    }
}

/// Output rows `rows` of a 3x3 depthwise convolution (any stride, any padding).
/// Reads may run up to 7 floats past a pixel's channels: input buffers carry that slack.
/// `zeroRow` holds at least `(input width + 3) * channels + 8` zeros: kernel rows above or
/// below the input read it, so only the edge columns need the border path.
public func f32Depthwise3x3FMA(
    _ g: WindowGeometry, rows: Range<Int>, input: UnsafePointer<Float>, weights: PackedDepthwise3x3Weights,
    activation: Activation, zeroRow: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>
) {
    let c = g.input.c, iw = g.input.w, ow = g.output.w, sw = g.strideW
    // Output columns whose three input columns are all inside the input.
    let firstInside = (g.padLeft + sw - 1) / sw
    let lastInside = iw - 3 + g.padLeft >= 0 ? (iw - 3 + g.padLeft) / sw : -1   // inclusive
    let interior = firstInside..<max(firstInside, min(ow, lastInside + 1))
    weights.data.withUnsafeBufferPointer { packed in
        let zero = packed.baseAddress! + packed.count - 16
        // Rows outermost, channel blocks inside: the three input rows a row needs stay in cache
        // while every block uses them (blocks outermost would stream a large input once per block).
        for n in 0..<g.input.n {
            for oy in rows {
                for block in stride(from: 0, to: c, by: 8) {
                    let w = packed.baseAddress! + (block / 8) * 80
                    let lanes = min(8, c - block)
                    let plain = lanes == 8 && activation == .none   // store the sum as it is
                    let bias = load8(w)
                    let k00 = load8(w + 8), k10 = load8(w + 16), k20 = load8(w + 24)
                    let k01 = load8(w + 32), k11 = load8(w + 40), k21 = load8(w + 48)
                    let k02 = load8(w + 56), k12 = load8(w + 64), k22 = load8(w + 72)
                    let image = input + (n * g.input.h * iw * c + block)
                    let out = output + (n * g.output.h * ow * c + block)
                    let zeros = zeroRow + block
                    let iy0 = oy * g.strideH - g.padTop
                    let outRow = out + oy * ow * c
                    guard !interior.isEmpty else {
                        for ox in 0..<ow { put(borderPixel(g, image, oy, ox, w, bias, zero), outRow + ox * c, activation, lanes) }
                        continue
                    }
                    for ox in 0..<interior.lowerBound { put(borderPixel(g, image, oy, ox, w, bias, zero), outRow + ox * c, activation, lanes) }
                    // Kernel rows outside the input read zeros: fma(0, w) adds nothing.
                    @inline(__always) func row(_ iy: Int) -> UnsafePointer<Float> {
                        iy >= 0 && iy < g.input.h ? image + iy * iw * c : zeros
                    }
                    let r0 = row(iy0), r1 = row(iy0 + 1), r2 = row(iy0 + 2)
                    var ox = interior.lowerBound
                    if sw == 1 {
                        while ox &+ 2 <= interior.upperBound {
                            let col = (ox - g.padLeft) &* c
                            let a0 = load8(r0 + col), a1 = load8(r1 + col), a2 = load8(r2 + col)
                            let b0 = load8(r0 + col + c), b1 = load8(r1 + col + c), b2 = load8(r2 + col + c)
                            var p = bias.fma(a0, k00), q = bias.fma(b0, k00)
                            p = p.fma(a1, k10); q = q.fma(b1, k10)
                            p = p.fma(a2, k20); q = q.fma(b2, k20)
                            let c0 = load8(r0 + col + 2 * c), c1 = load8(r1 + col + 2 * c), c2 = load8(r2 + col + 2 * c)
                            p = p.fma(b0, k01); q = q.fma(c0, k01)
                            p = p.fma(b1, k11); q = q.fma(c1, k11)
                            p = p.fma(b2, k21); q = q.fma(c2, k21)
                            let d0 = load8(r0 + col + 3 * c), d1 = load8(r1 + col + 3 * c), d2 = load8(r2 + col + 3 * c)
                            p = p.fma(c0, k02); q = q.fma(d0, k02)
                            p = p.fma(c1, k12); q = q.fma(d1, k12)
                            p = p.fma(c2, k22); q = q.fma(d2, k22)
                            if plain {
                                store8(p, outRow + ox &* c); store8(q, outRow + (ox &+ 1) &* c)
                            } else {
                                put(p, outRow + ox &* c, activation, lanes); put(q, outRow + (ox &+ 1) &* c, activation, lanes)
                            }
                            ox &+= 2
                        }
                    }
                    while ox < interior.upperBound {
                        let col = (ox &* sw &- g.padLeft) &* c
                        var acc = bias.fma(load8(r0 + col), k00)
                        acc = acc.fma(load8(r1 + col), k10)
                        acc = acc.fma(load8(r2 + col), k20)
                        acc = acc.fma(load8(r0 + col + c), k01)
                        acc = acc.fma(load8(r1 + col + c), k11)
                        acc = acc.fma(load8(r2 + col + c), k21)
                        acc = acc.fma(load8(r0 + col + 2 * c), k02)
                        acc = acc.fma(load8(r1 + col + 2 * c), k12)
                        acc = acc.fma(load8(r2 + col + 2 * c), k22)
                        if plain { store8(acc, outRow + ox &* c) } else { put(acc, outRow + ox &* c, activation, lanes) }
                        ox &+= 1
                    }
                    for ox in interior.upperBound..<ow { put(borderPixel(g, image, oy, ox, w, bias, zero), outRow + ox * c, activation, lanes) }
                }
            }
        }
    }
}

/// Applies the activation and stores `lanes` channels.
private func put(_ acc: F8, _ dst: UnsafeMutablePointer<Float>, _ activation: Activation, _ lanes: Int) {
    let v = activation.apply(acc)
    if lanes == 8 { store8(v, dst) } else { store8(v, dst, count: lanes) }
}

/// One output pixel near the border: taps outside the input read a zero vector, and adding
/// fma(0, w) leaves the sum as it was, so this equals skipping them.
@inline(never)
private func borderPixel(_ g: WindowGeometry, _ image: UnsafePointer<Float>, _ oy: Int, _ ox: Int,
                         _ w: UnsafePointer<Float>, _ bias: F8, _ zero: UnsafePointer<Float>) -> F8 {
    let c = g.input.c, iw = g.input.w, ih = g.input.h
    let iy0 = oy * g.strideH - g.padTop, ix0 = ox * g.strideW - g.padLeft
    @inline(__always) func tap(_ ky: Int, _ kx: Int) -> F8 {
        let y = iy0 &+ ky, x = ix0 &+ kx
        return load8(y >= 0 && y < ih && x >= 0 && x < iw ? image + (y &* iw &+ x) &* c : zero)
    }
    var acc = bias.fma(tap(0, 0), load8(w + 8))
    acc = acc.fma(tap(1, 0), load8(w + 16))
    acc = acc.fma(tap(2, 0), load8(w + 24))
    acc = acc.fma(tap(0, 1), load8(w + 32))
    acc = acc.fma(tap(1, 1), load8(w + 40))
    acc = acc.fma(tap(2, 1), load8(w + 48))
    acc = acc.fma(tap(0, 2), load8(w + 56))
    acc = acc.fma(tap(1, 2), load8(w + 64))
    return acc.fma(tap(2, 2), load8(w + 72))
}
