import CVectorMath

// A matrix-vector product whose weights are stored in half precision: the face landmark
// network's last convolution (a 2x2 window over a 2x2x128 input onto 1434 channels) is one
// output pixel, 512 taps x 1434 weights, bound by streaming its weights rather than by its
// FMAs. The model's weights are float16 in the .task bundle (the exporter widens them), so
// storing them as halves again is exact: the same floats reach the same fmas in the same
// order (bias, then taps in HWIO order), in half the bytes.

/// Weights in half precision for `f32GEMVHalfWeights`, in blocks of 64 output channels (the last
/// zero-padded): block b holds its taps one after the other, 64 halves each; the bias in float,
/// zero-padded to whole blocks. `nil` from `init` when a weight is not exactly a half or this
/// build widens halves slowly.
struct HalfPackedWeights: Sendable {
    /// The output channels per block: four 16-lane accumulators.
    static let blockWidth = 64
    /// Below this many weights (1 MB as floats) a layer's weights stay in cache and halves gain nothing.
    static let minimumCount = 1 << 18
    /// The inputs summed per output (the window's taps) and the output channel count.
    let taps: Int, outputChannels: Int
    let halves: AlignedBuffer<UInt16>
    let bias: AlignedBuffer<Float>

    /// Packs float weights as halves; nil where this CPU has no fast half conversion.
    /// - Parameters:
    ///   - weightsIO: `[taps][outputChannels]` (HWIO, the taps being the window's).
    ///   - bias: One value per output channel.
    ///   - taps: The inputs summed per output.
    ///   - outputChannels: The output channel count.
    init?(weightsIO: [Float], bias: [Float], taps: Int, outputChannels: Int) {
        guard BuildTarget.hasFastHalfConversion else { return nil }
        let width = Self.blockWidth
        let blocks = (outputChannels + width - 1) / width
        var halves = [UInt16](repeating: 0, count: blocks * taps * width)
        for t in 0..<taps {
            for o in 0..<outputChannels {
                let w = weightsIO[t * outputChannels + o]
                let h = bf_float_to_half(w)
                guard bf_half_to_float(h).bitPattern == w.bitPattern else { return nil }
                halves[((o / width) * taps + t) * width + o % width] = h
            }
        }
        (self.taps, self.outputChannels, self.halves) = (taps, outputChannels, AlignedBuffer(halves))
        self.bias = AlignedBuffer(bias, padding: blocks * width - outputChannels)
    }
}

/// `output[o] = prelu(activation(bias[o] + sum over t of input[t] * w[t][o]))`, with fma per
/// tap in order: the direct convolution's sum for a window that covers the whole input.
/// Four 16-lane accumulators per 64-channel block; `slopes` as the direct kernel's PReLU.
func f32GEMVHalfWeights(input: UnsafePointer<Float>, weights: HalfPackedWeights, activation: Activation,
                        slopes: UnsafePointer<Float>?, output: UnsafeMutablePointer<Float>) {
    PointwiseEpilogue(activation: activation, slopes: slopes).dispatch(GEMVHalf(input: input, weights: weights, output: output))
}

private struct GEMVHalf: EpilogueGenericBody {
    let input: UnsafePointer<Float>, weights: HalfPackedWeights, output: UnsafeMutablePointer<Float>

    func run<E: TileEpilogue>(_ e: E) { gemvHalf(input, weights, e, output) }
}

@inline(__always)
private func gemvHalf<E: TileEpilogue>(_ input: UnsafePointer<Float>, _ weights: HalfPackedWeights, _ e: E,
                                       _ output: UnsafeMutablePointer<Float>) {
    let width = HalfPackedWeights.blockWidth, taps = weights.taps, oc = weights.outputChannels
    let halves = weights.halves.pointer, bias = weights.bias.pointer
    var o = 0
    while o < oc {
        var w = halves + (o / width) * taps * width
        let b = bias + o
        var a0 = load16(b), a1 = load16(b + 16), a2 = load16(b + 32), a3 = load16(b + 48)
        for t in 0..<taps {
            let x = F16(repeating: input[t])
            a0 = a0.fma(x, bf_load_half16(w)); a1 = a1.fma(x, bf_load_half16(w + 16))
            a2 = a2.fma(x, bf_load_half16(w + 32)); a3 = a3.fma(x, bf_load_half16(w + 48))
            w += width
        }
        storeRow(a0, pixel: 0, channel: o, oc, e, output); storeRow(a1, pixel: 0, channel: o + 16, oc, e, output)
        storeRow(a2, pixel: 0, channel: o + 32, oc, e, output); storeRow(a3, pixel: 0, channel: o + 48, oc, e, output)
        o += width
    }
}
