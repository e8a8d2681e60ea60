import CVectorFMA

// Pointwise (1x1) convolution with mostly-zero weights, as a sparse-times-dense product
// (SpMM): XNNPACK's sparse inference, which MediaPipe's "_sparse" full-range detector is
// pruned for (70% of its 1x1 weights are zero). XNNPACK runs such models in CHW layout; here
// the tensors stay NHWC and each tile of 16 pixels is transposed into channel-major order on
// the way in (one vector of 8 pixels per input channel) and back on the way out. Each output
// channel then sums only its nonzero weights: bias, then fma over its nonzero input channels
// in increasing order. Skipping a term w = 0 leaves an fma sum unchanged, so for finite
// inputs the results are bit-identical to the dense GEMM and the reference kernel.
// (Zero-padded pixels of a partial tile are computed and thrown away.)

/// The nonzero weights of a pointwise convolution, per output channel, in the SpMM kernel's
/// order: output channels in blocks of 8, each block in two groups of 4 channels that the
/// kernel runs side by side (8 fma chains). A group's channels are padded with zero weights
/// to its longest channel, so the four advance in lockstep; blocks sort their channels by
/// nonzero count first, so that little padding is needed.
public struct SparsePointwiseWeights: Sendable {
    public let inputChannels: Int, outputChannels: Int
    /// Nonzero weights over all weights (before padding).
    public let density: Double
    /// Per group: the 4 channels (offsets within the 8-channel block), the first step in
    /// `steps`, and the step count.
    let groups: [(channels: (Int, Int, Int, Int), start: Int, count: Int)]
    /// Per step, 4 entries (one per channel of the group): the input channel's row offset in
    /// the transposed tile (input channel x 16) and the weight.
    let offsets: [Int32]
    let values: [Float]
    let bias: [Float]

    /// Whether the SpMM kernel takes this layer: channel counts in whole vectors, at least 16
    /// output channels, and at least 8 nonzero weights per output channel on average but at
    /// most half of all weights. Below that the two transposes per output value cost more than
    /// the multiplications saved (measured on the full-range detector's layers: 16 -> 64 and
    /// 32 -> 8 ran slower sparse, 32 -> 128 and up faster).
    public static func fits(weightsIO: [Float], inputChannels: Int, outputChannels: Int) -> Bool {
        guard inputChannels % 8 == 0, outputChannels % 8 == 0, outputChannels >= 16, inputChannels <= 1024 else {
            return false
        }
        let nonzero = weightsIO.lazy.filter { $0 != 0 }.count
        return 2 * nonzero <= weightsIO.count && nonzero >= 8 * outputChannels
    }

    /// - Parameters: `weightsIO` is `[inputChannels][outputChannels]`, `bias` has `outputChannels` values.
    public init(weightsIO: [Float], bias: [Float], inputChannels: Int, outputChannels: Int) {
        precondition(inputChannels % 8 == 0 && outputChannels % 8 == 0, "SpMM needs whole vectors of channels")
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
            for half in 0..<2 {
                let lanes = Array(order[half * 4..<half * 4 + 4])
                let count = lanes.map { rows[$0].count }.max()!
                groups.append(((lanes[0], lanes[1], lanes[2], lanes[3]), values.count / 4, count))
                for step in 0..<count {
                    for lane in lanes {
                        let row = rows[lane]
                        // Padding repeats the last input channel with weight zero (or channel 0).
                        let i = step < row.count ? row[step] : row.last ?? 0
                        offsets.append(Int32(i * 16))
                        values.append(step < row.count ? weightsIO[i * outputChannels + block + lane] : 0)
                    }
                }
            }
        }
        (self.inputChannels, self.outputChannels) = (inputChannels, outputChannels)
        density = Double(nonzero) / Double(max(1, inputChannels * outputChannels))
        (self.groups, self.offsets, self.values, self.bias) = (groups, offsets, values, bias)
    }
}

/// out[p][o] = epilogue(bias[o] + Σ_i in[p][i] · w[i][o]) for pixels `pixels`, summing only
/// the nonzero w, in tiles of 16 pixels (a last, partial tile reads zero pixels past the end
/// and stores only its own).
public func f32PointwiseConvSpMM16x4FMA(
    pixels: Range<Int>, input: UnsafePointer<Float>, weights: SparsePointwiseWeights,
    epilogue e: PointwiseEpilogue, output: UnsafeMutablePointer<Float>
) {
    struct Body: EpilogueGenericBody {
        let pixels: Range<Int>, input: UnsafePointer<Float>, weights: SparsePointwiseWeights
        let output: UnsafeMutablePointer<Float>
        func run<E: TileEpilogue>(_ e: E) { spmm(pixels, input, weights, e, output) }
    }
    guard !pixels.isEmpty else { return }
    e.dispatch(Body(pixels: pixels, input: input, weights: weights, output: output))
}

@inline(__always)
private func spmm<E: TileEpilogue>(_ pixels: Range<Int>, _ input: UnsafePointer<Float>,
                                   _ weights: SparsePointwiseWeights, _ e: E, _ output: UnsafeMutablePointer<Float>) {
    let ic = weights.inputChannels, oc = weights.outputChannels
    // The transposed tile (16 floats per input channel); 8 channels x 16 pixels of results;
    // the same transposed back (16 pixels x 8 channels); a zero-padded copy of a partial tile.
    let scratch = UnsafeMutablePointer<Float>.allocate(capacity: ic * 16 + 2 * 128 + 16 * ic)
    defer { scratch.deallocate() }
    let tile = scratch, results = tile + ic * 16, rows = results + 128, partial = rows + 128
    weights.offsets.withUnsafeBufferPointer { offsets in
    weights.values.withUnsafeBufferPointer { values in
    weights.bias.withUnsafeBufferPointer { bias in
        let offsets = offsets.baseAddress!, values = values.baseAddress!, bias = bias.baseAddress!
        var p = pixels.lowerBound
        while p < pixels.upperBound {
            let count = min(16, pixels.upperBound &- p)
            var x = input + p &* ic
            if count < 16 {
                partial.update(from: x, count: count &* ic)
                (partial + count &* ic).update(repeating: 0, count: (16 &- count) &* ic)
                x = UnsafePointer(partial)
            }
            var i = 0
            while i < ic {
                bf_transpose8x8(x + i, ic, tile + i &* 16, 16)
                bf_transpose8x8(x + (8 &* ic &+ i), ic, tile + (i &* 16 &+ 8), 16)
                i &+= 8
            }
            var g = 0
            for block in stride(from: 0, to: oc, by: 8) {
                for _ in 0..<2 {
                    let group = weights.groups[g]
                    spmmGroup(group.channels, group.start, group.count, block, tile, offsets, values, bias, results)
                    g &+= 1
                }
                bf_transpose8x8(results, 16, rows, 8)
                bf_transpose8x8(results + 8, 16, rows + 64, 8)
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

/// Four output channels of a 16-pixel tile: eight fma chains, one term per channel per step.
@inline(__always)
private func spmmGroup(_ channels: (Int, Int, Int, Int), _ start: Int, _ count: Int, _ block: Int,
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
