// The few vector operations the kernels need that Swift's standard library implements as
// per-lane loops (which LLVM may or may not turn back into one instruction): fused
// multiply-add, maximum, minimum and keeping the first lanes. Each is one LLVM vector
// operation here: one vfmadd/vmaxps/vandps on AVX2, one NEON instruction on arm64, exact
// per-lane fallbacks elsewhere. Swift imports the types as SIMD8<Float> and SIMD4<Float>.
// Also a few shuffle-heavy helpers Swift cannot spell (8x8 transposes, column sums), rounding
// to even, and half-float conversion. The pixel warps are CPixelWarp's, the CPU checks CProcessor's.
#ifndef C_VECTOR_MATH_H
#define C_VECTOR_MATH_H

// -Wpsabi ("AVX vector argument of type ... without 'avx512f' enabled changes the ABI") is
// clang's warning that a 32- or 64-byte vector passed by value is passed differently by code
// built with and without AVX (AVX-512), which matters when a function is called across
// translation units built for different CPUs. Clang checks it at each call site before
// inlining, so the calls between these helpers (bf_load16_first -> bf_first_lanes16,
// bf_fma16_exact -> bf_fma16, bf_round_even8 in the OpenCV positions) warn whenever the including
// module is built without AVX-512 (an AVX2 or portable build). Every function here is `static
// inline` (internal linkage, always inlined): no call ever crosses a translation unit, so no
// ABI is ever shared and the warning cannot apply. It is silenced for this header only, with
// no change to the code (the generated instructions, and so every result, are the same).
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wpsabi"

typedef float bf_float8 __attribute__((ext_vector_type(8)));
typedef float bf_float4 __attribute__((ext_vector_type(4)));
typedef float bf_float16 __attribute__((ext_vector_type(16)));
typedef int bf_int8 __attribute__((ext_vector_type(8)));
typedef int bf_int16 __attribute__((ext_vector_type(16)));
typedef int bf_int4 __attribute__((ext_vector_type(4)));
typedef float bf_float16_unaligned __attribute__((ext_vector_type(16), aligned(4)));
typedef int bf_int16_unaligned __attribute__((ext_vector_type(16), aligned(4)));

// a * b + c in three arithmetics (BuildTarget.Arithmetic says which this build uses):
// - hardware fma (compiled with FMA: `-target-cpu haswell` or newer, every arm64): one rounding,
//   one instruction. Bit-identical to TFLite + XNNPACK, which uses fma on those CPUs too.
// - unfused, `bf_fma*` on x86-64 compiled without FMA (a dependent's plain build): a * b, then
//   + c, two roundings, one multiply and one add. Not the same bits; within 1e-5 of them on the
//   models here (Docs/performance.md). The default there because it is 20x faster than:
// - emulated fma, `bf_fma*_exact` there: the correctly rounded result, in double precision
//   (below). The kernels use it when built with the `ExactFMA` package trait.
#if defined(__FMA__) || defined(__ARM_FEATURE_FMA) || !defined(__x86_64__)
#define BF_HARDWARE_FMA 1
#else
#define BF_HARDWARE_FMA 0
#endif

#if BF_HARDWARE_FMA

/// a * b + c in each lane, rounded once.
static inline __attribute__((always_inline)) bf_float8 bf_fma8(bf_float8 a, bf_float8 b, bf_float8 c) {
    return __builtin_elementwise_fma(a, b, c);
}

/// The same on sixteen lanes: one vfmadd on AVX-512, two on AVX2.
static inline __attribute__((always_inline)) bf_float16 bf_fma16(bf_float16 a, bf_float16 b, bf_float16 c) {
    return __builtin_elementwise_fma(a, b, c);
}

/// a * b + c in each lane of a SIMD4<Float>, rounded once.
static inline __attribute__((always_inline)) bf_float4 bf_fma4(bf_float4 a, bf_float4 b, bf_float4 c) {
    return __builtin_elementwise_fma(a, b, c);
}

/// The hardware fma is the exact one: `bf_fma*_exact` are `bf_fma*` here.
static inline __attribute__((always_inline)) bf_float8 bf_fma8_exact(bf_float8 a, bf_float8 b, bf_float8 c) { return bf_fma8(a, b, c); }
static inline __attribute__((always_inline)) bf_float16 bf_fma16_exact(bf_float16 a, bf_float16 b, bf_float16 c) { return bf_fma16(a, b, c); }
static inline __attribute__((always_inline)) bf_float4 bf_fma4_exact(bf_float4 a, bf_float4 b, bf_float4 c) { return bf_fma4(a, b, c); }

#else

// x86-64 without FMA at compile time. Unfused: LLVM would call fmaf per lane for an fma.
#pragma clang fp contract(off)
static inline __attribute__((always_inline)) bf_float8 bf_fma8(bf_float8 a, bf_float8 b, bf_float8 c) {
    return a * b + c;
}

static inline __attribute__((always_inline)) bf_float16 bf_fma16(bf_float16 a, bf_float16 b, bf_float16 c) {
    return a * b + c;
}

static inline __attribute__((always_inline)) bf_float4 bf_fma4(bf_float4 a, bf_float4 b, bf_float4 c) {
    return a * b + c;
}
#pragma clang fp contract(on)

// Exact, in double: a float product is exact in double; the sum is rounded to odd (TwoSum,
// then the last bit set where inexact), and rounding that to float gives the correctly rounded
// fma (Boldo & Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms using
// rounding to odd", 2008; needs 53 >= 2 * 24 + 2 bits).
typedef double bf_double4 __attribute__((ext_vector_type(4)));
typedef long bf_long4 __attribute__((ext_vector_type(4)));

static inline __attribute__((always_inline)) bf_float4 bf_fma4_exact(bf_float4 a, bf_float4 b, bf_float4 c) {
    bf_double4 p = __builtin_convertvector(a, bf_double4) * __builtin_convertvector(b, bf_double4);
    bf_double4 cd = __builtin_convertvector(c, bf_double4);
    bf_double4 s = p + cd;
    bf_double4 t = s - p;
    bf_double4 e = (p - (s - t)) + (cd - t);                      // p + cd == s + e exactly
    bf_long4 bits = (bf_long4)s;
    bf_long4 finite = (s - s) == 0;
    bf_long4 inexactEven = (e != 0) & ((bits & 1) == 0) & finite;
    bf_long4 towardE = ((e > 0) == (s > 0));                      // -1 where e grows |s|
    bits += inexactEven & ((towardE & 2) - 1);                    // +1 or -1 ulp, to the odd neighbour
    return __builtin_convertvector((bf_double4)bits, bf_float4);
}

static inline __attribute__((always_inline)) bf_float8 bf_fma8_exact(bf_float8 a, bf_float8 b, bf_float8 c) {
    bf_float4 lo = bf_fma4_exact(__builtin_shufflevector(a, a, 0, 1, 2, 3), __builtin_shufflevector(b, b, 0, 1, 2, 3),
                                 __builtin_shufflevector(c, c, 0, 1, 2, 3));
    bf_float4 hi = bf_fma4_exact(__builtin_shufflevector(a, a, 4, 5, 6, 7), __builtin_shufflevector(b, b, 4, 5, 6, 7),
                                 __builtin_shufflevector(c, c, 4, 5, 6, 7));
    return __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7);
}

static inline __attribute__((always_inline)) bf_float16 bf_fma16_exact(bf_float16 a, bf_float16 b, bf_float16 c) {
    bf_float8 lo = bf_fma8_exact(a.lo, b.lo, c.lo), hi = bf_fma8_exact(a.hi, b.hi, c.hi);
    return __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
}

#endif

/// Whether `bf_fma*` is the hardware fma (1) or unfused (0); `bf_fma*_exact` is exact either way.
static inline int bf_has_hardware_fma(void) { return BF_HARDWARE_FMA; }

/// max(a, b) per lane; where one is NaN, the other (as x86's maxps with TFLite's operand order).
static inline __attribute__((always_inline)) bf_float8 bf_max8(bf_float8 a, bf_float8 b) {
    return __builtin_elementwise_max(a, b);
}

/// min(a, b) per lane.
static inline __attribute__((always_inline)) bf_float8 bf_min8(bf_float8 a, bf_float8 b) {
    return __builtin_elementwise_min(a, b);
}

/// The same on four lanes (SSE builds' depthwise halves).
static inline __attribute__((always_inline)) bf_float4 bf_max4(bf_float4 a, bf_float4 b) {
    return __builtin_elementwise_max(a, b);
}

static inline __attribute__((always_inline)) bf_float4 bf_min4(bf_float4 a, bf_float4 b) {
    return __builtin_elementwise_min(a, b);
}

/// Lanes 0..<count of v, +0 in the others (bitwise, so whatever the other lanes held).
static inline __attribute__((always_inline)) bf_float8 bf_first_lanes8(bf_float8 v, int count) {
    const bf_int8 lane = {0, 1, 2, 3, 4, 5, 6, 7};
    const bf_int8 keep = lane < count;
    return (bf_float8)((bf_int8)v & keep);
}

/// Lanes where v < 0 take `negative`, the others keep v (PReLU's selection).
static inline __attribute__((always_inline)) bf_float8 bf_select_negative8(bf_float8 v, bf_float8 negative) {
    const bf_int8 isNegative = v < 0;
    return (bf_float8)(((bf_int8)negative & isNegative) | ((bf_int8)v & ~isNegative));
}

/// The same four on sixteen lanes (the 16-channel tiles' epilogue): one instruction each on
/// AVX-512, two on AVX2.
static inline __attribute__((always_inline)) bf_float16 bf_max16(bf_float16 a, bf_float16 b) {
    return __builtin_elementwise_max(a, b);
}

static inline __attribute__((always_inline)) bf_float16 bf_min16(bf_float16 a, bf_float16 b) {
    return __builtin_elementwise_min(a, b);
}

static inline __attribute__((always_inline)) bf_float16 bf_first_lanes16(bf_float16 v, int count) {
    const bf_int16 lane = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    const bf_int16 keep = lane < count;
    return (bf_float16)((bf_int16)v & keep);
}

static inline __attribute__((always_inline)) bf_float16 bf_select_negative16(bf_float16 v, bf_float16 negative) {
    const bf_int16 isNegative = v < 0;
    return (bf_float16)(((bf_int16)negative & isNegative) | ((bf_int16)v & ~isNegative));
}

#if defined(__AVX512F__)
/// The AVX-512 mask of lanes 0..<count (count clamped to 0...16).
static inline __attribute__((always_inline)) unsigned short bf_first_mask16(long count) {
    return count >= 16 ? 0xFFFF : count <= 0 ? 0 : (unsigned short)((1u << count) - 1);
}
#endif

/// Lanes 0..<count of the 16 floats at p (count clamped to 0...16), +0 in the others; reads
/// only those lanes with AVX-512 (one masked load, no branch), all 16 floats otherwise.
static inline __attribute__((always_inline)) bf_float16 bf_load16_first(const float *p, long count) {
#if defined(__AVX512F__)
    return (bf_float16)__builtin_ia32_loadups512_mask(p, (bf_float16){0}, bf_first_mask16(count));
#else
    if (count >= 16) { return *(const bf_float16_unaligned *)p; }
    if (count <= 0) { return (bf_float16){0}; }
    return bf_first_lanes16(*(const bf_float16_unaligned *)p, (int)count);
#endif
}

/// Stores lanes 0..<count of v to p (count clamped to 0...16): one masked store with AVX-512.
static inline __attribute__((always_inline)) void bf_store16_first(float *p, bf_float16 v, long count) {
#if defined(__AVX512F__)
    __builtin_ia32_storeups512_mask(p, v, bf_first_mask16(count));
#else
    if (count >= 16) { *(bf_float16_unaligned *)p = v; return; }
    for (long i = 0; i < count; i++) { p[i] = v[i]; }
#endif
}

/// libm's expf (the C library's, as TFLite's reference LOGISTIC uses).
static inline __attribute__((always_inline)) float bf_expf(float x) {
    return __builtin_expf(x);
}

typedef double bf_double8 __attribute__((ext_vector_type(8)));
typedef long long bf_long8 __attribute__((ext_vector_type(8)));

/// `x` rounded to the nearest integer, ties to even, for |x| < 2^51: one roundpd with SSE4.1;
/// without it (LLVM would call libm's roundeven per lane), adding and subtracting 1.5 * 2^52,
/// whose sum has no fraction bits, so the addition rounds in the default mode, to even.
static inline __attribute__((always_inline)) bf_double8 bf_round_even8(bf_double8 x) {
#if defined(__x86_64__) && !defined(__SSE4_1__)
#pragma clang fp contract(off)
    const bf_double8 magic = 6755399441055744.0;
    return (x + magic) - magic;
#else
    return __builtin_elementwise_roundeven(x);
#endif
}

/// Transposes an 8x8 block held in vectors: `c[j]` becomes column j of rows `r[0]`...`r[7]`
/// (lane i from `r[i]`). Three rounds of shuffles (unpack, pair, 128-bit halves), as XNNPACK's
/// x32 transpose microkernels do.
static inline __attribute__((always_inline)) void bf_transpose8x8_vectors(const bf_float8 r[8], bf_float8 c[8]) {
    // Interleave row pairs: t0 = r0[0] r1[0] r0[1] r1[1] | r0[4] r1[4] r0[5] r1[5], ...
    bf_float8 t0 = __builtin_shufflevector(r[0], r[1], 0, 8, 1, 9, 4, 12, 5, 13);
    bf_float8 t1 = __builtin_shufflevector(r[0], r[1], 2, 10, 3, 11, 6, 14, 7, 15);
    bf_float8 t2 = __builtin_shufflevector(r[2], r[3], 0, 8, 1, 9, 4, 12, 5, 13);
    bf_float8 t3 = __builtin_shufflevector(r[2], r[3], 2, 10, 3, 11, 6, 14, 7, 15);
    bf_float8 t4 = __builtin_shufflevector(r[4], r[5], 0, 8, 1, 9, 4, 12, 5, 13);
    bf_float8 t5 = __builtin_shufflevector(r[4], r[5], 2, 10, 3, 11, 6, 14, 7, 15);
    bf_float8 t6 = __builtin_shufflevector(r[6], r[7], 0, 8, 1, 9, 4, 12, 5, 13);
    bf_float8 t7 = __builtin_shufflevector(r[6], r[7], 2, 10, 3, 11, 6, 14, 7, 15);
    // Pair them: u0 = column 0 of rows 0-3 | column 4 of rows 0-3, ...
    bf_float8 u0 = __builtin_shufflevector(t0, t2, 0, 1, 8, 9, 4, 5, 12, 13);
    bf_float8 u1 = __builtin_shufflevector(t0, t2, 2, 3, 10, 11, 6, 7, 14, 15);
    bf_float8 u2 = __builtin_shufflevector(t1, t3, 0, 1, 8, 9, 4, 5, 12, 13);
    bf_float8 u3 = __builtin_shufflevector(t1, t3, 2, 3, 10, 11, 6, 7, 14, 15);
    bf_float8 u4 = __builtin_shufflevector(t4, t6, 0, 1, 8, 9, 4, 5, 12, 13);
    bf_float8 u5 = __builtin_shufflevector(t4, t6, 2, 3, 10, 11, 6, 7, 14, 15);
    bf_float8 u6 = __builtin_shufflevector(t5, t7, 0, 1, 8, 9, 4, 5, 12, 13);
    bf_float8 u7 = __builtin_shufflevector(t5, t7, 2, 3, 10, 11, 6, 7, 14, 15);
    // Join the 128-bit halves of rows 0-3 and 4-7.
    c[0] = __builtin_shufflevector(u0, u4, 0, 1, 2, 3, 8, 9, 10, 11);
    c[1] = __builtin_shufflevector(u1, u5, 0, 1, 2, 3, 8, 9, 10, 11);
    c[2] = __builtin_shufflevector(u2, u6, 0, 1, 2, 3, 8, 9, 10, 11);
    c[3] = __builtin_shufflevector(u3, u7, 0, 1, 2, 3, 8, 9, 10, 11);
    c[4] = __builtin_shufflevector(u0, u4, 4, 5, 6, 7, 12, 13, 14, 15);
    c[5] = __builtin_shufflevector(u1, u5, 4, 5, 6, 7, 12, 13, 14, 15);
    c[6] = __builtin_shufflevector(u2, u6, 4, 5, 6, 7, 12, 13, 14, 15);
    c[7] = __builtin_shufflevector(u3, u7, 4, 5, 6, 7, 12, 13, 14, 15);
}

/// Transposes an 8x8 block of floats: row i of `src` (8 floats at `src + i * srcStride`)
/// becomes column i of `dst` (rows at `dst + j * dstStride`); unaligned.
typedef float bf_float8_unaligned __attribute__((ext_vector_type(8), aligned(4)));

static inline __attribute__((always_inline)) void bf_transpose8x8(const float *src, long srcStride,
                                                                  float *dst, long dstStride) {
    bf_float8 r[8], c[8];
    for (int i = 0; i < 8; i++) r[i] = *(const bf_float8_unaligned *)(src + i * srcStride);
    bf_transpose8x8_vectors(r, c);
    for (int j = 0; j < 8; j++) *(bf_float8_unaligned *)(dst + j * dstStride) = c[j];
}

/// `sum` plus the eight columns of the block of rows `r0`...`r7`, one column after the other:
/// lane i adds row i's eight floats one by one in index order, as a sequential scalar sum does.
static inline __attribute__((always_inline)) bf_float8 bf_add_columns8x8(bf_float8 sum, bf_float8 r0, bf_float8 r1,
                                                                         bf_float8 r2, bf_float8 r3, bf_float8 r4,
                                                                         bf_float8 r5, bf_float8 r6, bf_float8 r7) {
    const bf_float8 r[8] = {r0, r1, r2, r3, r4, r5, r6, r7};
    bf_float8 c[8];
    bf_transpose8x8_vectors(r, c);
    for (int j = 0; j < 8; j++) sum = sum + c[j];
    return sum;
}

typedef unsigned short bf_ushort16_unaligned __attribute__((ext_vector_type(16), aligned(2)));
typedef _Float16 bf_half16 __attribute__((ext_vector_type(16)));

/// `v` rounded to an IEEE half (its bits), and back: `bf_half_to_float(bf_float_to_half(v)) == v`
/// exactly when `v` is a half. (In C so that Swift code needs no `Float16`, which some
/// platforms, such as macOS on Intel, do not have.)
static inline unsigned short bf_float_to_half(float v) {
    _Float16 h = (_Float16)v;
    return *(unsigned short *)&h;
}

static inline float bf_half_to_float(unsigned short bits) {
    return (float)*(_Float16 *)&bits;
}

/// Sixteen IEEE half-precision values (their bits at `p`) widened to float: exact (every half
/// is a float). One vcvtph2ps on AVX-512, two on AVX2 with F16C.
static inline __attribute__((always_inline)) bf_float16 bf_load_half16(const unsigned short *p) {
    bf_ushort16_unaligned bits = *(const bf_ushort16_unaligned *)p;
    return __builtin_convertvector((bf_half16)bits, bf_float16);
}

/// Asks for the cache line holding `p` to be brought into cache. A hint only: no fault, no
/// effect on any result.
static inline __attribute__((always_inline)) void bf_prefetch(const void *p) { __builtin_prefetch(p, 0, 3); }

/// out[i] = a[i] + (b[i] - a[i]) * t, rounded half away from zero and clamped to 0...255, for
/// i in 0 ..< count: a blurred mask's scale-up between two of its rows (FaceRedaction's
/// FaceMask). Every lane does the same unfused operations, so the loop's vectorisation gives
/// the bits of Swift's `(a + (b - a) * t).rounded()` on each value.
static inline void bf_lerp_round_bytes(const float *a, const float *b, float t, long count, unsigned char *out) {
#pragma clang fp contract(off)
    for (long i = 0; i < count; i++) {
        float v = __builtin_roundf(a[i] + (b[i] - a[i]) * t);
        v = v > 0 ? v : 0;
        v = v < 255 ? v : 255;
        out[i] = (unsigned char)v;
    }
}

#pragma clang diagnostic pop

#endif
