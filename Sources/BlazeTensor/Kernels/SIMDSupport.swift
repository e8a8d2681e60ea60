// Small helpers the SIMD microkernels share: unaligned vector loads and stores, and stores of
// a vector's first lanes only (channel tails).

import CVectorMath

typealias F8 = SIMD8<Float>

extension SIMD8 where Scalar == Float {
    /// `self + a * b` per lane: one vector fma where the build has FMA; otherwise unfused, or
    /// exactly emulated with the `ExactFMA` trait (`BuildTarget.arithmetic`, CVectorMath.h).
    @inline(__always) func fma(_ a: F8, _ b: F8) -> F8 {
        #if ExactFMA
        bf_fma8_exact(a, b, self)
        #else
        bf_fma8(a, b, self)
        #endif
    }
}

extension SIMD4 where Scalar == Float {
    /// `self + a * b` per lane in the kernels' arithmetic (`BuildTarget.arithmetic`): package so
    /// that the pre-processing that must round as the kernels do (the letterbox) uses the same.
    @inlinable @inline(__always) package func fma(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
        #if ExactFMA
        bf_fma4_exact(a, b, self)
        #else
        bf_fma4(a, b, self)
        #endif
    }
}

/// Sixteen lanes: one AVX-512 register, or two AVX2 registers that LLVM pairs up (a 16-channel
/// tile row written once for both).
typealias F16 = SIMD16<Float>

extension SIMD16 where Scalar == Float {
    /// `self + a * b` per lane, as `SIMD8.fma` (`bf_fma16`).
    @inline(__always) func fma(_ a: F16, _ b: F16) -> F16 {
        #if ExactFMA
        bf_fma16_exact(a, b, self)
        #else
        bf_fma16(a, b, self)
        #endif
    }
}

@inline(__always) func load16(_ p: UnsafePointer<Float>) -> F16 {
    UnsafeRawPointer(p).loadUnaligned(as: F16.self)
}

@inline(__always) func store16(_ v: F16, _ p: UnsafeMutablePointer<Float>) {
    UnsafeMutableRawPointer(p).storeBytes(of: v, as: F16.self)
}

@inline(__always) func load8(_ p: UnsafePointer<Float>) -> F8 {
    UnsafeRawPointer(p).loadUnaligned(as: F8.self)
}

@inline(__always) func store8(_ v: F8, _ p: UnsafeMutablePointer<Float>) {
    UnsafeMutableRawPointer(p).storeBytes(of: v, as: F8.self)
}

/// Stores lanes `0..<count` of `v` (count 1...8).
@inline(__always) func store8(_ v: F8, _ p: UnsafeMutablePointer<Float>, count: Int) {
    if count == 8 { store8(v, p); return }
    for i in 0..<count { p[i] = v[i] }
}

/// Lanes `0..<count` of a full vector load, zero in the others (count may be <= 0 or >= 8).
/// Reads all eight floats: only for buffers with `kernelSlack` past their end.
@inline(__always) func load8Masked(_ p: UnsafePointer<Float>, count: Int) -> F8 {
    let v = load8(p)
    return count >= 8 ? v : bf_first_lanes8(v, Int32(truncatingIfNeeded: max(count, 0)))
}

/// Loads lanes `0..<count` (count 0...8), zero in the others; never reads past `count`.
@inline(__always) func load8(_ p: UnsafePointer<Float>, count: Int) -> F8 {
    if count >= 8 { return load8(p) }
    var v = F8()
    for i in 0..<count { v[i] = p[i] }
    return v
}

extension SIMD8 where Scalar == Float {
    /// The larger of each pair of lanes (a vector maxps; see CVectorMath.h).
    @inline(__always) func pointwiseMax(_ other: F8) -> F8 { bf_max8(self, other) }
}

extension Activation {
    @inline(__always) func apply(_ v: F16) -> F16 {
        switch self {
        case .none: v
        case .relu: bf_max16(v, F16())
        case .relu6: bf_min16(bf_max16(v, F16()), F16(repeating: 6))
        }
    }

    @inline(__always) func apply(_ v: SIMD4<Float>) -> SIMD4<Float> {
        switch self {
        case .none: v
        case .relu: bf_max4(v, SIMD4())
        case .relu6: bf_min4(bf_max4(v, SIMD4()), SIMD4(repeating: 6))
        }
    }

    @inline(__always) func apply(_ v: F8) -> F8 {
        switch self {
        case .none: v
        case .relu: bf_max8(v, F8())
        case .relu6: bf_min8(bf_max8(v, F8()), F8(repeating: 6))
        }
    }
}

/// Values on a 64-byte boundary (a cache line, one AVX-512 vector), allocated once at load or
/// bind time, for what kernels read as vectors: packed weights, PReLU slopes, scales, rows of
/// zeros. A vector load that straddles two cache lines costs about twice as much, and `Array`
/// storage is only 16-byte aligned. Measured on this project's Zen 4 with the 8x8-tile GEMM
/// (K 16, PReLU): weights 16 bytes off a line boundary took it from 85 to 77 GFLOP/s.
final class AlignedBuffer<Element: BitwiseCopyable>: @unchecked Sendable {
    let pointer: UnsafePointer<Element>
    /// `values.count + padding`.
    let count: Int

    /// `values`, then `padding` zero elements (say `kernelSlack`, for whole-vector loads at the end).
    init(_ values: [Element], padding: Int = 0) {
        let capacity = max(values.count + padding, 1)
        let storage = UnsafeMutableRawPointer.allocate(byteCount: capacity * MemoryLayout<Element>.stride, alignment: 64)
            .initializeMemory(as: UInt8.self, repeating: 0, count: capacity * MemoryLayout<Element>.stride)
        let typed = UnsafeMutableRawPointer(storage).bindMemory(to: Element.self, capacity: capacity)
        values.withUnsafeBufferPointer { if let base = $0.baseAddress { typed.update(from: base, count: $0.count) } }
        (pointer, count) = (UnsafePointer(typed), values.count + padding)
    }

    /// `count` zero elements.
    convenience init(zeros count: Int) { self.init([], padding: count) }

    deinit { UnsafeMutableRawPointer(mutating: pointer).deallocate() }
}
