// Depthwise 3x3 convolution, SIMD over channels: for each block of 8 channels the nine taps
// and the bias stay in registers while the kernel walks the output pixels. Taps are summed
// column by column with fma, the reference kernel's (and XNNPACK's) order.

/// Depthwise weights packed once: per block of 8 channels, the bias then the 3x3 taps in
/// column-major order (kx outer, ky inner), zero-padded to a multiple of 8 channels.
public struct PackedDepthwise3x3Weights: Sendable {
    public let channels: Int
    let data: [Float]

    /// - Parameters: `weightsHWC` is `[3][3][channels]`, `bias` has `channels` values.
    public init(weightsHWC: [Float], bias: [Float], channels: Int) {
        var data: [Float] = []
        for block in stride(from: 0, to: channels, by: 8) {
            let lane = { (c: Int, v: (Int) -> Float) -> Float in c < channels ? v(c) : 0 }
            for i in 0..<8 { data.append(lane(block + i) { bias[$0] }) }
            for kx in 0..<3 {
                for ky in 0..<3 {
                    for i in 0..<8 { data.append(lane(block + i) { weightsHWC[(ky * 3 + kx) * channels + $0] }) }
                }
            }
        }
        self.channels = channels
        self.data = data
    }
}

/// Output rows `rows` of a 3x3 depthwise convolution (any stride, any padding).
/// Reads may run up to 7 floats past a pixel's channels: input buffers carry that slack.
public func f32Depthwise3x3FMA(
    _ g: WindowGeometry, rows: Range<Int>, input: UnsafePointer<Float>, weights: PackedDepthwise3x3Weights,
    activation: Activation, output: UnsafeMutablePointer<Float>
) {
    let c = g.input.c, iw = g.input.w, ow = g.output.w
    weights.data.withUnsafeBufferPointer { packed in
        for block in stride(from: 0, to: c, by: 8) {
            let w = packed.baseAddress! + (block / 8) * 80
            let lanes = min(8, c - block)
            let bias = load8(w)
            let k00 = load8(w + 8), k10 = load8(w + 16), k20 = load8(w + 24)
            let k01 = load8(w + 32), k11 = load8(w + 40), k21 = load8(w + 48)
            let k02 = load8(w + 56), k12 = load8(w + 64), k22 = load8(w + 72)
            let taps = [k00, k10, k20, k01, k11, k21, k02, k12, k22]
            for n in 0..<g.input.n {
                let image = input + n * g.input.h * iw * c + block
                let out = output + n * g.output.h * ow * c + block
                for oy in rows {
                    let iy0 = oy * g.strideH - g.padTop
                    let rowsInside = iy0 >= 0 && iy0 + 2 < g.input.h
                    for ox in 0..<ow {
                        let ix0 = ox * g.strideW - g.padLeft
                        var acc = bias
                        if rowsInside && ix0 >= 0 && ix0 + 2 < iw {
                            let r0 = image + (iy0 * iw + ix0) * c, r1 = r0 + iw * c, r2 = r1 + iw * c
                            acc = acc.addingProduct(load8(r0), k00)
                            acc = acc.addingProduct(load8(r1), k10)
                            acc = acc.addingProduct(load8(r2), k20)
                            acc = acc.addingProduct(load8(r0 + c), k01)
                            acc = acc.addingProduct(load8(r1 + c), k11)
                            acc = acc.addingProduct(load8(r2 + c), k21)
                            acc = acc.addingProduct(load8(r0 + 2 * c), k02)
                            acc = acc.addingProduct(load8(r1 + 2 * c), k12)
                            acc = acc.addingProduct(load8(r2 + 2 * c), k22)
                        } else {
                            for kx in g.kernelColumns(ox) {
                                for ky in g.kernelRows(oy) {
                                    acc = acc.addingProduct(load8(image + ((iy0 + ky) * iw + ix0 + kx) * c), taps[kx * 3 + ky])
                                }
                            }
                        }
                        store8(activation.apply(acc), out + (oy * ow + ox) * c, count: lanes)
                    }
                }
            }
        }
    }
}
