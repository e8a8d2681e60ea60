// The few vector operations the kernels need that Swift's standard library implements as
// per-lane loops (which LLVM may or may not turn back into one instruction): fused
// multiply-add, maximum, minimum and keeping the first lanes. Each is one LLVM vector
// operation here: one vfmadd/vmaxps/vandps on AVX2, one NEON instruction on arm64, exact
// per-lane fallbacks elsewhere. Swift imports the types as SIMD8<Float> and SIMD4<Float>.
#ifndef C_VECTOR_FMA_H
#define C_VECTOR_FMA_H

typedef float bf_float8 __attribute__((ext_vector_type(8)));
typedef float bf_float4 __attribute__((ext_vector_type(4)));
typedef int bf_int8 __attribute__((ext_vector_type(8)));

/// a * b + c in each lane, rounded once.
static inline __attribute__((always_inline)) bf_float8 bf_fma8(bf_float8 a, bf_float8 b, bf_float8 c) {
    return __builtin_elementwise_fma(a, b, c);
}

/// max(a, b) per lane; where one is NaN, the other (as x86's maxps with TFLite's operand order).
static inline __attribute__((always_inline)) bf_float8 bf_max8(bf_float8 a, bf_float8 b) {
    return __builtin_elementwise_max(a, b);
}

/// min(a, b) per lane.
static inline __attribute__((always_inline)) bf_float8 bf_min8(bf_float8 a, bf_float8 b) {
    return __builtin_elementwise_min(a, b);
}

/// Lanes 0..<count of v, +0 in the others (bitwise, so whatever the other lanes held).
static inline __attribute__((always_inline)) bf_float8 bf_first_lanes8(bf_float8 v, int count) {
    const bf_int8 lane = {0, 1, 2, 3, 4, 5, 6, 7};
    const bf_int8 keep = lane < count;
    return (bf_float8)((bf_int8)v & keep);
}

/// The same on a SIMD4<Float>.
static inline __attribute__((always_inline)) bf_float4 bf_fma4(bf_float4 a, bf_float4 b, bf_float4 c) {
    return __builtin_elementwise_fma(a, b, c);
}

#endif
