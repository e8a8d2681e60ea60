// A kxk convolution as a GEMM whose rows are gathered from the input window without a copy
// (for an NHWC image, a window row of kw pixels x ic channels is contiguous). Tiles of 2 output
// pixels x 32 channels, 6 x 16, 4 x 24 or 4 x 8 (on AVX-512, 8 x 24 or 8 x 32); window taps
// outside the input are skipped per pixel at the borders. Sum order: bias, then kernel row,
// column and input channel, with fma. A folded PRELU is applied as each tile is stored (the
// pointwise GEMM's epilogue).

/// Output rows `rows` of a convolution with weights packed as `PackedPointwiseWeights` whose
/// "input channels" are the kh*kw*ic taps in HWIO order; `slopes`, if any, is a PRELU applied
/// after the activation (one slope per output channel, plus `kernelSlack`).
func f32Conv2DDirectFMA(
    _ g: WindowGeometry, rows: Range<Int>, input: UnsafePointer<Float>, weights: PackedPointwiseWeights,
    activation: Activation, slopes: UnsafePointer<Float>? = nil, output: UnsafeMutablePointer<Float>
) {
    weights.withView { weights in
        PointwiseEpilogue(activation: activation, slopes: slopes)
            .dispatch(Direct(g: g, rows: rows, input: input, weights: weights, output: output))
    }
}

private struct Direct: EpilogueGenericBody {
    let g: WindowGeometry, rows: Range<Int>, input: UnsafePointer<Float>, weights: PackedPointwiseWeights.View
    let output: UnsafeMutablePointer<Float>

    func run<E: TileEpilogue>(_ epilogue: E) { direct(g, rows, input, weights, epilogue, output) }
}

@inline(__always)
private func direct<E: TileEpilogue>(_ g: WindowGeometry, _ rows: Range<Int>, _ input: UnsafePointer<Float>,
                                     _ weights: PackedPointwiseWeights.View, _ epilogue: E,
                                     _ output: UnsafeMutablePointer<Float>) {
    // The networks' first layers (RGB in, a 3x3 or 5x5 window) with the window's shape as
    // constants, so that the tiles' tap loops unroll fully (no loop overhead between FMAs).
    switch (g.kernelH, g.kernelW, g.input.c) {
    case (3, 3, 3): direct(g, rows, input, weights, epilogue, output, RGBWindow3x3())
    case (5, 5, 3): direct(g, rows, input, weights, epilogue, output, RGBWindow5x5())
    default: direct(g, rows, input, weights, epilogue, output, RuntimeWindow(kernelH: g.kernelH, rowLength: g.kernelW * g.input.c))
    }
}

/// A window's tap-loop bounds: kernel rows, and floats per kernel row (kernel width x input
/// channels). Constants for the networks' RGB first layers, so that the specialised tiles'
/// loops unroll fully; run-time values otherwise.
protocol WindowShape {
    var kernelH: Int { get }
    var rowLength: Int { get }
}

struct RuntimeWindow: WindowShape { let kernelH: Int, rowLength: Int }
struct RGBWindow3x3: WindowShape { var kernelH: Int { 3 }; var rowLength: Int { 9 } }
struct RGBWindow5x5: WindowShape { var kernelH: Int { 5 }; var rowLength: Int { 15 } }

@inline(__always)
private func direct<E: TileEpilogue, W: WindowShape>(_ g: WindowGeometry, _ rows: Range<Int>, _ input: UnsafePointer<Float>,
                                                     _ weights: PackedPointwiseWeights.View, _ epilogue: E,
                                                     _ output: UnsafeMutablePointer<Float>, _ shape: W) {
    let ic = g.input.c, oc = g.output.c, iw = g.input.w
    let kernelH = shape.kernelH, rowLength = shape.rowLength
    // Decided once, not per tile: the blocks and which tile shape they take.
    let blocks = weights.blocks
    let allWidth32 = blocks.allSatisfy { $0.width == 32 }
    let allWidth16 = blocks.allSatisfy { $0.width == 16 }
    // AVX-512: blocks of 24 and 32 channels in tiles of eight pixels, a 16-lane vector and a
    // second of 8 or 16 lanes per pixel (sixteen fma chains).
    let wideTiles = BuildTarget.hasAVX512 && blocks.allSatisfy { $0.width == 24 || $0.width == 32 }
    let packed = weights.data
    for n in 0..<g.input.n {
        let image = input + n * g.input.h * iw * ic
        let out = output + n * g.output.h * g.output.w * oc
        for oy in rows {
            let iy0 = oy * g.strideH - g.padTop
            let rowsInside = iy0 >= 0 && iy0 + g.kernelH <= g.input.h
            // Interior columns: every tap inside the input.
            let firstInside = (g.padLeft + g.strideW - 1) / g.strideW
            let lastInside = (iw - g.kernelW + g.padLeft) / g.strideW   // inclusive
            var ox = 0
            while ox < g.output.w {
                let pixel = oy * g.output.w + ox
                let window = image + (iy0 * iw + ox * g.strideW - g.padLeft) * ic
                if wideTiles && rowsInside && ox >= firstInside && ox + 7 <= lastInside {
                    for (start, width, offset) in blocks {
                        directTile8xBlock(window, g.strideW * ic, iw * ic, shape, packed + offset, width - 16, pixel, start, oc,
                                          epilogue, out)
                    }
                    ox += 8
                } else if allWidth32 && rowsInside && ox >= firstInside && ox + 1 <= lastInside {
                    for (start, _, offset) in blocks {
                        directTile2x32(window, g.strideW * ic, iw * ic, kernelH, rowLength,
                                       packed + offset, pixel, start, oc, epilogue, out)
                    }
                    ox += 2
                } else if allWidth16 && rowsInside && ox >= firstInside && ox + 5 <= lastInside {
                    for (start, _, offset) in blocks {
                        directTile6x16(window, g.strideW * ic, iw * ic, shape,
                                       packed + offset, pixel, start, oc, epilogue, out)
                    }
                    ox += 6
                } else if rowsInside && ox >= firstInside && ox + 3 <= lastInside {
                    for (start, width, offset) in blocks where width == 24 {
                        directTile4x24(window, g.strideW * ic, iw * ic, shape,
                                       packed + offset, pixel, start, oc, epilogue, out)
                    }
                    for (start, width, offset) in blocks where width != 24 {
                        directTile4(window, g.strideW * ic, iw * ic, shape,
                                    packed + offset, width, pixel, start, oc, epilogue, out)
                    }
                    ox += 4
                } else {
                    for (start, width, offset) in blocks {
                        directPixel(g, image, oy: oy, ox: ox, packed + offset, width, pixel, start, oc,
                                    epilogue, out)
                    }
                    ox += 1
                }
            }
        }
    }
}

/// Six horizontally adjacent output pixels whose windows lie inside the input, 16 channels:
/// six 16-lane accumulators, a weight vector and a broadcast (on AVX2 each is two registers,
/// filling all sixteen; on AVX-512 each is one, half the instructions).
/// Also the pointwise GEMM's main tile (a 1x1 window).
@inline(__always)
func directTile6x16<E: TileEpilogue, W: WindowShape>(_ x0: UnsafePointer<Float>, _ pixelStep: Int, _ rowStride: Int,
                                                     _ shape: W, _ w: UnsafePointer<Float>, _ p: Int, _ o: Int, _ oc: Int,
                                                     _ e: E, _ out: UnsafeMutablePointer<Float>) {
    let kh = shape.kernelH, rowLength = shape.rowLength
    let b = load16(w)
    var a0 = b, a1 = b, a2 = b, a3 = b, a4 = b, a5 = b
    var wr = w + 16
    for ky in 0..<kh {
        let r0 = x0 + ky &* rowStride, r1 = r0 + pixelStep, r2 = r1 + pixelStep
        let r3 = r2 + pixelStep, r4 = r3 + pixelStep, r5 = r4 + pixelStep
        for j in 0..<rowLength {
            let w0 = load16(wr)
            a0 = a0.fma(F16(repeating: r0[j]), w0); a1 = a1.fma(F16(repeating: r1[j]), w0)
            a2 = a2.fma(F16(repeating: r2[j]), w0); a3 = a3.fma(F16(repeating: r3[j]), w0)
            a4 = a4.fma(F16(repeating: r4[j]), w0); a5 = a5.fma(F16(repeating: r5[j]), w0)
            wr += 16
        }
    }
    storeRow(a0, pixel: p, channel: o, oc, e, out); storeRow(a1, pixel: p &+ 1, channel: o, oc, e, out)
    storeRow(a2, pixel: p &+ 2, channel: o, oc, e, out); storeRow(a3, pixel: p &+ 3, channel: o, oc, e, out)
    storeRow(a4, pixel: p &+ 4, channel: o, oc, e, out); storeRow(a5, pixel: p &+ 5, channel: o, oc, e, out)
}

/// Eight horizontally adjacent output pixels whose windows lie inside the input, one block of
/// 24 or 32 channels (its rows `16 + high` floats).
@inline(__always)
private func directTile8xBlock<E: TileEpilogue, W: WindowShape>(_ x0: UnsafePointer<Float>, _ pixelStep: Int, _ rowStride: Int,
                                                                _ shape: W, _ w: UnsafePointer<Float>, _ high: Int, _ p: Int,
                                                                _ o: Int, _ oc: Int, _ e: E, _ out: UnsafeMutablePointer<Float>) {
    if high == 16 {
        directTile8xWide(F16.self, x0, pixelStep, rowStride, shape, w, p, o, oc, e, out)
    } else {
        directTile8xWide(F8.self, x0, pixelStep, rowStride, shape, w, p, o, oc, e, out)
    }
}

/// The 8-pixel tile of a block of 16 + `V.scalarCount` channels: per pixel a 16-lane and a `V`
/// accumulator, sixteen fma chains (AVX-512), each summed as the other tiles sum: bias, then
/// the taps in order. The pointwise GEMM's `gemmTile8xPair` is the same tile with a 1x1 window.
@inline(__always)
private func directTile8xWide<V: TileVector, E: TileEpilogue, W: WindowShape>(
    _: V.Type, _ x0: UnsafePointer<Float>, _ pixelStep: Int, _ rowStride: Int, _ shape: W, _ w: UnsafePointer<Float>,
    _ p: Int, _ o: Int, _ oc: Int, _ e: E, _ out: UnsafeMutablePointer<Float>
) {
    let kh = shape.kernelH, rowLength = shape.rowLength, width = 16 &+ V.scalarCount
    let b0 = load16(w), b1 = V.load(w + 16)
    var a0 = b0, a1 = b0, a2 = b0, a3 = b0, a4 = b0, a5 = b0, a6 = b0, a7 = b0
    var c0 = b1, c1 = b1, c2 = b1, c3 = b1, c4 = b1, c5 = b1, c6 = b1, c7 = b1
    var wr = w + width
    for ky in 0..<kh {
        let r0 = x0 + ky &* rowStride
        for j in 0..<rowLength {
            let u = load16(wr), v = V.load(wr + 16)
            var x = r0[j]; a0 = a0.fma(F16(repeating: x), u); c0 = c0.fma(V(repeating: x), v)
            x = r0[pixelStep &+ j]; a1 = a1.fma(F16(repeating: x), u); c1 = c1.fma(V(repeating: x), v)
            x = r0[2 &* pixelStep &+ j]; a2 = a2.fma(F16(repeating: x), u); c2 = c2.fma(V(repeating: x), v)
            x = r0[3 &* pixelStep &+ j]; a3 = a3.fma(F16(repeating: x), u); c3 = c3.fma(V(repeating: x), v)
            x = r0[4 &* pixelStep &+ j]; a4 = a4.fma(F16(repeating: x), u); c4 = c4.fma(V(repeating: x), v)
            x = r0[5 &* pixelStep &+ j]; a5 = a5.fma(F16(repeating: x), u); c5 = c5.fma(V(repeating: x), v)
            x = r0[6 &* pixelStep &+ j]; a6 = a6.fma(F16(repeating: x), u); c6 = c6.fma(V(repeating: x), v)
            x = r0[7 &* pixelStep &+ j]; a7 = a7.fma(F16(repeating: x), u); c7 = c7.fma(V(repeating: x), v)
            wr += width
        }
    }
    let o1 = o &+ 16
    storeRow(a0, pixel: p, channel: o, oc, e, out); storeRow(c0, pixel: p, channel: o1, oc, e, out)
    storeRow(a1, pixel: p &+ 1, channel: o, oc, e, out); storeRow(c1, pixel: p &+ 1, channel: o1, oc, e, out)
    storeRow(a2, pixel: p &+ 2, channel: o, oc, e, out); storeRow(c2, pixel: p &+ 2, channel: o1, oc, e, out)
    storeRow(a3, pixel: p &+ 3, channel: o, oc, e, out); storeRow(c3, pixel: p &+ 3, channel: o1, oc, e, out)
    storeRow(a4, pixel: p &+ 4, channel: o, oc, e, out); storeRow(c4, pixel: p &+ 4, channel: o1, oc, e, out)
    storeRow(a5, pixel: p &+ 5, channel: o, oc, e, out); storeRow(c5, pixel: p &+ 5, channel: o1, oc, e, out)
    storeRow(a6, pixel: p &+ 6, channel: o, oc, e, out); storeRow(c6, pixel: p &+ 6, channel: o1, oc, e, out)
    storeRow(a7, pixel: p &+ 7, channel: o, oc, e, out); storeRow(c7, pixel: p &+ 7, channel: o1, oc, e, out)
}

/// Two horizontally adjacent output pixels whose windows lie inside the input, 32 channels:
/// eight accumulators and four weight vectors, so every step is FMA-bound.
@inline(__always)
private func directTile2x32<E: TileEpilogue>(_ x0: UnsafePointer<Float>, _ pixelStep: Int, _ rowStride: Int, _ kh: Int, _ rowLength: Int,
                            _ w: UnsafePointer<Float>, _ p: Int, _ o: Int, _ oc: Int,
                            _ e: E, _ out: UnsafeMutablePointer<Float>) {
    let b0 = load8(w), b1 = load8(w + 8), b2 = load8(w + 16), b3 = load8(w + 24)
    var a00 = b0, a01 = b1, a02 = b2, a03 = b3, a10 = b0, a11 = b1, a12 = b2, a13 = b3
    var wr = w + 32
    for ky in 0..<kh {
        let r0 = x0 + ky &* rowStride, r1 = r0 + pixelStep
        for j in 0..<rowLength {
            let w0 = load8(wr), w1 = load8(wr + 8), w2 = load8(wr + 16), w3 = load8(wr + 24)
            let v0 = F8(repeating: r0[j])
            a00 = a00.fma(v0, w0); a01 = a01.fma(v0, w1); a02 = a02.fma(v0, w2); a03 = a03.fma(v0, w3)
            let v1 = F8(repeating: r1[j])
            a10 = a10.fma(v1, w0); a11 = a11.fma(v1, w1); a12 = a12.fma(v1, w2); a13 = a13.fma(v1, w3)
            wr += 32
        }
    }
    storeRow(a00, pixel: p, channel: o, oc, e, out); storeRow(a01, pixel: p, channel: o &+ 8, oc, e, out)
    storeRow(a02, pixel: p, channel: o &+ 16, oc, e, out); storeRow(a03, pixel: p, channel: o &+ 24, oc, e, out)
    storeRow(a10, pixel: p &+ 1, channel: o, oc, e, out); storeRow(a11, pixel: p &+ 1, channel: o &+ 8, oc, e, out)
    storeRow(a12, pixel: p &+ 1, channel: o &+ 16, oc, e, out); storeRow(a13, pixel: p &+ 1, channel: o &+ 24, oc, e, out)
}

/// Four horizontally adjacent output pixels whose windows lie inside the input, 24 channels.
@inline(__always)
private func directTile4x24<E: TileEpilogue, W: WindowShape>(_ x0: UnsafePointer<Float>, _ pixelStep: Int, _ rowStride: Int,
                            _ shape: W, _ w: UnsafePointer<Float>, _ p: Int, _ o: Int, _ oc: Int,
                            _ e: E, _ out: UnsafeMutablePointer<Float>) {
    let kh = shape.kernelH, rowLength = shape.rowLength
    let b0 = load8(w), b1 = load8(w + 8), b2 = load8(w + 16)
    var a00 = b0, a01 = b1, a02 = b2, a10 = b0, a11 = b1, a12 = b2
    var a20 = b0, a21 = b1, a22 = b2, a30 = b0, a31 = b1, a32 = b2
    var wr = w + 24
    for ky in 0..<kh {
        let r0 = x0 + ky &* rowStride, r1 = r0 + pixelStep, r2 = r1 + pixelStep, r3 = r2 + pixelStep
        for j in 0..<rowLength {
            let w0 = load8(wr), w1 = load8(wr + 8), w2 = load8(wr + 16)
            let v0 = F8(repeating: r0[j])
            a00 = a00.fma(v0, w0); a01 = a01.fma(v0, w1); a02 = a02.fma(v0, w2)
            let v1 = F8(repeating: r1[j])
            a10 = a10.fma(v1, w0); a11 = a11.fma(v1, w1); a12 = a12.fma(v1, w2)
            let v2 = F8(repeating: r2[j])
            a20 = a20.fma(v2, w0); a21 = a21.fma(v2, w1); a22 = a22.fma(v2, w2)
            let v3 = F8(repeating: r3[j])
            a30 = a30.fma(v3, w0); a31 = a31.fma(v3, w1); a32 = a32.fma(v3, w2)
            wr += 24
        }
    }
    storeRow(a00, pixel: p, channel: o, oc, e, out); storeRow(a01, pixel: p, channel: o &+ 8, oc, e, out)
    storeRow(a02, pixel: p, channel: o &+ 16, oc, e, out)
    storeRow(a10, pixel: p &+ 1, channel: o, oc, e, out); storeRow(a11, pixel: p &+ 1, channel: o &+ 8, oc, e, out)
    storeRow(a12, pixel: p &+ 1, channel: o &+ 16, oc, e, out)
    storeRow(a20, pixel: p &+ 2, channel: o, oc, e, out); storeRow(a21, pixel: p &+ 2, channel: o &+ 8, oc, e, out)
    storeRow(a22, pixel: p &+ 2, channel: o &+ 16, oc, e, out)
    storeRow(a30, pixel: p &+ 3, channel: o, oc, e, out); storeRow(a31, pixel: p &+ 3, channel: o &+ 8, oc, e, out)
    storeRow(a32, pixel: p &+ 3, channel: o &+ 16, oc, e, out)
}

/// Four horizontally adjacent output pixels whose windows lie inside the input, 8 or 16 channels.
/// Also the pointwise GEMM's 4-pixel tiles (a 1x1 window).
@inline(__always)
func directTile4<E: TileEpilogue, W: WindowShape>(_ x0: UnsafePointer<Float>, _ pixelStep: Int, _ rowStride: Int, _ shape: W,
                                                  _ w: UnsafePointer<Float>, _ width: Int, _ p: Int, _ o: Int, _ oc: Int,
                                                  _ e: E, _ out: UnsafeMutablePointer<Float>) {
    if width == 16 {
        directTile4(F16.self, x0, pixelStep, rowStride, shape, w, p, o, oc, e, out)
    } else {
        directTile4(F8.self, x0, pixelStep, rowStride, shape, w, p, o, oc, e, out)
    }
}

/// `directTile4` with the block's width as its vector type.
@inline(__always)
private func directTile4<V: TileVector, E: TileEpilogue, W: WindowShape>(_: V.Type, _ x0: UnsafePointer<Float>, _ pixelStep: Int,
                                                                         _ rowStride: Int, _ shape: W,
                                                                         _ w: UnsafePointer<Float>, _ p: Int, _ o: Int, _ oc: Int,
                                                                         _ e: E, _ out: UnsafeMutablePointer<Float>) {
    let kh = shape.kernelH, rowLength = shape.rowLength
    let b = V.load(w)
    var a0 = b, a1 = b, a2 = b, a3 = b
    var wr = w + V.scalarCount
    for ky in 0..<kh {
        let r0 = x0 + ky * rowStride, r1 = r0 + pixelStep, r2 = r1 + pixelStep, r3 = r2 + pixelStep
        for j in 0..<rowLength {
            let w0 = V.load(wr)
            a0 = a0.fma(V(repeating: r0[j]), w0); a1 = a1.fma(V(repeating: r1[j]), w0)
            a2 = a2.fma(V(repeating: r2[j]), w0); a3 = a3.fma(V(repeating: r3[j]), w0)
            wr += V.scalarCount
        }
    }
    storeRow(a0, pixel: p, channel: o, oc, e, out); storeRow(a1, pixel: p &+ 1, channel: o, oc, e, out)
    storeRow(a2, pixel: p &+ 2, channel: o, oc, e, out); storeRow(a3, pixel: p &+ 3, channel: o, oc, e, out)
}

/// One output pixel, skipping window taps outside the input. The taps inside a kernel row
/// are one contiguous run of input floats and of packed weights, walked as such; the block's
/// width picks the accumulators (one vector of 8 or 16 lanes, or 16 lanes and 8 or 16 more),
/// so the run has no per-tap branches. A lone pixel is one fma latency chain per accumulator;
/// only the border pixels of padded windows come here (a few hundred per first layer).
@inline(__always)
private func directPixel<E: TileEpilogue>(_ g: WindowGeometry, _ image: UnsafePointer<Float>, oy: Int, ox: Int,
                         _ w: UnsafePointer<Float>, _ width: Int, _ p: Int, _ o: Int, _ oc: Int,
                         _ e: E, _ out: UnsafeMutablePointer<Float>) {
    switch width {
    case 8: directPixel(g, image, oy: oy, ox: ox, w, OneVector<F8>(), p, o, oc, e, out)
    case 16: directPixel(g, image, oy: oy, ox: ox, w, OneVector<F16>(), p, o, oc, e, out)
    case 24: directPixel(g, image, oy: oy, ox: ox, w, TwoVectors<F8>(), p, o, oc, e, out)
    default: directPixel(g, image, oy: oy, ox: ox, w, TwoVectors<F16>(), p, o, oc, e, out)
    }
}

@inline(__always)
private func directPixel<E: TileEpilogue, A: PixelAccumulators>(
    _ g: WindowGeometry, _ image: UnsafePointer<Float>, oy: Int, ox: Int, _ w: UnsafePointer<Float>, _ start: A,
    _ p: Int, _ o: Int, _ oc: Int, _ e: E, _ out: UnsafeMutablePointer<Float>
) {
    let ic = g.input.c, width = A.width
    var a = start
    a.load(w)
    let iy0 = oy * g.strideH - g.padTop, ix0 = ox * g.strideW - g.padLeft
    let columns = g.kernelColumns(ox)
    let run = columns.count &* ic
    for ky in g.kernelRows(oy) {
        let x = image + ((iy0 + ky) * g.input.w + ix0 + columns.lowerBound) * ic
        var wr = w + width * (1 + (ky * g.kernelW + columns.lowerBound) * ic)
        for j in 0..<run {
            a.fma(x[j], wr)
            wr += width
        }
    }
    a.store(pixel: p, channel: o, oc, e, out)
}

/// A pixel's accumulators for one weight block of `width` channels (`directPixel`).
private protocol PixelAccumulators {
    static var width: Int { get }
    /// Starts from the block's bias (its first `width` floats).
    mutating func load(_ bias: UnsafePointer<Float>)
    /// Adds `x` times the `width` weights at `w`, one fma per lane.
    mutating func fma(_ x: Float, _ w: UnsafePointer<Float>)
    func store<E: TileEpilogue>(pixel p: Int, channel o: Int, _ oc: Int, _ e: E, _ out: UnsafeMutablePointer<Float>)
}

/// Blocks of 8 or 16 channels: one vector.
private struct OneVector<V: TileVector>: PixelAccumulators {
    static var width: Int { V.scalarCount }
    var a = V()
    @inline(__always) mutating func load(_ b: UnsafePointer<Float>) { a = V.load(b) }
    @inline(__always) mutating func fma(_ x: Float, _ w: UnsafePointer<Float>) { a = a.fma(V(repeating: x), V.load(w)) }
    @inline(__always) func store<E: TileEpilogue>(pixel p: Int, channel o: Int, _ oc: Int, _ e: E, _ out: UnsafeMutablePointer<Float>) {
        storeRow(a, pixel: p, channel: o, oc, e, out)
    }
}

/// Blocks of 24 or 32 channels: sixteen lanes, then 8 or 16 more.
private struct TwoVectors<V: TileVector>: PixelAccumulators {
    static var width: Int { 16 + V.scalarCount }
    var a = F16(), b = V()
    @inline(__always) mutating func load(_ w: UnsafePointer<Float>) { a = load16(w); b = V.load(w + 16) }
    @inline(__always) mutating func fma(_ x: Float, _ w: UnsafePointer<Float>) {
        a = a.fma(F16(repeating: x), load16(w)); b = b.fma(V(repeating: x), V.load(w + 16))
    }
    @inline(__always) func store<E: TileEpilogue>(pixel p: Int, channel o: Int, _ oc: Int, _ e: E, _ out: UnsafeMutablePointer<Float>) {
        storeRow(a, pixel: p, channel: o, oc, e, out); storeRow(b, pixel: p, channel: o &+ 16, oc, e, out)
    }
}
