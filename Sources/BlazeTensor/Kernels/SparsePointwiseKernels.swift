import CVectorMath

// Pointwise (1x1) convolution with mostly-zero weights, as a sparse-times-dense product
// (SpMM): XNNPACK's sparse inference, which MediaPipe's "_sparse" full-range detector is
// pruned for (70% of its 1x1 weights are zero). XNNPACK runs such models in CHW layout; here
// the tensors stay NHWC and each tile of 16 or 32 pixels is transposed into channel-major
// order on the way in (vectors of 8 pixels per input channel) and back on the way out. Each output
// channel then sums only its nonzero weights: bias, then fma over its nonzero input channels
// in increasing order. Skipping a term w = 0 leaves an fma sum unchanged, so for finite
// inputs the results are bit-identical to the dense GEMM and the reference kernel.
// (Zero-padded pixels of a partial tile are computed and thrown away.)

/// The nonzero weights of a pointwise convolution, per output channel, in the SpMM kernels'
/// order: output channels in blocks of 8, each block in groups of 4 channels (16-pixel tiles)
/// or 2 (32-pixel tiles) that the kernel runs side by side, 8 fma chains either way. A group's
/// channels are padded with zero weights to its longest channel, so they advance in lockstep;
/// blocks sort their channels by nonzero count first, so that little padding is needed.
struct SparsePointwiseWeights: Sendable {
    /// The convolution's input and output channel counts (multiples of 8).
    let inputChannels: Int, outputChannels: Int
    /// Pixels per tile: 16 or 32.
    let tilePixels: Int
    /// Nonzero weights over all weights (before padding).
    let density: Double
    /// Floats of scratch a kernel call needs: the transposed tile, the results of 8 channels
    /// and their transpose, and a zero-padded copy of a partial tile.
    var scratchFloats: Int { 2 * inputChannels * tilePixels + 16 * tilePixels }
    /// Per group: its channels (offsets within the 8-channel block; 2 or 4 used), the first
    /// step, and the step count.
    let groups: [(channels: (Int, Int, Int, Int), start: Int, count: Int)]
    /// Per step, one entry per channel of the group: the input channel's row offset in the
    /// transposed tile (input channel x tile pixels) and the weight.
    let offsets: [Int32]
    let values: [Float]
    let bias: [Float]

    /// Whether the SpMM kernel takes this layer: channel counts in whole vectors, at least 16
    /// output channels, and at least 8 nonzero weights per output channel on average but at
    /// most half of all weights. Below that the two transposes per output value cost more than
    /// the multiplications saved (measured on the full-range detector's layers: 16 -> 64 and
    /// 32 -> 8 ran slower sparse, 32 -> 128 and up faster).
    static func fits(weightsIO: [Float], inputChannels: Int, outputChannels: Int) -> Bool {
        guard inputChannels % 8 == 0, outputChannels % 8 == 0, outputChannels >= 16, inputChannels <= 1024 else {
            return false
        }
        let nonzero = weightsIO.lazy.filter { $0 != 0 }.count
        return 2 * nonzero <= weightsIO.count && nonzero >= 8 * outputChannels
    }

    /// - Parameters: `weightsIO` is `[inputChannels][outputChannels]`, `bias` has
    ///   `outputChannels` values. `tilePixels` defaults to 32 where the transposed tile
    ///   (inputChannels x 32 floats) fits in 24 KiB of L1, else 16.
    init(weightsIO: [Float], bias: [Float], inputChannels: Int, outputChannels: Int, tilePixels: Int? = nil) {
        precondition(inputChannels % 8 == 0 && outputChannels % 8 == 0, "SpMM needs whole vectors of channels")
        let tile = tilePixels ?? (inputChannels <= 192 ? 32 : 16)
        precondition(tile == 16 || tile == 32, "SpMM tiles are 16 or 32 pixels")
        let perGroup = 64 / tile
        var groups: [(channels: (Int, Int, Int, Int), start: Int, count: Int)] = []
        var offsets: [Int32] = [], values: [Float] = []
        var nonzero = 0
        for block in stride(from: 0, to: outputChannels, by: 8) {
            // Each channel's nonzero input channels, in increasing order.
            let rows = (0..<8).map { lane in
                (0..<inputChannels).filter { weightsIO[$0 * outputChannels + block + lane] != 0 }
            }
            nonzero += rows.reduce(0) { $0 + $1.count }
            let order = (0..<8).sorted { (rows[$0].count, $0) < (rows[$1].count, $1) }
            for first in stride(from: 0, to: 8, by: perGroup) {
                let lanes = Array(order[first..<first + perGroup])
                let count = lanes.map { rows[$0].count }.max()!
                let padded = lanes + [0, 0, 0, 0]
                groups.append(((padded[0], padded[1], padded[2], padded[3]), values.count / perGroup, count))
                for step in 0..<count {
                    for lane in lanes {
                        let row = rows[lane]
                        // Padding repeats the last input channel with weight zero (or channel 0).
                        let i = step < row.count ? row[step] : row.last ?? 0
                        offsets.append(Int32(i * tile))
                        values.append(step < row.count ? weightsIO[i * outputChannels + block + lane] : 0)
                    }
                }
            }
        }
        (self.inputChannels, self.outputChannels, self.tilePixels) = (inputChannels, outputChannels, tile)
        density = Double(nonzero) / Double(max(1, inputChannels * outputChannels))
        (self.groups, self.offsets, self.values, self.bias) = (groups, offsets, values, bias)
    }
}

/// out[p][o] = epilogue(bias[o] + Σ_i in[p][i] · w[i][o]) for pixels `pixels`, summing only
/// the nonzero w, in tiles of `weights.tilePixels` pixels (a last, partial tile reads zero
/// pixels past the end and stores only its own): `f32PointwiseConvSpMM16x4FMA` or
/// `f32PointwiseConvSpMM32x2FMA`. `scratch` holds `weights.scratchFloats` floats.
func f32PointwiseConvSpMM(
    pixels: Range<Int>, input: UnsafePointer<Float>, weights: SparsePointwiseWeights,
    epilogue: PointwiseEpilogue, output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>
) {
    if weights.tilePixels == 32 {
        f32PointwiseConvSpMM32x2FMA(pixels: pixels, input: input, weights: weights, epilogue: epilogue, output: output,
                                    scratch: scratch)
    } else {
        f32PointwiseConvSpMM16x4FMA(pixels: pixels, input: input, weights: weights, epilogue: epilogue, output: output,
                                    scratch: scratch)
    }
}

/// Tiles of 16 pixels, groups of 4 output channels; `weights.tilePixels` must be 16.
func f32PointwiseConvSpMM16x4FMA(
    pixels: Range<Int>, input: UnsafePointer<Float>, weights: SparsePointwiseWeights,
    epilogue e: PointwiseEpilogue, output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>
) {
    precondition(weights.tilePixels == 16, "weights packed for \(weights.tilePixels)-pixel tiles")
    e.dispatch(SpMM<Group16x4>(pixels: pixels, input: input, weights: weights, output: output, scratch: scratch))
}

/// Tiles of 32 pixels, groups of 2 output channels; `weights.tilePixels` must be 32.
func f32PointwiseConvSpMM32x2FMA(
    pixels: Range<Int>, input: UnsafePointer<Float>, weights: SparsePointwiseWeights,
    epilogue e: PointwiseEpilogue, output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>
) {
    precondition(weights.tilePixels == 32, "weights packed for \(weights.tilePixels)-pixel tiles")
    e.dispatch(SpMM<Group32x2>(pixels: pixels, input: input, weights: weights, output: output, scratch: scratch))
}

/// One group of output channels over one transposed tile: sums into `results` (8 channels x
/// the tile's pixels).
protocol SpMMGroup {
    static var pixels: Int { get }
    static func run(_ channels: (Int, Int, Int, Int), _ start: Int, _ count: Int, _ block: Int,
                    _ tile: UnsafePointer<Float>, _ offsets: UnsafePointer<Int32>, _ values: UnsafePointer<Float>,
                    _ bias: UnsafePointer<Float>, _ results: UnsafeMutablePointer<Float>)
}

/// The tile loop: transpose in, every group of every 8-channel block, transpose out, epilogue.
struct SpMM<Group: SpMMGroup>: EpilogueGenericBody {
    let pixels: Range<Int>, input: UnsafePointer<Float>, weights: SparsePointwiseWeights
    let output: UnsafeMutablePointer<Float>, scratch: UnsafeMutablePointer<Float>

    func run<E: TileEpilogue>(_ e: E) {
        guard !pixels.isEmpty else { return }
        let ic = weights.inputChannels, oc = weights.outputChannels, t = Group.pixels
        // The transposed tile (t floats per input channel); 8 channels x t pixels of results;
        // the same transposed back (t pixels x 8 channels); a zero-padded copy of a partial tile.
        let tile = scratch, results = tile + ic * t, rows = results + 8 * t, partial = rows + 8 * t
        weights.offsets.withUnsafeBufferPointer { offsets in
        weights.values.withUnsafeBufferPointer { values in
        weights.bias.withUnsafeBufferPointer { bias in
            let offsets = offsets.baseAddress!, values = values.baseAddress!, bias = bias.baseAddress!
            var p = pixels.lowerBound
            while p < pixels.upperBound {
                let count = min(t, pixels.upperBound &- p)
                var x = input + p &* ic
                if count < t {
                    partial.update(from: x, count: count &* ic)
                    (partial + count &* ic).update(repeating: 0, count: (t &- count) &* ic)
                    x = UnsafePointer(partial)
                }
                var i = 0
                while i < ic {
                    var q = 0
                    while q < t {
                        bf_transpose8x8(x + (q &* ic &+ i), ic, tile + (i &* t &+ q), t)
                        q &+= 8
                    }
                    i &+= 8
                }
                var g = 0
                let groupsPerBlock = 8 * t / 64
                for block in stride(from: 0, to: oc, by: 8) {
                    for _ in 0..<groupsPerBlock {
                        let group = weights.groups[g]
                        Group.run(group.channels, group.start, group.count, block, tile, offsets, values, bias, results)
                        g &+= 1
                    }
                    var q = 0
                    while q < t {
                        bf_transpose8x8(results + q, t, rows + q &* 8, 8)
                        q &+= 8
                    }
                    for r in 0..<count {
                        storeRow(load8(rows + r &* 8), pixel: p &+ r, channel: block, oc, e, output)
                    }
                }
                p &+= count
            }
        }
        }
        }
    }
}

/// Four output channels of a 16-pixel tile: eight fma chains, one term per channel per step.
enum Group16x4: SpMMGroup {
    static var pixels: Int { 16 }

    @inline(__always)
    static func run(_ channels: (Int, Int, Int, Int), _ start: Int, _ count: Int, _ block: Int,
                    _ tile: UnsafePointer<Float>, _ offsets: UnsafePointer<Int32>, _ values: UnsafePointer<Float>,
                    _ bias: UnsafePointer<Float>, _ results: UnsafeMutablePointer<Float>) {
        let (c0, c1, c2, c3) = channels
        var a00 = F8(repeating: bias[block &+ c0]), a01 = a00
        var a10 = F8(repeating: bias[block &+ c1]), a11 = a10
        var a20 = F8(repeating: bias[block &+ c2]), a21 = a20
        var a30 = F8(repeating: bias[block &+ c3]), a31 = a30
        var k = start &* 4
        let end = k &+ count &* 4
        while k < end {
            let x0 = tile + Int(offsets[k]), w0 = F8(repeating: values[k])
            a00 = a00.fma(load8(x0), w0); a01 = a01.fma(load8(x0 + 8), w0)
            let x1 = tile + Int(offsets[k &+ 1]), w1 = F8(repeating: values[k &+ 1])
            a10 = a10.fma(load8(x1), w1); a11 = a11.fma(load8(x1 + 8), w1)
            let x2 = tile + Int(offsets[k &+ 2]), w2 = F8(repeating: values[k &+ 2])
            a20 = a20.fma(load8(x2), w2); a21 = a21.fma(load8(x2 + 8), w2)
            let x3 = tile + Int(offsets[k &+ 3]), w3 = F8(repeating: values[k &+ 3])
            a30 = a30.fma(load8(x3), w3); a31 = a31.fma(load8(x3 + 8), w3)
            k &+= 4
        }
        store8(a00, results + c0 &* 16); store8(a01, results + (c0 &* 16 &+ 8))
        store8(a10, results + c1 &* 16); store8(a11, results + (c1 &* 16 &+ 8))
        store8(a20, results + c2 &* 16); store8(a21, results + (c2 &* 16 &+ 8))
        store8(a30, results + c3 &* 16); store8(a31, results + (c3 &* 16 &+ 8))
    }
}

/// Two output channels of a 32-pixel tile: eight fma chains, and per term one weight
/// broadcast for four pixel vectors (fewer loads per fma than the 16x4 kernel).
enum Group32x2: SpMMGroup {
    static var pixels: Int { 32 }

    @inline(__always)
    static func run(_ channels: (Int, Int, Int, Int), _ start: Int, _ count: Int, _ block: Int,
                    _ tile: UnsafePointer<Float>, _ offsets: UnsafePointer<Int32>, _ values: UnsafePointer<Float>,
                    _ bias: UnsafePointer<Float>, _ results: UnsafeMutablePointer<Float>) {
        let (c0, c1) = (channels.0, channels.1)
        var a00 = F8(repeating: bias[block &+ c0]), a01 = a00, a02 = a00, a03 = a00
        var a10 = F8(repeating: bias[block &+ c1]), a11 = a10, a12 = a10, a13 = a10
        var k = start &* 2
        let end = k &+ count &* 2
        while k < end {
            let x0 = tile + Int(offsets[k]), w0 = F8(repeating: values[k])
            a00 = a00.fma(load8(x0), w0); a01 = a01.fma(load8(x0 + 8), w0)
            a02 = a02.fma(load8(x0 + 16), w0); a03 = a03.fma(load8(x0 + 24), w0)
            let x1 = tile + Int(offsets[k &+ 1]), w1 = F8(repeating: values[k &+ 1])
            a10 = a10.fma(load8(x1), w1); a11 = a11.fma(load8(x1 + 8), w1)
            a12 = a12.fma(load8(x1 + 16), w1); a13 = a13.fma(load8(x1 + 24), w1)
            k &+= 2
        }
        let r0 = results + c0 &* 32, r1 = results + c1 &* 32
        store8(a00, r0); store8(a01, r0 + 8); store8(a02, r0 + 16); store8(a03, r0 + 24)
        store8(a10, r1); store8(a11, r1 + 8); store8(a12, r1 + 16); store8(a13, r1 + 24)
    }
}
