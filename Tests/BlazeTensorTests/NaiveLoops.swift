import BlazeTensor
import TestSupport

/// Textbook loops in Double, written from the operator definitions and nothing else: the
/// yardstick for the reference kernels. Padding is explicit here (zero or -inf taps).
enum Naive {
    static func conv2D(_ x: Tensor, weightsOHWI w: Tensor, bias: [Float], stride: (Int, Int), padding: Padding,
                       relu: Bool) -> Tensor {
        let (n, h, wd, ic) = (x.shape[0], x.shape[1], x.shape[2], x.shape[3])
        let (oc, kh, kw) = (w.shape[0], w.shape[1], w.shape[2])
        let (oh, pt) = padding.outputSize(input: h, kernel: kh, stride: stride.0)
        let (ow, pl) = padding.outputSize(input: wd, kernel: kw, stride: stride.1)
        var out = [Float](repeating: 0, count: n * oh * ow * oc)
        for b in 0..<n { for oy in 0..<oh { for ox in 0..<ow { for o in 0..<oc {
            var sum = Double(bias[o])
            for ky in 0..<kh { for kx in 0..<kw { for i in 0..<ic {
                let iy = oy * stride.0 - pt + ky, ix = ox * stride.1 - pl + kx
                guard iy >= 0, iy < h, ix >= 0, ix < wd else { continue }
                sum += Double(x.scalars[((b * h + iy) * wd + ix) * ic + i]) * Double(w.scalars[((o * kh + ky) * kw + kx) * ic + i])
            } } }
            out[((b * oh + oy) * ow + ox) * oc + o] = Float(relu ? max(sum, 0) : sum)
        } } } }
        return try! Tensor(shape: Shape([n, oh, ow, oc]), scalars: out)
    }

    static func depthwise(_ x: Tensor, weights w: Tensor, bias: [Float], stride: (Int, Int), padding: Padding) -> Tensor {
        let (n, h, wd, c) = (x.shape[0], x.shape[1], x.shape[2], x.shape[3])
        let (kh, kw) = (w.shape[1], w.shape[2])
        let (oh, pt) = padding.outputSize(input: h, kernel: kh, stride: stride.0)
        let (ow, pl) = padding.outputSize(input: wd, kernel: kw, stride: stride.1)
        var out = [Float](repeating: 0, count: n * oh * ow * c)
        for b in 0..<n { for oy in 0..<oh { for ox in 0..<ow { for ch in 0..<c {
            var sum = Double(bias[ch])
            for ky in 0..<kh { for kx in 0..<kw {
                let iy = oy * stride.0 - pt + ky, ix = ox * stride.1 - pl + kx
                guard iy >= 0, iy < h, ix >= 0, ix < wd else { continue }
                sum += Double(x.scalars[((b * h + iy) * wd + ix) * c + ch]) * Double(w.scalars[(ky * kw + kx) * c + ch])
            } }
            out[((b * oh + oy) * ow + ox) * c + ch] = Float(sum)
        } } } }
        return try! Tensor(shape: Shape([n, oh, ow, c]), scalars: out)
    }

    static func maxPool(_ x: Tensor, filter: (Int, Int), stride: (Int, Int), padding: Padding) -> Tensor {
        let (n, h, wd, c) = (x.shape[0], x.shape[1], x.shape[2], x.shape[3])
        let (oh, pt) = padding.outputSize(input: h, kernel: filter.0, stride: stride.0)
        let (ow, pl) = padding.outputSize(input: wd, kernel: filter.1, stride: stride.1)
        var out = [Float](repeating: -.infinity, count: n * oh * ow * c)
        for b in 0..<n { for oy in 0..<oh { for ox in 0..<ow { for ch in 0..<c {
            for ky in 0..<filter.0 { for kx in 0..<filter.1 {
                let iy = oy * stride.0 - pt + ky, ix = ox * stride.1 - pl + kx
                guard iy >= 0, iy < h, ix >= 0, ix < wd else { continue }
                let i = ((b * oh + oy) * ow + ox) * c + ch
                out[i] = max(out[i], x.scalars[((b * h + iy) * wd + ix) * c + ch])
            } }
        } } } }
        return try! Tensor(shape: Shape([n, oh, ow, c]), scalars: out)
    }
}


func randomTensor(_ dims: [Int], _ rng: inout SeededGenerator) -> Tensor {
    let shape = Shape(dims)
    return try! Tensor(shape: shape, scalars: (0..<shape.count).map { _ in Float.random(in: -1...1, using: &rng) })
}

func maxDifference(_ a: Tensor, _ b: Tensor) -> Float {
    precondition(a.shape == b.shape, "\(a.shape) vs \(b.shape)")
    return zip(a.scalars, b.scalars).map { abs($0 - $1) }.max() ?? 0
}
