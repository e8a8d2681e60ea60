/// Where a 2-D window operator reads and writes: the shapes, strides and leading padding
/// that every convolution and pooling microkernel takes. Padding is virtual: kernels skip
/// taps that fall outside the input instead of reading a padded copy.
struct WindowGeometry: Sendable, Hashable {
    /// The input tensor's shape.
    var input: NHWC
    /// The output tensor's shape.
    var output: NHWC
    /// The window's height and width in taps.
    var kernelH: Int, kernelW: Int
    /// Input rows and columns from one output pixel's window to the next.
    var strideH: Int, strideW: Int
    /// Virtual zero rows above and columns left of the input: where the first window starts.
    var padTop: Int, padLeft: Int

    /// A geometry of these values as given; `make` derives the output and padding TFLite's way.
    init(input: NHWC, output: NHWC, kernelH: Int, kernelW: Int,
         strideH: Int, strideW: Int, padTop: Int, padLeft: Int) {
        self.input = input; self.output = output
        self.kernelH = kernelH; self.kernelW = kernelW
        self.strideH = strideH; self.strideW = strideW
        self.padTop = padTop; self.padLeft = padLeft
    }

    /// The geometry of a window operator with TFLite padding semantics.
    static func make(input: NHWC, outputChannels: Int, kernelH: Int, kernelW: Int,
                     strideH: Int, strideW: Int, padding: Padding) throws(TensorError) -> WindowGeometry {
        if case .explicit(let t, let b, let l, let r) = padding, min(t, b, l, r) < 0 || max(t, b, l, r) > 1 << 16 {
            throw .invalidAttribute("explicit padding \(t), \(b), \(l), \(r) must be in 0...65536")
        }
        guard kernelH > 0, kernelW > 0, strideH > 0, strideW > 0 else {
            throw .invalidAttribute("kernel \(kernelH)x\(kernelW) and stride \(strideH)x\(strideW) must be positive")
        }
        let (oh, pt) = padding.outputSize(input: input.h, kernel: kernelH, stride: strideH)
        let (ow, pl) = padding.outputSize(input: input.w, kernel: kernelW, stride: strideW, vertical: false)
        guard oh > 0, ow > 0 else {
            throw .shapeMismatch("a \(kernelH)x\(kernelW) window does not fit input \(input.shape)")
        }
        return WindowGeometry(input: input, output: NHWC(n: input.n, h: oh, w: ow, c: outputChannels),
                              kernelH: kernelH, kernelW: kernelW, strideH: strideH, strideW: strideW,
                              padTop: pt, padLeft: pl)
    }

    /// The range of kernel rows that land inside the input for output row `oy`.
    @inline(__always) func kernelRows(_ oy: Int) -> Range<Int> {
        let iy0 = oy * strideH - padTop
        return max(0, -iy0)..<min(kernelH, input.h - iy0)
    }

    /// The range of kernel columns that land inside the input for output column `ox`.
    @inline(__always) func kernelColumns(_ ox: Int) -> Range<Int> {
        let ix0 = ox * strideW - padLeft
        return max(0, -ix0)..<min(kernelW, input.w - ix0)
    }

    /// Calls `body` for every output pixel with its output offset (in floats) and, for each
    /// kernel tap inside the input, a way to find that tap's input pixel: the window walk the
    /// reference kernels share. `tap(ky, kx)` gives the input offset (in floats) of the tap.
    @inline(__always)
    func forEachOutputPixel(_ body: (_ output: Int, _ rows: Range<Int>, _ columns: Range<Int>,
                                     _ tap: (_ ky: Int, _ kx: Int) -> Int) -> Void) {
        for n in 0..<input.n {
            for oy in 0..<output.h {
                let iy0 = oy * strideH - padTop
                for ox in 0..<output.w {
                    let ix0 = ox * strideW - padLeft
                    body(((n * output.h + oy) * output.w + ox) * output.c, kernelRows(oy), kernelColumns(ox)) { ky, kx in
                        ((n * input.h + iy0 + ky) * input.w + ix0 + kx) * input.c
                    }
                }
            }
        }
    }
}
