import TestSupport
import Testing
@testable import BlazeTensor

/// The vector fma the kernels use (CVectorFMA.h: one instruction with FMA hardware, an exact
/// round-to-odd emulation in double without it) against the scalar IEEE fma, lane by lane.
@Suite struct VectorFMATests {
    @Test func matchesScalarFMAOnRandomAndSpecialValues() {
        var rng = SeededGenerator(seed: 77)
        func random() -> Float { fmaOperand(&rng) }
        var mismatches = 0
        for _ in 0..<200_000 {
            let a = SIMD8<Float>((0..<8).map { _ in random() }), b = SIMD8<Float>((0..<8).map { _ in random() })
            var c = SIMD8<Float>((0..<8).map { _ in random() })
            // Make near-cancellation common: c close to -a*b.
            if rng.next() % 2 == 0 { for i in 0..<8 { c[i] = -(a[i] * b[i]).nextUp } }
            let v = c.fma(a, b)
            for i in 0..<8 {
                let s = c[i].addingProduct(a[i], b[i])
                if !(s.bitPattern == v[i].bitPattern || (s.isNaN && v[i].isNaN)) { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
    }

    /// The 16-lane fma (the 16-channel tiles') lane by lane against the scalar one, on the same
    /// kinds of values (on AVX2 and in the default build it is two 8-lane halves).
    @Test func sixteenLanesMatchScalarFMA() {
        var rng = SeededGenerator(seed: 78)
        func random() -> Float { fmaOperand(&rng) }
        var mismatches = 0
        for _ in 0..<50_000 {
            let a = SIMD16<Float>((0..<16).map { _ in random() }), b = SIMD16<Float>((0..<16).map { _ in random() })
            var c = SIMD16<Float>((0..<16).map { _ in random() })
            if rng.next() % 2 == 0 { for i in 0..<16 { c[i] = -(a[i] * b[i]).nextUp } }
            let v = c.fma(a, b)
            for i in 0..<16 {
                let s = c[i].addingProduct(a[i], b[i])
                if !(s.bitPattern == v[i].bitPattern || (s.isNaN && v[i].isNaN)) { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
    }

    /// The build-target check finds nothing missing on the machine running the tests (which is
    /// running this build's code already), so the CLI never refuses a build that works.
    @Test func buildTargetFindsNothingMissingHere() {
        #expect(BuildTarget.missingCPUFeatures.isEmpty)
    }
}

/// The special values `fmaOperand` draws from.
private let specials: [Float] = [0, -0, 1, -1, .infinity, -.infinity, .nan, .leastNonzeroMagnitude, -.leastNormalMagnitude,
                                 .greatestFiniteMagnitude, 1 + .ulpOfOne, 1 - .ulpOfOne / 2, 3, 1e-30, 1e30, 0.1]

/// An fma operand: a special value, any bit pattern, or (most often) a float of magnitude up
/// to 4e6 and down to 4e-6, so that products, sums and their rounding all get exercised.
private func fmaOperand(_ rng: inout SeededGenerator) -> Float {
    switch rng.next() % 8 {
    case 0: return specials[Int(rng.next() % UInt64(specials.count))]
    case 1: return Float(bitPattern: UInt32(truncatingIfNeeded: rng.next()))       // any bit pattern
    default: return Float.random(in: -4...4, using: &rng) * Float(sign: .plus, exponent: Int(rng.next() % 40) - 20, significand: 1)
    }
}
