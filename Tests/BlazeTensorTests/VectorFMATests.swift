import TestSupport
import Testing
@testable import BlazeTensor

/// The vector fma the kernels use (CVectorFMA.h: one instruction with FMA hardware, an exact
/// round-to-odd emulation in double without it) against the scalar IEEE fma, lane by lane.
@Suite struct VectorFMATests {
    @Test func matchesScalarFMAOnRandomAndSpecialValues() {
        #expect(fmaMismatches(SIMD8<Float>.self, seed: 77, vectors: 200_000) { c, a, b in c.fma(a, b) } == 0)
    }

    /// The 16-lane fma (the 16-channel tiles') the same way (on AVX2 and in the default build
    /// it is two 8-lane halves).
    @Test func sixteenLanesMatchScalarFMA() {
        #expect(fmaMismatches(SIMD16<Float>.self, seed: 78, vectors: 50_000) { c, a, b in c.fma(a, b) } == 0)
    }

    /// Lanes where `fma(c, a, b)` differs from the scalar `c.addingProduct(a, b)` (NaN matches
    /// NaN), over random vectors, half of them with c close to -a*b (near-cancellation).
    private func fmaMismatches<V: SIMD>(_: V.Type, seed: UInt64, vectors: Int, _ fma: (V, V, V) -> V) -> Int
    where V.Scalar == Float {
        var rng = SeededGenerator(seed: seed)
        func random() -> V { V((0..<V.scalarCount).map { _ in fmaOperand(&rng) }) }
        var mismatches = 0
        for _ in 0..<vectors {
            let a = random(), b = random()
            var c = random()
            if rng.next() % 2 == 0 { for i in 0..<V.scalarCount { c[i] = -(a[i] * b[i]).nextUp } }
            let v = fma(c, a, b)
            for i in 0..<V.scalarCount {
                let s = c[i].addingProduct(a[i], b[i])
                if !(s.bitPattern == v[i].bitPattern || (s.isNaN && v[i].isNaN)) { mismatches += 1 }
            }
        }
        return mismatches
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
