import CBFloat16
import CVectorMath

// The pointwise convolution in `Precision.bfloat16`: inputs and weights rounded to bfloat16,
// products summed in float32 from the bias, channels 1, 0, 3, 2, 5, 4... (a pair at a time, its
// odd channel first), then the float32 epilogue. On CPUs with AVX512-BF16 the sums are
// vdpbf16ps's (CBFloat16: a pair an instruction, each product added as an fma adds it),
// elsewhere the float32 GEMM's on rounded copies of the inputs and weights with each pair's
// channels swapped: the same additions in the same order, so the same bits on every CPU with
// FMA (the tests compare the two on this machine), but for sums under float32's smallest normal
// (2^-126), which the instruction flushes to zero. Inputs are rounded a chunk of pixels at a time
// into the caller's scratch.

/// Pointwise weights for `Precision.bfloat16`, packed for the path this CPU takes.
struct BFloat16PointwiseWeights: Sendable {
    /// The weights' input and output channel counts, and the input channels rounded up to even
    /// (a zero channel past an odd count: a pair's second half).
    let inputChannels: Int, outputChannels: Int, paddedInputChannels: Int
    /// For `bf16_gemm`: per group of 16 output channels, `paddedInputChannels / 2` rows of 16
    /// words, each two neighbouring input channels' weights; and the bias padded to whole groups.
    let pairs: AlignedBuffer<UInt32>?
    let paddedBias: AlignedBuffer<Float>?
    /// Elsewhere: the rounded weights for the float32 GEMM, each pair of rows swapped (a zero
    /// row before the last past an odd count).
    let rounded: PackedPointwiseWeights?

    /// Whether a pointwise convolution of this shape runs in bfloat16 (by shape alone, so that
    /// every CPU rounds the same layers): at least 16 output channels and 1,024 weights. The
    /// smaller ones (CenterFace's heads and lateral convolutions) were no faster, measured.
    static func pays(inputChannels: Int, outputChannels: Int) -> Bool {
        outputChannels >= 16 && inputChannels * outputChannels >= 1024
    }

    /// Pixels rounded at a time: six of the dot-product kernel's 8-pixel tiles.
    static let chunkPixels = 48

    /// Whether this CPU computes the sums with vdpbf16ps.
    static let cpuHasDotProduct = bf16_cpu_has_dot_product() != 0

    /// - Parameters: `weightsIO` is `[inputChannels][outputChannels]`, `bias` has
    ///   `outputChannels` values (kept in float32); `dotProduct` picks the packing (tests pack both).
    init(weightsIO: [Float], bias: [Float], inputChannels ic: Int, outputChannels oc: Int,
         dotProduct: Bool = BFloat16PointwiseWeights.cpuHasDotProduct) {
        let padded = (ic + 1) / 2 * 2
        var weights = [Float](repeating: 0, count: padded * oc)
        weightsIO.withUnsafeBufferPointer { bf16_round_floats($0.baseAddress!, ic * oc, &weights) }
        (inputChannels, outputChannels, paddedInputChannels) = (ic, oc, padded)
        guard dotProduct else {
            var swapped = weights
            for k in 0..<padded / 2 {
                for o in 0..<oc { swapped.swapAt(2 * k * oc + o, (2 * k + 1) * oc + o) }
            }
            (pairs, paddedBias) = (nil, nil)
            rounded = PackedPointwiseWeights(weightsIO: swapped, bias: bias, inputChannels: padded, outputChannels: oc)
            return
        }
        let groups = (oc + 15) / 16, rows = padded / 2
        var words = [UInt32](repeating: 0, count: groups * rows * 16)
        for o in 0..<oc {
            for k in 0..<rows {
                let low = weights[2 * k * oc + o].bitPattern >> 16, high = weights[(2 * k + 1) * oc + o].bitPattern >> 16
                words[((o / 16) * rows + k) * 16 + o % 16] = high << 16 | low
            }
        }
        pairs = AlignedBuffer(words)
        paddedBias = AlignedBuffer(bias + [Float](repeating: 0, count: groups * 16 - oc))
        rounded = nil
    }

    /// Scratch floats a call needs: one chunk of rounded inputs.
    var scratchFloats: Int { Self.chunkPixels * paddedInputChannels + kernelSlack }
}

/// out[p][o] = epilogue(bias[o] + Σ_i bf16(in[p][i]) · bf16(w[i][o])) for pixels `pixels`, summed
/// in float32 in the order above. `input` is `[pixel][inputChannels]`, `output` is
/// `[pixel][outputChannels]`; `scratch` holds `weights.scratchFloats` floats.
func bf16PointwiseConv(pixels: Range<Int>, input: UnsafePointer<Float>, weights: BFloat16PointwiseWeights,
                       epilogue e: PointwiseEpilogue, output: UnsafeMutablePointer<Float>,
                       scratch: UnsafeMutablePointer<Float>) {
    let ic = weights.inputChannels, oc = weights.outputChannels, padded = weights.paddedInputChannels
    let trivial = e.activation == .none && e.skip == nil && e.slopes == nil
    var p = pixels.lowerBound
    while p < pixels.upperBound {
        let n = min(BFloat16PointwiseWeights.chunkPixels, pixels.upperBound - p)
        if let pairs = weights.pairs, let bias = weights.paddedBias {
            UnsafeMutableRawPointer(scratch).withMemoryRebound(to: UInt32.self, capacity: n * padded / 2) { a in
                bf16_pack_pairs(input + p * ic, n, ic, ic, a)
                bf16_gemm(a, n, padded / 2, pairs.pointer, bias.pointer, oc, output + p * oc)
            }
            // The epilogue on the stored sums, as the float32 tiles apply it to theirs in registers.
            if !trivial { e.dispatch(EpilogueInPlace(pixels: p..<p + n, channels: oc, output: output)) }
        } else if let rounded = weights.rounded {
            if ic == padded {
                bf16_round_swapping_pairs(input + p * ic, n * ic, scratch)   // even: the rows as one run
            } else {
                for q in 0..<n { bf16_round_swapping_pairs(input + (p + q) * ic, ic, scratch + q * padded) }
            }
            f32PointwiseConvGEMM6x16FMA(pixels: p..<p + n, input: UnsafePointer(scratch - p * padded), weights: rounded,
                                        epilogue: e, output: output)
        }
        p += n
    }
}

/// The epilogue applied to sums already stored: each pixel's channels 16 at a time, the last
/// vector's lanes past `channels` neither read nor written.
private struct EpilogueInPlace: EpilogueGenericBody {
    let pixels: Range<Int>, channels: Int, output: UnsafeMutablePointer<Float>

    func run<E: TileEpilogue>(_ e: E) {
        for p in pixels {
            var o = 0
            while o < channels {
                let lanes = channels &- o, q = output + (p &* channels &+ o)
                let v = lanes >= 16 ? load16(q) : bf_load16_first(q, lanes)
                e.finish16(v, pixel: p, channel: o).store(to: q, count: lanes)
                o &+= 16
            }
        }
    }
}
