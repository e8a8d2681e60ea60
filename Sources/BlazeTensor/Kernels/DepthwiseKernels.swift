import CVectorMath

// Depthwise 3x3 convolution, SIMD over channels, one block of 8 channels at a time (two at
// once, 16 lanes, in the interior kernel where both are full). Taps are
// summed column by column with fma, the reference kernel's (and XNNPACK's) order. Runs of
// pixels whose taps all lie inside the input go to an interior kernel that keeps the nine
// weights and the bias in registers and reads every input as an fma memory operand; border
// pixels go one at a time, reading a zero vector for the columns outside the input (as
// XNNPACK's indirection buffer does). Channel tails (blocks of fewer than 8) go in groups that
// share input columns (four pixels at stride 1, two at stride 2), so each column is loaded
// once and several fma chains run side by side.

/// Depthwise weights packed once: per block of 8 channels, the bias then the 3x3 taps in
/// column-major order (kx outer, ky inner), zero-padded to a multiple of 8 channels; then a
/// zero vector, which taps outside the input read (as XNNPACK's indirection buffer does).
struct PackedDepthwise3x3Weights: Sendable {
    /// The channel count, before padding to a multiple of 8.
    let channels: Int
    let data: [Float]

    /// - Parameters: `weightsHWC` is `[3][3][channels]`, `bias` has `channels` values.
    init(weightsHWC: [Float], bias: [Float], channels: Int) {
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
/// With `ringRows` > 0 the input is a ring of that many rows: input row `iy` is at slot
/// `iy % ringRows` (batch 1), as `ExpandDepthwisePointwise` keeps the expanded rows.
func f32Depthwise3x3FMA(
    _ g: WindowGeometry, rows: Range<Int>, input: UnsafePointer<Float>, weights: PackedDepthwise3x3Weights,
    activation: Activation, zeroRow: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>, ringRows: Int = 0
) {
    let c = g.input.c, iw = g.input.w, ow = g.output.w, sw = g.strideW
    weights.data.withUnsafeBufferPointer { packed in
        let zero = packed.baseAddress! + packed.count - 16
        // Rows outermost, channel blocks inside: the three input rows a row needs stay in cache
        // while every block uses them (blocks outermost would stream a large input once per block).
        for n in 0..<g.input.n {
            for oy in rows {
                for block in stride(from: 0, to: c, by: 8) {
                    let w = packed.baseAddress! + (block / 8) * 80
                    let lanes = min(8, c - block)
                    // Full blocks in pairs from channel 0 (16 channels: blocks 0-1, 2-3, ...).
                    // (Not with SSE's 4-float registers: sixteen lanes of weights are 40 of its 16.)
                    let paired = !BuildTarget.hasNarrowVectors
                    let pairedWithNext = paired && block % 16 == 0 && c - block >= 16
                    let pairedWithPrevious = paired && block % 16 == 8
                    let bias = load8(w)
                    // Kernel column kx: the taps of rows ky = 0, 1, 2.
                    let k0 = (load8(w + 8), load8(w + 16), load8(w + 24))
                    let k1 = (load8(w + 32), load8(w + 40), load8(w + 48))
                    let k2 = (load8(w + 56), load8(w + 64), load8(w + 72))
                    let image = input + (n * g.input.h * iw * c + block)
                    let outRow = output + (n * g.output.h * ow * c + block) + oy * ow * c
                    let iy0 = oy * g.strideH - g.padTop
                    // Kernel rows outside the input read zeros: fma(0, w) adds nothing.
                    @inline(__always) func row(_ iy: Int) -> UnsafePointer<Float> {
                        iy >= 0 && iy < g.input.h ? image + (ringRows > 0 ? iy % ringRows : iy) * iw * c : zeroRow + block
                    }
                    let r0 = row(iy0), r1 = row(iy0 + 1), r2 = row(iy0 + 2)
                    /// Input column x of the three rows; x inside the input.
                    @inline(__always) func column(_ x: Int) -> (F8, F8, F8) {
                        let o = x &* c
                        return (load8(r0 + o), load8(r1 + o), load8(r2 + o))
                    }
                    /// Input column x of the three rows, a zero vector outside the input.
                    @inline(__always) func edgeColumn(_ x: Int) -> (F8, F8, F8) {
                        guard x >= 0 && x < iw else { let z = load8(zero); return (z, z, z) }
                        return column(x)
                    }
                    @inline(__always) func emit(_ acc: F8, _ ox: Int) {
                        let v = activation.apply(acc), dst = outRow + ox &* c
                        if lanes == 8 { store8(v, dst) } else { store8(v, dst, count: lanes) }
                    }
                    /// One pixel whose columns may lie outside the input.
                    @inline(__always) func edge(_ ox: Int) {
                        let x = ox &* sw &- g.padLeft
                        emit(taps(taps(taps(bias, edgeColumn(x), k0), edgeColumn(x &+ 1), k1), edgeColumn(x &+ 2), k2), ox)
                    }
                    /// Four pixels from six columns at stride 1: column m serves pixel j with
                    /// kernel column m - j, so four fma chains run side by side. Pixels past the
                    /// row's end (`count` < 4) are computed from zero columns and dropped.
                    @inline(__always) func four(_ ox: Int, _ count: Int, _ load: (Int) -> (F8, F8, F8)) {
                        let x = ox &- g.padLeft
                        let c0 = load(x), c1 = load(x &+ 1), c2 = load(x &+ 2)
                        var a0 = taps(bias, c0, k0), a1 = taps(bias, c1, k0)
                        a0 = taps(a0, c1, k1)
                        let c3 = load(x &+ 3)
                        var a2 = taps(bias, c2, k0)
                        a0 = taps(a0, c2, k2); a1 = taps(a1, c2, k1)
                        var a3 = taps(bias, c3, k0)
                        a1 = taps(a1, c3, k2); a2 = taps(a2, c3, k1)
                        let c4 = load(x &+ 4)
                        a2 = taps(a2, c4, k2); a3 = taps(a3, c4, k1)
                        a3 = taps(a3, load(x &+ 5), k2)
                        emit(a0, ox)
                        if count > 1 { emit(a1, ox &+ 1) }
                        if count > 2 { emit(a2, ox &+ 2) }
                        if count > 3 { emit(a3, ox &+ 3) }
                    }
                    /// Two pixels from five columns at stride 2; the middle column serves both.
                    @inline(__always) func two(_ ox: Int, _ count: Int, _ load: (Int) -> (F8, F8, F8)) {
                        let x = 2 &* ox &- g.padLeft
                        var a0 = taps(taps(bias, load(x), k0), load(x &+ 1), k1)
                        let c2 = load(x &+ 2)
                        a0 = taps(a0, c2, k2)
                        let a1 = taps(taps(taps(bias, c2, k0), load(x &+ 3), k1), load(x &+ 4), k2)
                        emit(a0, ox)
                        if count > 1 { emit(a1, ox &+ 1) }
                    }
                    /// The run of pixels from `ox` whose taps all lie inside the input, through the
                    /// interior kernel (full blocks of 8 channels); returns how many it did. Two
                    /// full blocks go through it together, 16 channels a vector: the first block
                    /// of such a pair computes both, the second only steps over the run.
                    @inline(__always) func interior(_ ox: Int) -> Int {
                        guard lanes == 8 else { return 0 }
                        let x = ox &* sw &- g.padLeft
                        guard x >= 0, x &+ 2 < iw else { return 0 }
                        let count = min((iw &- 3 &- x) / sw &+ 1, ow &- ox)
                        if pairedWithNext {
                            f32Depthwise3x3InteriorFMA(F16.self, w, r0 + x &* c, r1 + x &* c, r2 + x &* c, channels: c, stride: sw,
                                                         pixels: count, activation: activation, output: outRow + ox &* c)
                        } else if BuildTarget.hasNarrowVectors {
                            // SSE: ten 8-lane weight vectors are 20 of its 16 registers; each
                            // half of the block alone keeps its ten in registers.
                            for half in [0, 4] {
                                let at = x &* c &+ half
                                f32Depthwise3x3InteriorHalfFMA(w + half, r0 + at, r1 + at, r2 + at, channels: c, stride: sw,
                                                               pixels: count, activation: activation,
                                                               output: outRow + (ox &* c &+ half))
                            }
                        } else if !pairedWithPrevious {
                            f32Depthwise3x3InteriorFMA(F8.self, w, r0 + x &* c, r1 + x &* c, r2 + x &* c, channels: c, stride: sw,
                                                       pixels: count, activation: activation, output: outRow + ox &* c)
                        }
                        return count
                    }
                    // Whole rows: interior runs through the interior kernel, border pixels alone; for
                    // channel tails, groups (a group whose columns lie inside loads them unchecked,
                    // the others read zeros outside).
                    var ox = 0
                    if sw == 1 {
                        while ox < ow {
                            let done = interior(ox)
                            if done > 0 { ox &+= done; continue }
                            if lanes == 8 { edge(ox); ox &+= 1; continue }   // a border pixel, alone
                            let x = ox &- g.padLeft
                            if x >= 0 && x &+ 5 < iw && ox &+ 4 <= ow { four(ox, 4, column) } else { four(ox, min(4, ow &- ox), edgeColumn) }
                            ox &+= 4
                        }
                    } else if sw == 2 {
                        while ox < ow {
                            let done = interior(ox)
                            if done > 0 { ox &+= done; continue }
                            if lanes == 8 { edge(ox); ox &+= 1; continue }   // a border pixel, alone
                            let x = 2 &* ox &- g.padLeft
                            if x >= 0 && x &+ 4 < iw && ox &+ 2 <= ow { two(ox, 2, column) } else { two(ox, min(2, ow &- ox), edgeColumn) }
                            ox &+= 2
                        }
                    } else {
                        while ox < ow { edge(ox); ox &+= 1 }
                    }
                }
            }
        }
    }
}

/// `pixels` consecutive output pixels of one row and one block of 8 channels (`V` = `F8`), or
/// two neighbouring full blocks at once (`F16`, one AVX-512 register; the second block's weights
/// 80 floats on), all of whose taps lie inside the input (`r0`, `r1`, `r2`: the three input rows
/// at the first pixel's first column). Its own function, so that the nine weights and the bias
/// stay in registers for the whole run and every input is an fma memory operand, addressed from
/// three row pointers and the channel stride (grouping pixels that share columns made LLVM keep
/// one pointer per tap, spilled). One pixel per iteration: its nine fmas are one chain, in
/// `taps`'s order, but iterations are independent, so the out-of-order core overlaps several.
@inline(never)
private func f32Depthwise3x3InteriorFMA<V: TileVector>(_: V.Type, _ w: UnsafePointer<Float>, _ r0: UnsafePointer<Float>,
                                                       _ r1: UnsafePointer<Float>, _ r2: UnsafePointer<Float>, channels c: Int,
                                                       stride: Int, pixels: Int, activation: Activation,
                                                       output: UnsafeMutablePointer<Float>) {
    @inline(__always) func weights(_ i: Int) -> V { V.load(blocksOf8: w + i, blockStride: 80) }
    let bias = weights(0)
    let k00 = weights(8), k01 = weights(16), k02 = weights(24)
    let k10 = weights(32), k11 = weights(40), k12 = weights(48)
    let k20 = weights(56), k21 = weights(64), k22 = weights(72)
    let step = stride &* c, c2 = 2 &* c
    var (i0, i1, i2, o) = (r0, r1, r2, output)
    for _ in 0..<pixels {
        let acc = bias.fma(V.load(i0), k00).fma(V.load(i1), k01).fma(V.load(i2), k02)
            .fma(V.load(i0 + c), k10).fma(V.load(i1 + c), k11).fma(V.load(i2 + c), k12)
            .fma(V.load(i0 + c2), k20).fma(V.load(i1 + c2), k21).fma(V.load(i2 + c2), k22)
        acc.applying(activation).store(to: o)
        i0 += step; i1 += step; i2 += step; o += c
    }
}

/// `f32Depthwise3x3InteriorFMA` for four channels of a block (`w`, the rows and `output` offset
/// by 0 or 4 floats): the same taps in the same order, per lane.
@inline(never)
private func f32Depthwise3x3InteriorHalfFMA(_ w: UnsafePointer<Float>, _ r0: UnsafePointer<Float>, _ r1: UnsafePointer<Float>,
                                            _ r2: UnsafePointer<Float>, channels c: Int, stride: Int, pixels: Int,
                                            activation: Activation, output: UnsafeMutablePointer<Float>) {
    typealias F4 = SIMD4<Float>
    @inline(__always) func load(_ p: UnsafePointer<Float>) -> F4 { UnsafeRawPointer(p).loadUnaligned(as: F4.self) }
    let bias = load(w)
    let k00 = load(w + 8), k01 = load(w + 16), k02 = load(w + 24)
    let k10 = load(w + 32), k11 = load(w + 40), k12 = load(w + 48)
    let k20 = load(w + 56), k21 = load(w + 64), k22 = load(w + 72)
    let step = stride &* c, c2 = 2 &* c
    var (i0, i1, i2, o) = (r0, r1, r2, output)
    for _ in 0..<pixels {
        let acc = bias.fma(load(i0), k00).fma(load(i1), k01).fma(load(i2), k02)
            .fma(load(i0 + c), k10).fma(load(i1 + c), k11).fma(load(i2 + c), k12)
            .fma(load(i0 + c2), k20).fma(load(i1 + c2), k21).fma(load(i2 + c2), k22)
        UnsafeMutableRawPointer(o).storeBytes(of: activation.apply(acc), as: F4.self)
        i0 += step; i1 += step; i2 += step; o += c
    }
}

/// `acc` plus the three taps of one kernel column, in row order, each with one rounding.
@inline(__always)
private func taps(_ acc: F8, _ v: (F8, F8, F8), _ k: (F8, F8, F8)) -> F8 {
    acc.fma(v.0, k.0).fma(v.1, k.1).fma(v.2, k.2)
}
