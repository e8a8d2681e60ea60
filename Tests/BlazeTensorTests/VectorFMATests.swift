import TestSupport
import Testing
@testable import BlazeTensor
import CVectorMath

/// The vector fma the kernels use (CVectorMath.h) against the scalar IEEE fma, lane by lane: the
/// kernels' `fma` where the build's arithmetic is fused (hardware FMA, or the `ExactFMA`
/// trait's emulation), `bf_fma*_exact` in every build, and the unfused `bf_fma*` of an x86-64
/// build without FMA against a * b + c.
@Suite struct VectorFMATests {
    @Test func matchesScalarFMAOnRandomAndSpecialValues() {
        let reference: (Float, Float, Float) -> Float = BuildTarget.arithmetic == .unfused ? { c, a, b in a * b + c }
            : { c, a, b in c.addingProduct(a, b) }
        #expect(fmaMismatches(SIMD8<Float>.self, seed: 77, vectors: 200_000, reference) { c, a, b in c.fma(a, b) } == 0)
    }

    /// The 16-lane fma (the 16-channel tiles') the same way (on AVX2 and in the default build
    /// it is two 8-lane halves).
    @Test func sixteenLanesMatchScalarFMA() {
        let reference: (Float, Float, Float) -> Float = BuildTarget.arithmetic == .unfused ? { c, a, b in a * b + c }
            : { c, a, b in c.addingProduct(a, b) }
        #expect(fmaMismatches(SIMD16<Float>.self, seed: 78, vectors: 50_000, reference) { c, a, b in c.fma(a, b) } == 0)
    }

    /// The exact fma (the emulation where the build has no FMA) is the IEEE fma in every build,
    /// on 4, 8 and 16 lanes.
    @Test func exactFMAMatchesScalarFMAInEveryBuild() {
        let fused: (Float, Float, Float) -> Float = { c, a, b in c.addingProduct(a, b) }
        #expect(fmaMismatches(SIMD4<Float>.self, seed: 80, vectors: 50_000, fused) { c, a, b in bf_fma4_exact(a, b, c) } == 0)
        #expect(fmaMismatches(SIMD8<Float>.self, seed: 81, vectors: 50_000, fused) { c, a, b in bf_fma8_exact(a, b, c) } == 0)
        #expect(fmaMismatches(SIMD16<Float>.self, seed: 82, vectors: 20_000, fused) { c, a, b in bf_fma16_exact(a, b, c) } == 0)
    }

    /// What the build says of itself agrees with the header it was compiled with.
    @Test func buildTargetDescribesThisBuild() {
        #expect(["scalar", "SSE2", "AVX", "AVX2", "AVX-512", "NEON"].contains(BuildTarget.vectorISA))
        #expect((BuildTarget.arithmetic == .hardwareFMA) == (bf_has_hardware_fma() != 0))
        #expect(BuildTarget.summary.hasPrefix("\(BuildTarget.vectorISA), \(BuildTarget.arithmetic.rawValue)"))
        #expect(BuildTarget.unsupportedCPUMessage == nil)
    }

    /// Lanes where `fma(c, a, b)` differs from `reference(c, a, b)` (NaN matches NaN), over
    /// random vectors, half of them with c close to -a*b (near-cancellation).
    private func fmaMismatches<V: SIMD>(_: V.Type, seed: UInt64, vectors: Int, _ reference: (Float, Float, Float) -> Float,
                                        _ fma: (V, V, V) -> V) -> Int
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
                let s = reference(c[i], a[i], b[i])
                if !(s.bitPattern == v[i].bitPattern || (s.isNaN && v[i].isNaN)) { mismatches += 1 }
            }
        }
        return mismatches
    }

    /// The activations as types (`Identity`, `ClampedReLU`), which the tile epilogues are
    /// specialised for, give the bits `Activation.apply` gives, NaN, infinities and -0 included.
    @Test func activationTypesMatchTheActivationSwitch() {
        var rng = SeededGenerator(seed: 79)
        for _ in 0..<2_000 {
            let v = F16((0..<16).map { _ in rng.next() % 2 == 0 ? specials[Int(rng.next() % UInt64(specials.count))] : fmaOperand(&rng) })
            let v8 = F8(lowHalf: v.lowHalf.lowHalf, highHalf: v.highHalf.highHalf)
            let cases: [(Activation, any ActivationFunction)] = [
                (.none, Identity()), (.relu, ClampedReLU(upper: .infinity)), (.relu6, ClampedReLU(upper: 6)),
            ]
            for (activation, type) in cases {
                #expect(bits(type.apply(v)) == bits(activation.apply(v)), "\(activation) on \(v)")
                #expect(bits(type.apply(v8)) == bits(activation.apply(v8)), "\(activation) on \(v8)")
            }
        }
    }

    /// `bf_load16_first` and `bf_store16_first` (the 16-channel epilogue's skip load and store,
    /// masked with AVX-512): lanes 0..<count only, for every count from -1 to 17; a store leaves
    /// the floats past `count` as they were.
    @Test func firstLanesLoadAndStoreTouchOnlyTheirLanes() {
        let source = (0..<32).map { Float($0) + 0.5 }
        for count in -1...17 {
            let loaded = source.withUnsafeBufferPointer { bf_load16_first($0.baseAddress!, count) }
            let kept = max(0, min(count, 16))
            #expect((0..<16).map { loaded[$0] } == (0..<16).map { $0 < kept ? source[$0] : 0 }, "load, count \(count)")
            var target = [Float](repeating: -1, count: 32)
            target.withUnsafeMutableBufferPointer { bf_store16_first($0.baseAddress!, F16(source[0..<16]), count) }
            #expect(target == (0..<32).map { $0 < kept ? source[$0] : -1 }, "store, count \(count)")
        }
    }

    /// The build-target check finds nothing missing on the machine running the tests (which is
    /// running this build's code already), so the CLI never refuses a build that works.
    @Test func buildTargetFindsNothingMissingHere() {
        #expect(BuildTarget.missingCPUFeatures.isEmpty)
    }

    /// Packed weights, slopes and zero rows sit on 64-byte boundaries with their values intact
    /// (and their zero padding), empty ones included.
    @Test func alignedBuffersStartOnACacheLine() {
        for count in [0, 1, 37, 1000] {
            let values = (0..<count).map { Float($0) * 0.5 - 3 }
            let floats = AlignedBuffer(values)
            #expect(Int(bitPattern: floats.pointer) % 64 == 0)
            #expect(Array(UnsafeBufferPointer(start: floats.pointer, count: floats.count)) == values)
            let halves = AlignedBuffer(values.map { UInt16(truncatingIfNeeded: Int($0 * 2)) })
            #expect(Int(bitPattern: halves.pointer) % 64 == 0 && halves.count == count)
            // Padded with zeros (slopes and scales for whole-vector loads), or zeros alone.
            let padded = AlignedBuffer(values, padding: 5)
            #expect(Array(UnsafeBufferPointer(start: padded.pointer, count: padded.count)) == values + [0, 0, 0, 0, 0])
            let zeros = AlignedBuffer<Float>(zeros: count + 3)
            #expect(Int(bitPattern: zeros.pointer) % 64 == 0)
            #expect(Array(UnsafeBufferPointer(start: zeros.pointer, count: zeros.count)) == [Float](repeating: 0, count: count + 3))
        }
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

/// Each lane's bit pattern, so that NaN compares equal to NaN and -0 differs from +0.
private func bits<V: SIMD>(_ v: V) -> [UInt32] where V.Scalar == Float { (0..<V.scalarCount).map { v[$0].bitPattern } }
