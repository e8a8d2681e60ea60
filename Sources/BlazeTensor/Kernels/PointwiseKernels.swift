import CVectorMath

// Pointwise (1x1, stride 1) convolution as a GEMM over pixels: XNNPACK's "broadcast" scheme.
// A tile of 6 pixels x 16 output channels lives in six SIMD16 accumulators (one AVX-512
// register each, or two AVX2 ones); each input channel broadcasts one value per pixel against
// one packed weight row. Per output value the
// sum is bias, then fma over input channels in order: the reference kernel's order, so the
// results are identical to it. The 6x16 and 4-pixel tiles are the direct convolution's
// (DirectConvKernels.swift) with a 1x1 window; the 12x16 (at most 8 input channels), 8x8, 2x16,
// 1-pixel and AVX-512's 8-pixel two-block tiles are the GEMM's own.

/// Weights packed once for the GEMM-style kernels: output channels in blocks of `maxWidth`
/// (16; 24 or 32 for the direct convolution; the last block narrower, zero-padded), each
/// block holding its bias row, then one row per input channel (or per kernel tap and channel).
struct PackedPointwiseWeights: Sendable {
    /// The channel counts of the weights' input and output.
    let inputChannels: Int, outputChannels: Int
    /// First output channel, width (8 or 16) and offset into `data` of each block.
    let blocks: [(start: Int, width: Int, offset: Int)]
    let data: AlignedBuffer<Float>

    /// - Parameters: `weightsIO` is `[inputChannels][outputChannels]`, `bias` has `outputChannels` values.
    init(weightsIO: [Float], bias: [Float], inputChannels: Int, outputChannels: Int,
         maxWidth requested: Int = 16) {
        // SSE's sixteen 4-float registers: 8-channel blocks, two registers a tile row.
        let maxWidth = BuildTarget.hasNarrowVectors ? 8 : requested
        var blocks: [(Int, Int, Int)] = []
        var data: [Float] = []
        var start = 0
        while start < outputChannels {
            let remaining = outputChannels - start
            let width = remaining <= 8 || maxWidth == 8 ? 8 : remaining <= 16 || maxWidth == 16 ? 16
                : maxWidth == 32 && remaining >= 32 ? 32 : 24
            blocks.append((start, width, data.count))
            for row in -1..<inputChannels {
                for lane in 0..<width {
                    let o = start + lane
                    guard o < outputChannels else { data.append(0); continue }
                    data.append(row < 0 ? bias[o] : weightsIO[row * outputChannels + o])
                }
            }
            start += width
        }
        self.inputChannels = inputChannels
        self.outputChannels = outputChannels
        self.blocks = blocks
        self.data = AlignedBuffer(data)
    }

    /// These weights through pointers, for the kernels' generic bodies: copying a view counts no
    /// references, whose atomic updates two threads running one model at once would contend on.
    struct View {
        let inputChannels: Int, outputChannels: Int
        let blocks: UnsafeBufferPointer<(start: Int, width: Int, offset: Int)>
        let data: UnsafePointer<Float>
    }

    /// Calls `body` with a view of these weights, valid during the call.
    @inline(__always)
    func withView<R>(_ body: (View) -> R) -> R {
        blocks.withUnsafeBufferPointer { blocks in
            body(View(inputChannels: inputChannels, outputChannels: outputChannels, blocks: blocks, data: data.pointer))
        }
    }
}

/// What happens to a pointwise result before it is stored: an optional residual added from the
/// block input (the skip connection), then the activation. Skip reads are whole vectors with
/// the lanes past the skip's channels zeroed (buffers carry `kernelSlack`). The skip may have fewer channels
/// (TFLite's channel PAD: the rest add zero) and may be max-pooled 2x2 with stride 2 on the fly
/// (TFLite's MAX_POOL_2D before the PAD), so neither the padded nor the pooled copy is made.
struct PointwiseEpilogue {
    /// The activation, applied after the skip is added.
    var activation: Activation
    /// The block input added as the residual, or nil for none.
    var skip: UnsafePointer<Float>?
    /// Channels per pixel of the skip; output channels past them add zero.
    var skipChannels: Int
    /// Whether the skip is max-pooled 2x2 with stride 2 before it is added.
    var pooled: Bool
    /// Width of the output (to find a pixel's row and column) and of the skip image.
    var outputWidth: Int, skipWidth: Int
    /// PReLU slopes per output channel (plus `kernelSlack`), applied last, after the
    /// activation: TFLite's PRELU folded into the convolution that feeds it.
    var slopes: UnsafePointer<Float>?

    /// An epilogue of `activation` alone unless a skip or slopes are given.
    init(activation: Activation, skip: UnsafePointer<Float>? = nil, skipChannels: Int = 0,
         pooled: Bool = false, outputWidth: Int = 1, skipWidth: Int = 1, slopes: UnsafePointer<Float>? = nil) {
        (self.activation, self.skip, self.skipChannels, self.pooled) = (activation, skip, skipChannels, pooled)
        (self.outputWidth, self.skipWidth, self.slopes) = (outputWidth, skipWidth, slopes)
    }
}

/// The epilogue, specialised per kind so that the tile loops carry no per-store branching.
protocol TileEpilogue {
    /// Finishes output channels `o..<o+8` of pixel `p` (lanes past the output channels are discarded).
    func finish(_ acc: F8, pixel p: Int, channel o: Int) -> F8
    /// The same for channels `o..<o+16` (the 16-channel tiles): the same operations per lane.
    func finish16(_ acc: F16, pixel p: Int, channel o: Int) -> F16
}

/// An activation as a type, so that an epilogue specialised for it applies it without a switch
/// per stored vector (`Activation.dispatch` picks it once per call).
protocol ActivationFunction {
    func apply(_ v: F8) -> F8
    func apply(_ v: F16) -> F16
}

/// `Activation.none` as a type.
struct Identity: ActivationFunction {
    @inline(__always) func apply(_ v: F8) -> F8 { v }
    @inline(__always) func apply(_ v: F16) -> F16 { v }
}

/// `.relu` and `.relu6` as one type (one specialisation for both): max(v, 0), then
/// min(·, upper) with upper +∞ or 6. The same values as `Activation.apply`: max(v, 0) is never
/// NaN (a NaN lane takes the 0), and min(x, +∞) is x.
struct ClampedReLU: ActivationFunction {
    let upper: Float
    @inline(__always) func apply(_ v: F8) -> F8 { bf_min8(bf_max8(v, F8()), F8(repeating: upper)) }
    @inline(__always) func apply(_ v: F16) -> F16 { bf_min16(bf_max16(v, F16()), F16(repeating: upper)) }
}

/// A kernel body generic over the activation: `Activation.dispatch` picks the type once per call.
protocol ActivationGenericBody {
    func run<A: ActivationFunction>(_ activation: A)
}

extension Activation {
    func dispatch<B: ActivationGenericBody>(_ body: B) {
        switch self {
        case .none: body.run(Identity())
        case .relu: body.run(ClampedReLU(upper: .infinity))
        case .relu6: body.run(ClampedReLU(upper: 6))
        }
    }
}

struct ActivationOnly<A: ActivationFunction>: TileEpilogue {
    let activation: A
    @inline(__always) func finish(_ acc: F8, pixel p: Int, channel o: Int) -> F8 { activation.apply(acc) }
    @inline(__always) func finish16(_ acc: F16, pixel p: Int, channel o: Int) -> F16 { activation.apply(acc) }
}

struct AddSkip<A: ActivationFunction>: TileEpilogue {
    let activation: A, skip: UnsafePointer<Float>, skipChannels: Int
    @inline(__always) func finish(_ acc: F8, pixel p: Int, channel o: Int) -> F8 {
        let s = load8Masked(skip + (p &* skipChannels &+ o), count: skipChannels &- o)
        return activation.apply(acc + s)
    }
    @inline(__always) func finish16(_ acc: F16, pixel p: Int, channel o: Int) -> F16 {
        let s = bf_load16_first(skip + (p &* skipChannels &+ o), skipChannels &- o)
        return activation.apply(acc + s)
    }
}

struct AddPooledSkip<A: ActivationFunction>: TileEpilogue {
    let activation: A, skip: UnsafePointer<Float>, skipChannels: Int, outputWidth: Int, skipWidth: Int
    @inline(__always) func finish(_ acc: F8, pixel p: Int, channel o: Int) -> F8 {
        let lanes = skipChannels &- o
        let y = p / outputWidth, x = p &- y &* outputWidth
        let row0 = skip + (((2 &* y) &* skipWidth &+ 2 &* x) &* skipChannels &+ o)
        let row1 = row0 + skipWidth &* skipChannels
        let m = load8(row0).pointwiseMax(load8(row0 + skipChannels)).pointwiseMax(load8(row1))
            .pointwiseMax(load8(row1 + skipChannels))
        let s = lanes >= 8 ? m : bf_first_lanes8(m, Int32(truncatingIfNeeded: max(lanes, 0)))
        return activation.apply(acc + s)
    }
    @inline(__always) func finish16(_ acc: F16, pixel p: Int, channel o: Int) -> F16 {
        let lanes = skipChannels &- o
        guard lanes > 0 else { return activation.apply(acc + F16()) }
        let y = p / outputWidth, x = p &- y &* outputWidth
        let row0 = skip + (((2 &* y) &* skipWidth &+ 2 &* x) &* skipChannels &+ o)
        let row1 = row0 + skipWidth &* skipChannels
        let m = bf_max16(bf_max16(bf_max16(load16(row0), load16(row0 + skipChannels)), load16(row1)),
                         load16(row1 + skipChannels))
        let s = lanes >= 16 ? m : bf_first_lanes16(m, Int32(truncatingIfNeeded: lanes))
        return activation.apply(acc + s)
    }
}

/// Another epilogue followed by PReLU with one slope per output channel.
struct WithPReLU<Base: TileEpilogue>: TileEpilogue {
    let base: Base, slopes: UnsafePointer<Float>
    @inline(__always) func finish(_ acc: F8, pixel p: Int, channel o: Int) -> F8 {
        prelu8(base.finish(acc, pixel: p, channel: o), load8(slopes + o))
    }
    @inline(__always) func finish16(_ acc: F16, pixel p: Int, channel o: Int) -> F16 {
        prelu16(base.finish16(acc, pixel: p, channel: o), load16(slopes + o))
    }
}

/// A kernel body generic over the epilogue: `PointwiseEpilogue.dispatch` picks the
/// specialisation once per call, so that the tile loops are compiled for each kind of epilogue.
protocol EpilogueGenericBody {
    func run<E: TileEpilogue>(_ e: E)
}

extension PointwiseEpilogue {
    func dispatch<B: EpilogueGenericBody>(_ body: B) {
        activation.dispatch(EpilogueDispatch(epilogue: self, body: body))
    }
}

/// `PointwiseEpilogue.dispatch` once the activation is a type: the skip kind, then the PReLU.
private struct EpilogueDispatch<B: EpilogueGenericBody>: ActivationGenericBody {
    let epilogue: PointwiseEpilogue, body: B

    func run<A: ActivationFunction>(_ activation: A) {
        let e = epilogue
        switch (e.skip, e.pooled) {
        case (nil, _):
            run(ActivationOnly(activation: activation))
        case (let skip?, false):
            run(AddSkip(activation: activation, skip: skip, skipChannels: e.skipChannels))
        case (let skip?, true):
            run(AddPooledSkip(activation: activation, skip: skip, skipChannels: e.skipChannels,
                              outputWidth: e.outputWidth, skipWidth: e.skipWidth))
        }
    }

    private func run<E: TileEpilogue>(_ base: E) {
        if let slopes = epilogue.slopes { body.run(WithPReLU(base: base, slopes: slopes)) } else { body.run(base) }
    }
}

/// out[p][o] = epilogue(bias[o] + Σ_i in[p][i] · w[i][o]) for pixels `pixels`.
/// `input` is `[pixel][inputChannels]`, `output` is `[pixel][outputChannels]`.
func f32PointwiseConvGEMM6x16FMA(
    pixels: Range<Int>, input: UnsafePointer<Float>, weights: PackedPointwiseWeights,
    epilogue e: PointwiseEpilogue, output: UnsafeMutablePointer<Float>
) {
    weights.withView { e.dispatch(GEMM(pixels: pixels, input: input, weights: $0, output: output)) }
}

private struct GEMM: EpilogueGenericBody {
    let pixels: Range<Int>, input: UnsafePointer<Float>, weights: PackedPointwiseWeights.View
    let output: UnsafeMutablePointer<Float>

    func run<E: TileEpilogue>(_ e: E) { gemm(pixels, input, weights, e, output) }
}

@inline(__always)
private func gemm<E: TileEpilogue>(_ pixels: Range<Int>, _ input: UnsafePointer<Float>, _ weights: PackedPointwiseWeights.View,
                                   _ e: E, _ output: UnsafeMutablePointer<Float>) {
    let ic = weights.inputChannels, oc = weights.outputChannels
    // On AVX-512, two neighbouring blocks at once (16 + 16 or 16 + 8 channels), eight pixels a
    // tile: sixteen fma chains, enough for two FMA units four cycles deep, and ten loads for
    // sixteen FMAs. The pixels past the last whole tile of eight go to one block's tiles.
    let blocks = weights.blocks, data = weights.data
    let pairedEnd = BuildTarget.hasAVX512 && ic > 8 ? pixels.lowerBound &+ pixels.count / 8 &* 8 : pixels.lowerBound
    var b = 0
    while b < blocks.count {
        let (start, width, offset) = blocks[b]
        if pairedEnd > pixels.lowerBound, width == 16, b &+ 1 < blocks.count,
           blocks[b &+ 1].width == 16 || blocks[b &+ 1].width == 8 {
            let next = blocks[b &+ 1], w0 = data + offset, w1 = data + next.offset
            var p = pixels.lowerBound
            while p < pairedEnd {
                gemmTile8xPair(p, input, ic, w0, w1, next.width, start, oc, e, output)
                p &+= 8
            }
            blockTiles(pairedEnd..<pixels.upperBound, input, ic, w0, start, width, oc, e, output)
            blockTiles(pairedEnd..<pixels.upperBound, input, ic, w1, next.start, next.width, oc, e, output)
            b &+= 2
        } else {
            blockTiles(pixels, input, ic, data + offset, start, width, oc, e, output)
            b &+= 1
        }
    }
}

/// Pixels `pixels` of one block of output channels (`width` of them from `start`, weights `w`).
@inline(__always)
private func blockTiles<E: TileEpilogue>(_ pixels: Range<Int>, _ input: UnsafePointer<Float>, _ ic: Int,
                                         _ w: UnsafePointer<Float>, _ start: Int, _ width: Int, _ oc: Int, _ e: E,
                                         _ output: UnsafeMutablePointer<Float>) {
    var p = pixels.lowerBound
    if width == 16 {
        if ic <= 8 && BuildTarget.hasAVX512 {
            while p &+ 12 <= pixels.upperBound {
                gemmTile12x16(p, input, ic, w, start, oc, e, output)
                p &+= 12
            }
        }
        while p &+ 6 <= pixels.upperBound {
            gemmTile6x16(p, input, ic, w, start, oc, e, output)
            p &+= 6
        }
        // Tails in tiles of four and two: one pixel's two fma chains alone wait on latency.
        if p &+ 4 <= pixels.upperBound {
            gemmTile4x16(p, input, ic, w, start, oc, e, output)
            p &+= 4
        }
        if p &+ 2 <= pixels.upperBound {
            gemmTile2x16(p, input, ic, w, start, oc, e, output)
            p &+= 2
        }
        if p < pixels.upperBound {
            gemmTile1(F16.self, p, input, ic, w, start, oc, e, output)
            p &+= 1
        }
    } else {
        // Eight accumulators: as many fma chains as two FMA units four cycles deep keep busy
        // (sixteen SSE registers: four pixels a tile there, below).
        while !BuildTarget.hasNarrowVectors && p &+ 8 <= pixels.upperBound {
            gemmTile8x8(p, input, ic, w, start, oc, e, output)
            p &+= 8
        }
        while p &+ 4 <= pixels.upperBound {
            gemmTile4x8(p, input, ic, w, start, oc, e, output)
            p &+= 4
        }
        while p < pixels.upperBound {
            gemmTile1(F8.self, p, input, ic, w, start, oc, e, output)
            p &+= 1
        }
    }
}

/// Eight pixels x 16 + 16 or 16 + 8 channels: two neighbouring blocks (`w0`, 16 channels, and
/// `w1`, `high` channels). The direct convolution's `directTile8xWide` with a 1x1 window, written
/// again here so that it is specialised with the GEMM in builds that compile file by file (this
/// checkout's optimised debug build): called across files, its SIMD generics stay unspecialised
/// and the tests' searches run ten times slower.
@inline(__always)
private func gemmTile8xPair<E: TileEpilogue>(_ p: Int, _ input: UnsafePointer<Float>, _ ic: Int, _ w0: UnsafePointer<Float>,
                                             _ w1: UnsafePointer<Float>, _ high: Int, _ o: Int, _ oc: Int, _ e: E,
                                             _ output: UnsafeMutablePointer<Float>) {
    if high == 16 {
        gemmTile8xPair(F16.self, p, input, ic, w0, w1, o, oc, e, output)
    } else {
        gemmTile8xPair(F8.self, p, input, ic, w0, w1, o, oc, e, output)
    }
}

@inline(__always)
private func gemmTile8xPair<V: TileVector, E: TileEpilogue>(_: V.Type, _ p: Int, _ input: UnsafePointer<Float>, _ ic: Int,
                                                            _ w0: UnsafePointer<Float>, _ w1: UnsafePointer<Float>, _ o: Int,
                                                            _ oc: Int, _ e: E, _ output: UnsafeMutablePointer<Float>) {
    let b0 = load16(w0), b1 = V.load(w1)
    var a0 = b0, a1 = b0, a2 = b0, a3 = b0, a4 = b0, a5 = b0, a6 = b0, a7 = b0
    var c0 = b1, c1 = b1, c2 = b1, c3 = b1, c4 = b1, c5 = b1, c6 = b1, c7 = b1
    let x0 = input + p &* ic
    var wr0 = w0 + 16, wr1 = w1 + V.scalarCount
    for i in 0..<ic {
        let u = load16(wr0), v = V.load(wr1)
        var x = x0[i]; a0 = a0.fma(F16(repeating: x), u); c0 = c0.fma(V(repeating: x), v)
        x = x0[ic &+ i]; a1 = a1.fma(F16(repeating: x), u); c1 = c1.fma(V(repeating: x), v)
        x = x0[2 &* ic &+ i]; a2 = a2.fma(F16(repeating: x), u); c2 = c2.fma(V(repeating: x), v)
        x = x0[3 &* ic &+ i]; a3 = a3.fma(F16(repeating: x), u); c3 = c3.fma(V(repeating: x), v)
        x = x0[4 &* ic &+ i]; a4 = a4.fma(F16(repeating: x), u); c4 = c4.fma(V(repeating: x), v)
        x = x0[5 &* ic &+ i]; a5 = a5.fma(F16(repeating: x), u); c5 = c5.fma(V(repeating: x), v)
        x = x0[6 &* ic &+ i]; a6 = a6.fma(F16(repeating: x), u); c6 = c6.fma(V(repeating: x), v)
        x = x0[7 &* ic &+ i]; a7 = a7.fma(F16(repeating: x), u); c7 = c7.fma(V(repeating: x), v)
        wr0 += 16; wr1 += V.scalarCount
    }
    let o1 = o &+ 16
    storeRow(a0, pixel: p, channel: o, oc, e, output); storeRow(c0, pixel: p, channel: o1, oc, e, output)
    storeRow(a1, pixel: p &+ 1, channel: o, oc, e, output); storeRow(c1, pixel: p &+ 1, channel: o1, oc, e, output)
    storeRow(a2, pixel: p &+ 2, channel: o, oc, e, output); storeRow(c2, pixel: p &+ 2, channel: o1, oc, e, output)
    storeRow(a3, pixel: p &+ 3, channel: o, oc, e, output); storeRow(c3, pixel: p &+ 3, channel: o1, oc, e, output)
    storeRow(a4, pixel: p &+ 4, channel: o, oc, e, output); storeRow(c4, pixel: p &+ 4, channel: o1, oc, e, output)
    storeRow(a5, pixel: p &+ 5, channel: o, oc, e, output); storeRow(c5, pixel: p &+ 5, channel: o1, oc, e, output)
    storeRow(a6, pixel: p &+ 6, channel: o, oc, e, output); storeRow(c6, pixel: p &+ 6, channel: o1, oc, e, output)
    storeRow(a7, pixel: p &+ 7, channel: o, oc, e, output); storeRow(c7, pixel: p &+ 7, channel: o1, oc, e, output)
}

/// Finishes output channels `o..<o+8` (`F8`) or `o..<o+16` (`F16`) of pixel `p` with the
/// epilogue and stores them, masking lanes past `oc`.
@inline(__always)
func storeRow<V: TileVector, E: TileEpilogue>(_ v: V, pixel p: Int, channel o: Int, _ oc: Int, _ e: E,
                                              _ output: UnsafeMutablePointer<Float>) {
    let lanes = oc &- o
    guard lanes > 0 else { return }
    v.finished(by: e, pixel: p, channel: o).store(to: output + (p &* oc &+ o), count: lanes)
}

/// The vector a tile row is made of, 8 or 16 output channels (`F8`, `F16`), so that a tile is
/// written once for both widths: its load, its fma and its finish-and-store.
protocol TileVector: SIMD where Scalar == Float {
    static func load(_ p: UnsafePointer<Float>) -> Self
    /// Eight floats from each of `scalarCount / 8` blocks `blockStride` floats apart (weights
    /// packed per block of 8 channels, read for one vector of neighbouring blocks).
    static func load(blocksOf8 p: UnsafePointer<Float>, blockStride: Int) -> Self
    func fma(_ a: Self, _ b: Self) -> Self
    func applying(_ activation: Activation) -> Self
    /// The epilogue's `finish` (8 lanes) or `finish16` (16 lanes).
    func finished<E: TileEpilogue>(by e: E, pixel p: Int, channel o: Int) -> Self
    /// Stores every lane to `p`.
    func store(to p: UnsafeMutablePointer<Float>)
    /// Stores the first `min(count, scalarCount)` lanes to `p` (`count` > 0).
    func store(to p: UnsafeMutablePointer<Float>, count: Int)
}

extension SIMD8: TileVector where Scalar == Float {
    @inline(__always) static func load(_ p: UnsafePointer<Float>) -> F8 { load8(p) }
    @inline(__always) static func load(blocksOf8 p: UnsafePointer<Float>, blockStride: Int) -> F8 { load8(p) }
    @inline(__always) func applying(_ activation: Activation) -> F8 { activation.apply(self) }
    @inline(__always) func finished<E: TileEpilogue>(by e: E, pixel p: Int, channel o: Int) -> F8 {
        e.finish(self, pixel: p, channel: o)
    }
    @inline(__always) func store(to p: UnsafeMutablePointer<Float>) { store8(self, p) }
    @inline(__always) func store(to p: UnsafeMutablePointer<Float>, count: Int) {
        if count >= 8 { store8(self, p) } else { store8(self, p, count: count) }
    }
}

extension SIMD16: TileVector where Scalar == Float {
    @inline(__always) static func load(_ p: UnsafePointer<Float>) -> F16 { load16(p) }
    @inline(__always) static func load(blocksOf8 p: UnsafePointer<Float>, blockStride: Int) -> F16 {
        F16(lowHalf: load8(p), highHalf: load8(p + blockStride))
    }
    @inline(__always) func applying(_ activation: Activation) -> F16 { activation.apply(self) }
    @inline(__always) func finished<E: TileEpilogue>(by e: E, pixel p: Int, channel o: Int) -> F16 {
        e.finish16(self, pixel: p, channel: o)
    }
    @inline(__always) func store(to p: UnsafeMutablePointer<Float>) { store16(self, p) }
    @inline(__always) func store(to p: UnsafeMutablePointer<Float>, count: Int) {
        bf_store16_first(p, self, count)
    }
}

/// Six pixels x 16 channels: the direct convolution's 6x16 tile with a 1x1 window (one
/// "kernel row" of `ic` taps; consecutive pixels `ic` floats apart).
@inline(__always)
private func gemmTile6x16<E: TileEpilogue>(_ p: Int, _ input: UnsafePointer<Float>, _ ic: Int, _ w: UnsafePointer<Float>,
                                           _ o: Int, _ oc: Int, _ e: E, _ output: UnsafeMutablePointer<Float>) {
    directTile6x16(input + p &* ic, ic, 0, RuntimeWindow(kernelH: 1, rowLength: ic), w, p, o, oc, e, output)
}

/// Twelve pixels x 16 channels, for few input channels (8: the 128x128 stage), where a 6x16
/// tile's fixed costs (bias, pointers, loop) weigh on only 48 FMAs. AVX-512 only: twelve
/// accumulators are 24 of AVX2's 16 registers.
@inline(__always)
private func gemmTile12x16<E: TileEpilogue>(_ p: Int, _ input: UnsafePointer<Float>, _ ic: Int, _ w: UnsafePointer<Float>,
                                            _ o: Int, _ oc: Int, _ e: E, _ output: UnsafeMutablePointer<Float>) {
    let b = load16(w)
    var a0 = b, a1 = b, a2 = b, a3 = b, a4 = b, a5 = b, a6 = b, a7 = b, a8 = b, a9 = b, a10 = b, a11 = b
    let x = input + p &* ic
    var wr = w + 16
    for i in 0..<ic {
        let w0 = load16(wr)
        a0 = a0.fma(F16(repeating: x[i]), w0); a1 = a1.fma(F16(repeating: x[ic &+ i]), w0)
        a2 = a2.fma(F16(repeating: x[2 &* ic &+ i]), w0); a3 = a3.fma(F16(repeating: x[3 &* ic &+ i]), w0)
        a4 = a4.fma(F16(repeating: x[4 &* ic &+ i]), w0); a5 = a5.fma(F16(repeating: x[5 &* ic &+ i]), w0)
        a6 = a6.fma(F16(repeating: x[6 &* ic &+ i]), w0); a7 = a7.fma(F16(repeating: x[7 &* ic &+ i]), w0)
        a8 = a8.fma(F16(repeating: x[8 &* ic &+ i]), w0); a9 = a9.fma(F16(repeating: x[9 &* ic &+ i]), w0)
        a10 = a10.fma(F16(repeating: x[10 &* ic &+ i]), w0); a11 = a11.fma(F16(repeating: x[11 &* ic &+ i]), w0)
        wr += 16
    }
    storeRow(a0, pixel: p, channel: o, oc, e, output); storeRow(a1, pixel: p &+ 1, channel: o, oc, e, output)
    storeRow(a2, pixel: p &+ 2, channel: o, oc, e, output); storeRow(a3, pixel: p &+ 3, channel: o, oc, e, output)
    storeRow(a4, pixel: p &+ 4, channel: o, oc, e, output); storeRow(a5, pixel: p &+ 5, channel: o, oc, e, output)
    storeRow(a6, pixel: p &+ 6, channel: o, oc, e, output); storeRow(a7, pixel: p &+ 7, channel: o, oc, e, output)
    storeRow(a8, pixel: p &+ 8, channel: o, oc, e, output); storeRow(a9, pixel: p &+ 9, channel: o, oc, e, output)
    storeRow(a10, pixel: p &+ 10, channel: o, oc, e, output); storeRow(a11, pixel: p &+ 11, channel: o, oc, e, output)
}

/// Four pixels x 16 channels: the direct convolution's 4-pixel tile with a 1x1 window.
@inline(__always)
private func gemmTile4x16<E: TileEpilogue>(_ p: Int, _ input: UnsafePointer<Float>, _ ic: Int, _ w: UnsafePointer<Float>,
                                           _ o: Int, _ oc: Int, _ e: E, _ output: UnsafeMutablePointer<Float>) {
    directTile4(input + p &* ic, ic, 0, RuntimeWindow(kernelH: 1, rowLength: ic), w, 16, p, o, oc, e, output)
}

@inline(__always)
private func gemmTile2x16<E: TileEpilogue>(_ p: Int, _ input: UnsafePointer<Float>, _ ic: Int, _ w: UnsafePointer<Float>,
                                           _ o: Int, _ oc: Int, _ e: E, _ output: UnsafeMutablePointer<Float>) {
    let b = load16(w)
    var a0 = b, a1 = b
    let x0 = input + p &* ic, x1 = x0 + ic
    var wr = w + 16
    for i in 0..<ic {
        let w0 = load16(wr)
        a0 = a0.fma(F16(repeating: x0[i]), w0); a1 = a1.fma(F16(repeating: x1[i]), w0)
        wr += 16
    }
    storeRow(a0, pixel: p, channel: o, oc, e, output); storeRow(a1, pixel: p &+ 1, channel: o, oc, e, output)
}

/// One pixel x 8 or 16 channels (`V`).
@inline(__always)
private func gemmTile1<V: TileVector, E: TileEpilogue>(_: V.Type, _ p: Int, _ input: UnsafePointer<Float>, _ ic: Int,
                                                      _ w: UnsafePointer<Float>, _ o: Int, _ oc: Int, _ e: E,
                                                      _ output: UnsafeMutablePointer<Float>) {
    var a = V.load(w)
    let x = input + p &* ic
    var wr = w + V.scalarCount
    for i in 0..<ic {
        a = a.fma(V(repeating: x[i]), V.load(wr))
        wr += V.scalarCount
    }
    storeRow(a, pixel: p, channel: o, oc, e, output)
}

@inline(__always)
private func gemmTile8x8<E: TileEpilogue>(_ p: Int, _ input: UnsafePointer<Float>, _ ic: Int, _ w: UnsafePointer<Float>,
                                          _ o: Int, _ oc: Int, _ e: E, _ output: UnsafeMutablePointer<Float>) {
    let b = load8(w)
    var a0 = b, a1 = b, a2 = b, a3 = b, a4 = b, a5 = b, a6 = b, a7 = b
    let x0 = input + p &* ic, x1 = x0 + ic, x2 = x1 + ic, x3 = x2 + ic
    let x4 = x3 + ic, x5 = x4 + ic, x6 = x5 + ic, x7 = x6 + ic
    var wr = w + 8
    for i in 0..<ic {
        let w0 = load8(wr)
        a0 = a0.fma(F8(repeating: x0[i]), w0); a1 = a1.fma(F8(repeating: x1[i]), w0)
        a2 = a2.fma(F8(repeating: x2[i]), w0); a3 = a3.fma(F8(repeating: x3[i]), w0)
        a4 = a4.fma(F8(repeating: x4[i]), w0); a5 = a5.fma(F8(repeating: x5[i]), w0)
        a6 = a6.fma(F8(repeating: x6[i]), w0); a7 = a7.fma(F8(repeating: x7[i]), w0)
        wr += 8
    }
    storeRow(a0, pixel: p, channel: o, oc, e, output); storeRow(a1, pixel: p &+ 1, channel: o, oc, e, output)
    storeRow(a2, pixel: p &+ 2, channel: o, oc, e, output); storeRow(a3, pixel: p &+ 3, channel: o, oc, e, output)
    storeRow(a4, pixel: p &+ 4, channel: o, oc, e, output); storeRow(a5, pixel: p &+ 5, channel: o, oc, e, output)
    storeRow(a6, pixel: p &+ 6, channel: o, oc, e, output); storeRow(a7, pixel: p &+ 7, channel: o, oc, e, output)
}

/// Four pixels x 8 channels: the direct convolution's 4-pixel tile with a 1x1 window.
@inline(__always)
private func gemmTile4x8<E: TileEpilogue>(_ p: Int, _ input: UnsafePointer<Float>, _ ic: Int, _ w: UnsafePointer<Float>,
                                          _ o: Int, _ oc: Int, _ e: E, _ output: UnsafeMutablePointer<Float>) {
    directTile4(input + p &* ic, ic, 0, RuntimeWindow(kernelH: 1, rowLength: ic), w, 8, p, o, oc, e, output)
}
