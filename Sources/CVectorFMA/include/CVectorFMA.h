// One vector intrinsic Swift does not spell: a fused multiply-add on a whole SIMD8<Float>.
// The standard library's SIMD8.addingProduct is a per-lane loop that LLVM may or may not
// re-vectorise; this is one llvm.fma.v8f32 (a single vfmadd on AVX2/FMA, fmla on NEON,
// exact per-lane fma calls without hardware FMA). Swift imports the type as SIMD8<Float>.
#ifndef C_VECTOR_FMA_H
#define C_VECTOR_FMA_H

typedef float bf_float8 __attribute__((ext_vector_type(8)));

/// a * b + c in each lane, rounded once.
static inline __attribute__((always_inline)) bf_float8 bf_fma8(bf_float8 a, bf_float8 b, bf_float8 c) {
    return __builtin_elementwise_fma(a, b, c);
}

#endif
