import BlazeTensor
import Foundation
import TestSupport
import Testing

/// The operators the landmark and blendshape networks added, against loops written from their
/// TFLite definitions: PReLU (SIMD kernel and reference), broadcasting arithmetic, unary
/// functions, MEAN/SUM, LAYER_NORM, TRANSPOSE and STRIDED_SLICE.
@Suite struct LandmarkOperatorTests {
    /// The 8-wide PReLU kernel equals the reference loop bit for bit, channel tails included.
    @Test(arguments: [(128, 16), (64, 32), (4, 128), (3, 7), (5, 13), (1, 1)])
    func preluKernelEqualsReference(_ pixels: Int, _ channels: Int) throws {
        var rng = SeededGenerator(seed: UInt64(pixels * 100 + channels))
        let x = randomTensor([1, 1, pixels, channels], &rng), alpha = randomTensor([1, 1, channels], &rng)
        let fast = try PReLU(alpha: alpha)(x)
        let reference = try PReLU(alpha: alpha, kernels: .reference)(x)
        #expect(fast == reference)
        // And the definition: x >= 0 ? x : x * alpha[c].
        let expected = x.scalars.enumerated().map { i, v in v >= 0 ? v : v * alpha.scalars[i % channels] }
        #expect(reference.scalars == expected)
    }

    /// PReLU folded into a convolution's epilogue (pointwise GEMM, with and without a pooled
    /// residual; the direct kxk kernel) equals the convolution and PReLU run apart, bit for bit.
    @Test(arguments: [(1, 1, 16, 8, false, false), (1, 1, 8, 16, true, false), (1, 1, 16, 32, true, true),
                      (3, 2, 3, 16, false, false), (3, 1, 3, 16, false, false), (2, 2, 16, 16, false, false), (1, 1, 13, 7, false, false)])
    func foldedPReLUEqualsSeparate(_ k: Int, _ stride: Int, _ ic: Int, _ oc: Int, _ residual: Bool, _ pooled: Bool) throws {
        var rng = SeededGenerator(seed: UInt64(k * 1000 + ic * 10 + oc))
        let (h, w) = (12, 10)
        let x = randomTensor([1, h, w, ic], &rng)
        let weights = randomTensor([oc, k, k, ic], &rng), bias = randomTensor([oc], &rng)
        let alpha = randomTensor([1, 1, oc], &rng)
        let skip = randomTensor([1, pooled ? 2 * h : h, pooled ? 2 * w : w, pooled ? oc / 2 : oc], &rng)
        let inputs = residual ? [x, skip] : [x]
        func conv(_ prelu: PReLU?, _ kernels: KernelChoice) throws -> Conv2D {
            try Conv2D(weights: weights, bias: bias, strideH: stride, strideW: stride, padding: .same, activation: .none,
                       residual: residual ? Residual(pooled: pooled) : nil, prelu: prelu, kernels: kernels)
        }
        let apart = try PReLU(alpha: alpha, kernels: .reference)(try conv(nil, .reference).apply(inputs)[0])
        #expect(try conv(try PReLU(alpha: alpha), .fastest).apply(inputs)[0] == apart)
        #expect(try conv(try PReLU(alpha: alpha, kernels: .reference), .reference).apply(inputs)[0] == apart)
    }

    @Test func preluRefusesMismatchedSlopes() throws {
        #expect(throws: TensorError.self) { try PReLU(alpha: Tensor(shape: Shape([2, 3]), repeating: 1)) }
        let op = try PReLU(alpha: Tensor(shape: Shape([1, 1, 4]), repeating: 1))
        #expect(throws: TensorError.self) { try op.outputShapes(for: [Shape([1, 2, 2, 5])]) }
    }

    /// Broadcasting as NumPy: every shape pair the blendshape model uses, and a few more.
    @Test(arguments: [([1, 146, 2], [1, 1, 2]), ([1, 146, 2], [1, 1, 1]), ([1, 1, 146, 2], []),
                      ([1, 1, 97, 1], [64]), ([1, 1, 97, 64], [1, 1, 97, 1]), ([1, 1, 97, 64], [1, 1, 97, 64]),
                      ([3, 1, 5], [1, 4, 1]), ([2, 3], [3])])
    func broadcastArithmeticMatchesDefinition(_ a: [Int], _ b: [Int]) throws {
        var rng = SeededGenerator(seed: UInt64(a.count * 10 + b.count))
        let x = randomTensor(a, &rng), y = randomTensor(b, &rng)
        let out = try BinaryElementwise.broadcast(Shape(a), Shape(b))
        for kind in [BinaryKind.add, .subtract, .multiply, .divide, .squaredDifference] {
            let result = try BinaryElementwise(kind)(x, y)
            #expect(result.shape == out)
            // Index each operand by the output index, right-aligned, 1-sized axes pinned to 0.
            func at(_ t: Tensor, _ index: [Int]) -> Float {
                var flat = 0
                for (k, d) in t.shape.dims.enumerated() {
                    let i = index[index.count - t.shape.rank + k]
                    flat = flat * d + (d == 1 ? 0 : i)
                }
                return t.scalars[flat]
            }
            var expected: [Float] = []
            for o in 0..<out.count {
                var rest = o, index = [Int](repeating: 0, count: out.rank)
                for k in stride(from: out.rank - 1, through: 0, by: -1) { index[k] = rest % out[k]; rest /= out[k] }
                let (p, q) = (at(x, index), at(y, index))
                switch kind {
                case .add: expected.append(p + q)
                case .subtract: expected.append(p - q)
                case .multiply: expected.append(p * q)
                case .divide: expected.append(p / q)
                case .squaredDifference: expected.append((p - q) * (p - q))
                }
            }
            #expect(result.scalars == expected, "\(kind)")
        }
        #expect(throws: TensorError.self) { try BinaryElementwise.broadcast(Shape([2, 3]), Shape([4])) }
    }

    /// The 8-wide binary kernel (one row when each operand is whole or a scalar; rows at least
    /// 8 wide of full rows, row vectors and per-row scalars; trailing 1s dropped) equals the
    /// reference loops bit for bit on odd widths and tails, signed zeros and infinities included;
    /// narrow rows and activations keep the reference loops.
    @Test(arguments: [([97, 63], [97, 63]), ([1, 1, 97, 63], [1, 1, 97, 1]), ([1, 1, 97, 1], [1, 1, 97, 63]),
                      ([1, 1, 97, 1], [63]), ([63], [1, 1, 97, 1]), ([97, 63], [63]), ([1, 63], [97, 63]),
                      ([97, 63], []), ([], [97, 63]), ([1, 1, 97, 1], []), ([13, 9], [13, 1]), ([5], [5]),
                      ([3, 1, 9, 1], [3, 1, 9, 1]), ([146, 2], [1, 2]), ([1, 146, 2], [1, 1, 1]), ([7, 8], [7, 8])])
    func binaryKernelEqualsReference(_ a: [Int], _ b: [Int]) throws {
        var rng = SeededGenerator(seed: UInt64(a.reduce(1, *) * 31 + b.reduce(1, *)))
        func operand(_ dims: [Int]) throws -> Tensor {
            var t = randomTensor(dims, &rng).scalars
            let special: [Float] = [0, -0.0, .infinity, -.infinity, 1e30, -Float(bitPattern: 0x0001_16C2), 3]  // -1e-40, a subnormal
            for i in stride(from: 0, to: t.count, by: 5) { t[i] = special[(i / 5) % special.count] }
            return try Tensor(shape: Shape(dims), scalars: t)
        }
        let x = try operand(a), y = try operand(b)
        for kind in [BinaryKind.add, .subtract, .multiply, .divide, .squaredDifference] {
            for act in [Activation.none, .relu] {
                let fast = try BinaryElementwise(kind, activation: act)(x, y)
                let reference = try BinaryElementwise(kind, activation: act, kernels: .reference)(x, y)
                #expect(fast.shape == reference.shape)
                #expect(fast.scalars.map(\.bitPattern) == reference.scalars.map(\.bitPattern), "\(kind) \(act)")
            }
        }
    }

    /// LAYER_NORM, eight rows at a time and by the reference loop, equals the ten operators it
    /// fuses run one after the other (MEAN, NEG, SQUARED_DIFFERENCE, MEAN, ADD ε, RSQRT, MUL γ,
    /// MUL, MUL, ADD) bit for bit: row blocks of 8 and their tails, channel tails, constant rows.
    @Test(arguments: [(97, 64), (8, 8), (13, 7), (17, 20), (1, 1), (3, 9)])
    func layerNormEqualsItsOperators(_ rows: Int, _ channels: Int) throws {
        var rng = SeededGenerator(seed: UInt64(rows * 100 + channels))
        var v = randomTensor([1, 1, rows, channels], &rng).scalars
        for i in 0..<channels { v[i] = 0.25 }   // a constant row: variance 0, only ε left
        let x = try Tensor(shape: Shape([1, 1, rows, channels]), scalars: v)
        let gamma = randomTensor([channels], &rng)
        let epsilon = try Tensor(shape: Shape([]), scalars: [1e-6])
        func binary(_ kind: BinaryKind, _ a: Tensor, _ b: Tensor) throws -> Tensor { try BinaryElementwise(kind, activation: .none)(a, b) }
        let mean = try Reduce(.mean, axes: [3], keepDims: true)(x)
        let negated = try Unary(.negate)(mean)
        let variance = try Reduce(.mean, axes: [3], keepDims: true)(try binary(.squaredDifference, x, mean))
        let inverse = try Unary(.reciprocalSquareRoot)(try binary(.add, variance, epsilon))
        let s = try binary(.multiply, inverse, gamma)
        let expected = try binary(.add, try binary(.multiply, x, s), try binary(.multiply, negated, s))
        for kernels in [KernelChoice.fastest, .reference] {
            let fused = try LayerNorm(gamma: gamma, epsilon: epsilon, kernels: kernels)(x)
            #expect(fused.shape == expected.shape)
            #expect(fused.scalars.map(\.bitPattern) == expected.scalars.map(\.bitPattern), "\(kernels)")
        }
        #expect(throws: TensorError.self) { try LayerNorm(gamma: gamma, epsilon: epsilon)(try Tensor(shape: Shape([2, channels + 1]), scalars: Array(repeating: 0, count: 2 * channels + 2))) }
        // The means' axis, as Fusion passes it: the last, counted either way; no other.
        #expect(try LayerNorm(gamma: gamma, epsilon: epsilon, axis: 3)(x) == expected)
        #expect(throws: TensorError.self) { try LayerNorm(gamma: gamma, epsilon: epsilon, axis: 2)(x) }
    }

    /// The row sums eight rows a lane each (trailing axes) and the runs over adjacent middle
    /// axes equal the reference loops bit for bit: row and column tails, narrow rows, -0 and
    /// infinities, MEAN and SUM.
    @Test(arguments: [([97, 63], [-1]), ([1, 1, 97, 64], [3]), ([16, 8], [1]), ([7, 5], [1]), ([9, 17], [1]),
                      ([3, 146, 2], [1]), ([1, 146, 1], [1]), ([2, 3, 4, 5], [1, 2]), ([2, 3, 4, 5], [0]),
                      ([2, 3, 4, 5], [2, 3]), ([2, 3, 4, 5], [0, 2])])
    func reductionKernelsEqualReference(_ dims: [Int], _ axes: [Int]) throws {
        var rng = SeededGenerator(seed: UInt64(dims.reduce(1, *) + axes.count))
        var v = randomTensor(dims, &rng).scalars
        // A row of negative zeros (its sum from +0 stays +0), then one of huge values, an
        // infinity and a denormal; the rest random, where any other order of additions shows.
        let row = dims.last!
        for i in 0..<row { v[i] = -0.0 }
        let special: [Float] = [1e30, -1e30, .infinity, Float(bitPattern: 0x0001_16C2)]  // 1e-40, a subnormal
        for i in row..<min(2 * row, v.count) { v[i] = special[i % special.count] }
        let x = try Tensor(shape: Shape(dims), scalars: v)
        for kind in [Reduce.Kind.mean, .sum] {
            for keep in [true, false] {
                let fast = try Reduce(kind, axes: axes, keepDims: keep)(x)
                let reference = try Reduce(kind, axes: axes, keepDims: keep, kernels: .reference)(x)
                #expect(fast.shape == reference.shape)
                #expect(fast.scalars.map(\.bitPattern) == reference.scalars.map(\.bitPattern), "\(kind) \(keep)")
            }
        }
    }

    @Test func unaryFunctions() throws {
        let x = try Tensor(shape: Shape([5]), scalars: [0, 1, 4, 0.25, 9])
        #expect(try Unary(.negate)(x).scalars == [-0.0, -1, -4, -0.25, -9])
        #expect(try Unary(.squareRoot)(x).scalars == [0, 1, 2, 0.5, 3])
        #expect(try Unary(.reciprocalSquareRoot)(x).scalars == [.infinity, 1, 0.5, 2, 1 / Float(3)])
        let logistic = try Unary(.logistic)(x).scalars
        for (v, s) in zip(x.scalars, logistic) { #expect(abs(Double(s) - 1 / (1 + exp(-Double(v)))) < 1e-7) }
    }

    @Test func reductionsMatchLoops() throws {
        var rng = SeededGenerator(seed: 7)
        let x = randomTensor([1, 1, 97, 64], &rng)
        let mean = try Reduce(.mean, axes: [3], keepDims: true)(x)
        #expect(mean.shape == Shape([1, 1, 97, 1]))
        for r in 0..<97 {
            var s: Float = 0
            for c in 0..<64 { s += x.scalars[r * 64 + c] }
            #expect(mean.scalars[r] == s / 64)
        }
        let y = randomTensor([1, 146, 2], &rng)
        let sum = try Reduce(.sum, axes: [-2], keepDims: true)(y)
        #expect(sum.shape == Shape([1, 1, 2]))
        for c in 0..<2 {
            var s: Float = 0
            for p in 0..<146 { s += y.scalars[p * 2 + c] }
            #expect(sum.scalars[c] == s)
        }
        #expect(try Reduce(.sum, axes: [1, 2], keepDims: false)(y).shape == Shape([1]))
        #expect(throws: TensorError.self) { try Reduce(.mean, axes: [3], keepDims: true).outputShapes(for: [Shape([2, 2])]) }
    }

    @Test func transposeAndSlice() throws {
        var rng = SeededGenerator(seed: 9)
        let x = randomTensor([1, 1, 3, 5], &rng)
        let t = try Transpose(perm: [0, 1, 3, 2])(x)
        #expect(t.shape == Shape([1, 1, 5, 3]))
        for i in 0..<3 { for j in 0..<5 { #expect(t.scalars[j * 3 + i] == x.scalars[i * 5 + j]) } }
        #expect(throws: TensorError.self) { try Transpose(perm: [0, 0, 1, 2]) }
        // STRIDED_SLICE [:, :, 1:3, 2:5] and a shrunk axis.
        let s = try Slice(begin: [0, 0, 1, 2], size: [1, 1, 2, 3], shape: [1, 1, 2, 3])(x)
        #expect(s.scalars == [x.scalars[7], x.scalars[8], x.scalars[9], x.scalars[12], x.scalars[13], x.scalars[14]])
        let row = try Slice(begin: [0, 0, 2, 0], size: [1, 1, 1, 5], shape: [5])(x)
        #expect(row.shape == Shape([5]) && row.scalars == Array(x.scalars[10..<15]))
        #expect(throws: TensorError.self) { try Slice(begin: [0, 0, 2, 0], size: [1, 1, 2, 5], shape: [10]).outputShapes(for: [x.shape]) }
        // Hostile attributes: overflowing or non-positive extents are refused, never trapped on.
        #expect(throws: TensorError.self) { try Slice(begin: [0, 0], size: [1 << 40, 1 << 40], shape: [1]) }
        #expect(throws: TensorError.self) { try Slice(begin: [0], size: [0], shape: [0]) }
        #expect(throws: TensorError.self) { try Slice(begin: [Int.max - 1], size: [5], shape: [5]).outputShapes(for: [Shape([8])]) }
    }
}
