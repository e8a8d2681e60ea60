@testable import BlazeTensor
import TestSupport
import Testing

/// The half-precision matrix-vector kernel (`f32GEMVHalfWeights`, the landmark network's 2x2
/// head onto 1434 channels) against the reference convolution: bit-identical, since exact
/// halves widen to the same floats and the taps are summed in the same order.
@Suite struct HalfGEMVTests {
    /// A random tensor whose values are all exact halves (k / 1024 with |k| <= 1024: at most 11
    /// significant bits).
    static func halfTensor(_ dims: [Int], _ rng: inout SeededGenerator) -> Tensor {
        let shape = Shape(dims)
        return try! Tensor(shape: shape, scalars: (0..<shape.count).map { _ in Float(Int.random(in: -1024...1024, using: &rng)) / 1024 })
    }

    /// Channel counts that are whole 64-channel blocks, and tails of 1 to 63 channels; with
    /// and without a folded PRELU.
    @Test(arguments: [(2, 128, 1434, true), (2, 64, 1024, false), (3, 40, 150, true), (2, 70, 17, false)])
    func halfWeightsGEMVEqualsReference(_ k: Int, _ ic: Int, _ oc: Int, _ withPReLU: Bool) throws {
        var rng = SeededGenerator(seed: UInt64(k * ic + oc))
        let x = randomTensor([1, k, k, ic], &rng)
        let weights = Self.halfTensor([oc, k, k, ic], &rng), bias = randomTensor([oc], &rng)
        let prelu = withPReLU ? try PReLU(alpha: randomTensor([1, 1, oc], &rng)) : nil
        let fast = try Conv2D(weights: weights, bias: bias, strideH: 1, strideW: 1, padding: .valid, activation: .none, prelu: prelu)
        let reference = try Conv2D(weights: weights, bias: bias, strideH: 1, strideW: 1, padding: .valid, activation: .none,
                                   prelu: prelu, kernels: .reference)
        #expect(fast.usesHalfWeights == (weights.scalars.count >= 1 << 18 && BuildTarget.hasFastHalfConversion))
        #expect(try fast(x) == reference(x))
    }

    /// Weights that are not all exact halves stay in float (and still match the reference).
    @Test func nonHalfWeightsStayFloat() throws {
        var rng = SeededGenerator(seed: 7)
        let x = randomTensor([1, 2, 2, 128], &rng)
        let weights = randomTensor([1434, 2, 2, 128], &rng), bias = randomTensor([1434], &rng)
        let fast = try Conv2D(weights: weights, bias: bias, strideH: 1, strideW: 1, padding: .valid, activation: .relu)
        let reference = try Conv2D(weights: weights, bias: bias, strideH: 1, strideW: 1, padding: .valid, activation: .relu,
                                   kernels: .reference)
        #expect(!fast.usesHalfWeights)
        #expect(try fast(x) == reference(x))
    }
}
