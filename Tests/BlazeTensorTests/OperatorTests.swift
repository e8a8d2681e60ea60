import BlazeTensor
import TestSupport
import Testing

/// Each operator's reference kernel against textbook loops, on BlazeFace's layer shapes and on
/// odd ones (padding on every side, strides that do not divide, single pixels).
@Suite struct OperatorTests {
    struct ConvCase: CustomTestStringConvertible, Sendable {
        var input: [Int], outChannels: Int, kernel: (Int, Int), stride: (Int, Int), padding: Padding, relu: Bool
        var testDescription: String { "\(input) k\(kernel) s\(stride) \(padding) -> \(outChannels)" }
    }

    static let convCases: [ConvCase] = [
        ConvCase(input: [1, 128, 128, 3], outChannels: 24, kernel: (5, 5), stride: (2, 2), padding: .same, relu: true),
        ConvCase(input: [1, 16, 16, 24], outChannels: 28, kernel: (1, 1), stride: (1, 1), padding: .valid, relu: false),
        ConvCase(input: [2, 7, 9, 5], outChannels: 6, kernel: (3, 3), stride: (2, 2), padding: .same, relu: true),
        ConvCase(input: [1, 7, 9, 5], outChannels: 3, kernel: (3, 2), stride: (1, 3), padding: .valid, relu: false),
        ConvCase(input: [1, 1, 1, 4], outChannels: 2, kernel: (3, 3), stride: (1, 1), padding: .same, relu: false),
    ]

    @Test(arguments: convCases)
    func conv2DMatchesNaiveLoops(_ c: ConvCase) throws {
        var rng = SeededGenerator(seed: 1)
        let x = randomTensor(c.input, &rng)
        let w = randomTensor([c.outChannels, c.kernel.0, c.kernel.1, c.input[3]], &rng)
        let bias = randomTensor([c.outChannels], &rng)
        let op = try Conv2D(weights: w, bias: bias, strideH: c.stride.0, strideW: c.stride.1,
                            padding: c.padding, activation: c.relu ? .relu : .none)
        let expected = Naive.conv2D(x, weightsOHWI: w, bias: bias.scalars, stride: c.stride, padding: c.padding, relu: c.relu)
        #expect(maxDifference(try op(x), expected) < 1e-5)
    }

    @Test(arguments: [(3, 3, 1, Padding.same), (3, 3, 2, .same), (3, 3, 2, .valid), (5, 5, 2, .same), (2, 3, 3, .valid)])
    func depthwiseMatchesNaiveLoops(_ kh: Int, _ kw: Int, _ stride: Int, _ padding: Padding) throws {
        var rng = SeededGenerator(seed: 2)
        let x = randomTensor([1, 11, 8, 24], &rng)
        let w = randomTensor([1, kh, kw, 24], &rng)
        let bias = randomTensor([24], &rng)
        let op = try DepthwiseConv2D(weights: w, bias: bias, strideH: stride, strideW: stride, padding: padding, activation: .none)
        let expected = Naive.depthwise(x, weights: w, bias: bias.scalars, stride: (stride, stride), padding: padding)
        #expect(maxDifference(try op(x), expected) < 1e-5)
    }

    @Test(arguments: [(2, 2, Padding.valid), (3, 2, .same), (3, 3, .valid)])
    func maxPoolMatchesNaiveLoops(_ filter: Int, _ stride: Int, _ padding: Padding) throws {
        var rng = SeededGenerator(seed: 3)
        let x = randomTensor([1, 9, 10, 7], &rng)
        let op = MaxPool2D(filterH: filter, filterW: filter, strideH: stride, strideW: stride, padding: padding)
        #expect(try op(x) == Naive.maxPool(x, filter: (filter, filter), stride: (stride, stride), padding: padding))
    }

    @Test func addAppliesFusedReLU() throws {
        let a = try Tensor(shape: Shape([1, 1, 2, 2]), scalars: [1, -2, 3, -4])
        let b = try Tensor(shape: Shape([1, 1, 2, 2]), scalars: [0.5, 1, -5, 2])
        #expect(try Add(activation: .relu)(a, b).scalars == [1.5, 0, 0, 0])
        #expect(try Add()(a, b).scalars == [1.5, -1, -2, -2])
        #expect(throws: TensorError.self) { try Add()(a, Tensor(shape: Shape([1, 1, 1, 4]))) }
    }

    @Test func reluClampsNegatives() throws {
        let x = try Tensor(shape: Shape([4]), scalars: [-1, 0, 2, -0.5])
        #expect(try ReLU()(x).scalars == [0, 0, 2, 0])
    }

    @Test func padAddsZerosOnEachSide() throws {
        let x = try Tensor(shape: Shape([1, 1, 2, 2]), scalars: [1, 2, 3, 4])
        let y = try Pad(paddings: [(0, 0), (1, 0), (0, 1), (0, 2)])(x)
        #expect(y.shape == Shape([1, 2, 3, 4]))
        #expect(y.scalars == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                              1, 2, 0, 0, 3, 4, 0, 0, 0, 0, 0, 0])
        #expect(throws: TensorError.self) { try Pad(paddings: [(0, 0)]) }
    }

    @Test func reshapeInfersOneDimension() throws {
        let x = try Tensor(shape: Shape([1, 2, 2, 4]), scalars: (0..<16).map(Float.init))
        let y = try Reshape(newShape: [1, -1, 2])(x)
        #expect(y.shape == Shape([1, 8, 2]))
        #expect(y.scalars == x.scalars)
        #expect(throws: TensorError.self) { try Reshape(newShape: [3, -1])(x) }
        #expect(throws: TensorError.self) { try Reshape(newShape: [-1, -1])(x) }
    }

    @Test func concatenationJoinsAlongAxis() throws {
        let a = try Tensor(shape: Shape([1, 2, 1]), scalars: [1, 2])
        let b = try Tensor(shape: Shape([1, 3, 1]), scalars: [3, 4, 5])
        #expect(try Concatenation(axis: 1)(a, b).scalars == [1, 2, 3, 4, 5])
        let c = try Tensor(shape: Shape([2, 2]), scalars: [1, 2, 3, 4])
        let d = try Tensor(shape: Shape([2, 1]), scalars: [9, 8])
        #expect(try Concatenation(axis: -1)(c, d).scalars == [1, 2, 9, 3, 4, 8])
        #expect(throws: TensorError.self) { try Concatenation(axis: 0)(a, b) }
    }

    @Test func convolutionRefusesMismatchedChannels() throws {
        var rng = SeededGenerator(seed: 4)
        let op = try Conv2D(weights: randomTensor([4, 1, 1, 3], &rng), bias: nil, strideH: 1, strideW: 1,
                            padding: .valid, activation: .none)
        #expect(throws: TensorError.self) { try op(randomTensor([1, 2, 2, 5], &rng)) }
        #expect(throws: TensorError.self) {
            try Conv2D(weights: randomTensor([4, 1, 1, 3], &rng), bias: randomTensor([3], &rng), strideH: 1, strideW: 1,
                       padding: .valid, activation: .none)
        }
    }

    /// TFLite's SAME/VALID output sizes and leading pads (ComputePaddingHeightWidth).
    @Test func paddingFollowsTFLite() {
        #expect(Padding.same.outputSize(input: 128, kernel: 5, stride: 2) == (64, 1))
        #expect(Padding.same.outputSize(input: 64, kernel: 3, stride: 2) == (32, 0))
        #expect(Padding.same.outputSize(input: 7, kernel: 3, stride: 1) == (7, 1))
        #expect(Padding.valid.outputSize(input: 64, kernel: 2, stride: 2) == (32, 0))
        #expect(Padding.valid.outputSize(input: 7, kernel: 3, stride: 2) == (3, 0))
    }
}

/// RESIZE_BILINEAR against TFLite's formula written out per element, and its ADD fusion
/// against the two operators run apart.
@Suite struct ResizeBilinearTests {
    @Test(arguments: [(3, 4, 6, 8, false, true), (5, 3, 10, 6, false, false), (4, 4, 7, 9, true, false), (6, 6, 12, 12, false, true)])
    func matchesTextbookFormula(_ h: Int, _ w: Int, _ oh: Int, _ ow: Int, _ alignCorners: Bool, _ halfPixel: Bool) throws {
        var rng = SeededGenerator(seed: UInt64(h * 100 + ow))
        let c = 11   // a SIMD block and a scalar tail
        let x = randomTensor([1, h, w, c], &rng)
        let op = try ResizeBilinear(height: oh, width: ow, alignCorners: alignCorners, halfPixelCenters: halfPixel)
        let y = try op(x)
        func source(_ v: Int, _ outSize: Int, _ inSize: Int) -> (Float, Int, Int) {
            let scale = alignCorners && outSize > 1 ? Float(inSize - 1) / Float(outSize - 1) : Float(inSize) / Float(outSize)
            let s = halfPixel ? (Float(v) + 0.5) * scale - 0.5 : Float(v) * scale
            return (s, max(Int(s.rounded(.down)), 0), min(Int(s.rounded(.up)), inSize - 1))
        }
        var worst: Float = 0
        for oy in 0..<oh {
            let (sy, y0, y1) = source(oy, oh, h)
            for ox in 0..<ow {
                let (sx, x0, x1) = source(ox, ow, w)
                let (dy, dx) = (sy - Float(y0), sx - Float(x0))
                for ch in 0..<c {
                    func at(_ yy: Int, _ xx: Int) -> Float { x.scalars[(yy * w + xx) * c + ch] }
                    let expected = at(y0, x0) * (1 - dy) * (1 - dx) + at(y1, x0) * dy * (1 - dx)
                        + at(y0, x1) * (1 - dy) * dx + at(y1, x1) * dy * dx
                    worst = max(worst, abs(y.scalars[(oy * ow + ox) * c + ch] - expected))
                }
            }
        }
        #expect(worst == 0)
    }

    @Test(arguments: [Activation.none, .relu])
    func fusedAddEqualsResizeThenAdd(_ activation: Activation) throws {
        var rng = SeededGenerator(seed: 77)
        let x = randomTensor([1, 6, 6, 24], &rng), skip = randomTensor([1, 12, 12, 24], &rng)
        let resize = try ResizeBilinear(height: 12, width: 12, alignCorners: false, halfPixelCenters: true)
        let apart = try Add(activation: activation).apply([try resize(x), skip])[0]
        let fused = try ResizeBilinear(height: 12, width: 12, alignCorners: false, halfPixelCenters: true, activation: activation)
        #expect(try fused.apply([x, skip])[0] == apart)
    }
}
