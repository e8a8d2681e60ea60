// The bfloat16 pointwise convolution's conversions and its AVX512-BF16 GEMM (see the header).
#include "CBFloat16.h"
#include "CProcessor.h"
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>

/// `bf_cpu_features()` (CProcessor), asked once (cpuid is too slow to ask per call), without
/// AVX512-BF16 where the environment sets BLAZEFACE_BF16_DOT_PRODUCT=0 (the other path on any
/// CPU: the same bits, for checks and timings). Every thread that races here computes the same.
static int bf16_cpu(void) {
    static int known = 0;   // 0 not yet known, else the features + 16
    int value = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (value == 0) {
        const int features = bf_cpu_features();
        const char *dot = getenv("BLAZEFACE_BF16_DOT_PRODUCT");
        value = ((features < 0 ? 0 : features) & ~(dot != NULL && strcmp(dot, "0") == 0 ? 8 : 0)) + 16;
        __atomic_store_n(&known, value, __ATOMIC_RELAXED);
    }
    return value - 16;
}
#endif

/// The bfloat16 nearest to `f` (ties to even), as its 16 bits: zero and subnormals to zero of
/// their sign (as vcvtneps2bf16 and vdpbf16ps treat subnormal inputs), NaN kept, made quiet.
/// Without branches, so that the loops over it vectorise.
static inline uint32_t bf16_bits(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    const uint32_t nan = (u & 0x7fffffffu) > 0x7f800000u ? (u >> 16) | 0x40u : rounded;
    return (u & 0x7f800000u) == 0 ? (u >> 16) & 0x8000u : nan;
}

static inline float bf16_float(uint32_t bits) {
    const uint32_t u = bits << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

void bf16_round_floats(const float *input, long count, float *output) {
    for (long i = 0; i < count; i++) { output[i] = bf16_float(bf16_bits(input[i])); }
}

/// `pairs` pairs rounded and swapped: one 64-bit word a pair, its halves exchanged.
static inline __attribute__((always_inline)) void bf16_round_swap_words(const float *input, long pairs, float *output) {
    for (long i = 0; i < pairs; i++) {
        const uint32_t even = bf16_bits(input[2 * i]), odd = bf16_bits(input[2 * i + 1]);
        uint64_t w = (uint64_t)(even << 16) << 32 | (uint64_t)(odd << 16);
        memcpy(output + 2 * i, &w, sizeof w);
    }
}

#if defined(__x86_64__)
/// `bf16_bits` eight floats at a time with AVX2 (the C targets are built for the baseline CPU),
/// each pair then swapped; the pairs past the last eight floats by the loop above.
static __attribute__((target("avx2"))) void bf16_round_swap_words_avx2(const float *input, long pairs, float *output) {
    const __m256i exponent = _mm256_set1_epi32(0x7f800000), magnitude = _mm256_set1_epi32(0x7fffffff);
    const __m256i sign = _mm256_set1_epi32((int)0x80000000u), quiet = _mm256_set1_epi32(0x00400000);
    const __m256i high = _mm256_set1_epi32((int)0xffff0000u), half = _mm256_set1_epi32(0x7fff), one = _mm256_set1_epi32(1);
    const long count = 2 * pairs;
    long i = 0;
    for (; i + 8 <= count; i += 8) {
        const __m256i u = _mm256_loadu_si256((const __m256i *)(input + i));
        const __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(u, 16), one);
        const __m256i rounded = _mm256_and_si256(_mm256_add_epi32(_mm256_add_epi32(u, half), lsb), high);
        const __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(u, magnitude), exponent);
        const __m256i tiny = _mm256_cmpeq_epi32(_mm256_and_si256(u, exponent), _mm256_setzero_si256());
        __m256i r = _mm256_blendv_epi8(rounded, _mm256_and_si256(_mm256_or_si256(u, quiet), high), nan);
        r = _mm256_blendv_epi8(r, _mm256_and_si256(u, sign), tiny);
        _mm256_storeu_si256((__m256i *)(output + i), _mm256_shuffle_epi32(r, 0xB1));   // (1, 0, 3, 2) in each half
    }
    bf16_round_swap_words(input + i, (count - i) / 2, output + i);
}
#endif

void bf16_round_swapping_pairs(const float *input, long channels, float *output) {
    const long whole = channels / 2;
#if defined(__x86_64__)
    if (bf16_cpu() & 1) {
        bf16_round_swap_words_avx2(input, whole, output);
    } else {
        bf16_round_swap_words(input, whole, output);
    }
#else
    bf16_round_swap_words(input, whole, output);
#endif
    if (channels > 2 * whole) {
        output[2 * whole] = 0;
        output[2 * whole + 1] = bf16_float(bf16_bits(input[channels - 1]));
    }
}

static void bf16_pack_pairs_portable(const float *input, long pixels, long channels, long inputStride, uint32_t *output) {
    const long pairs = (channels + 1) / 2, whole = channels / 2;
    for (long p = 0; p < pixels; p++) {
        const float *x = input + p * inputStride;
        uint32_t *y = output + p * pairs;
        for (long i = 0; i < whole; i++) { y[i] = bf16_bits(x[2 * i + 1]) << 16 | bf16_bits(x[2 * i]); }
        if (pairs > whole) { y[whole] = bf16_bits(x[channels - 1]); }
    }
}

#if defined(__x86_64__)

int bf16_cpu_has_dot_product(void) { return (bf16_cpu() & 12) == 12; }   // AVX-512 and AVX512-BF16

#define BF16_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16")))

/// vcvtne2ps2bf16 rounds as `bf16_bits` does (the tests compare them), 32 channels at a time.
static BF16_TARGET void bf16_pack_pairs_avx512(const float *input, long pixels, long channels, long inputStride,
                                               uint32_t *output) {
    const long pairs = (channels + 1) / 2;
    for (long p = 0; p < pixels; p++) {
        const float *x = input + p * inputStride;
        uint32_t *y = output + p * pairs;
        for (long c = 0; c < channels; c += 32) {
            const long left = channels - c;
            const __mmask16 m0 = left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1);
            const __mmask16 m1 = left >= 32 ? (__mmask16)0xFFFF : left <= 16 ? 0 : (__mmask16)((1u << (left - 16)) - 1);
            const __m512 lo = _mm512_maskz_loadu_ps(m0, x + c), hi = _mm512_maskz_loadu_ps(m1, x + c + 16);
            const long words = left >= 32 ? 16 : (left + 1) / 2;
            const __mmask16 mw = words >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << words) - 1);
            _mm512_mask_storeu_epi32(y + c / 2, mw, (__m512i)_mm512_cvtne2ps_pbh(hi, lo));
        }
    }
}

/// An even channel count with rows back to back: the pairs never straddle two pixels, so the
/// rows are one run of `count` floats, converted 32 at a time with one masked tail.
static BF16_TARGET void bf16_pack_run_avx512(const float *input, long count, uint32_t *output) {
    long i = 0;
    for (; i + 32 <= count; i += 32) {
        const __m512 lo = _mm512_loadu_ps(input + i), hi = _mm512_loadu_ps(input + i + 16);
        _mm512_storeu_si512(output + i / 2, (__m512i)_mm512_cvtne2ps_pbh(hi, lo));
    }
    if (i < count) { bf16_pack_pairs_avx512(input + i, 1, count - i, count - i, output + i / 2); }
}

void bf16_pack_pairs(const float *input, long pixels, long channels, long inputStride, uint32_t *output) {
    if (bf16_cpu_has_dot_product() && channels % 2 == 0 && inputStride == channels) {
        bf16_pack_run_avx512(input, pixels * channels, output);
    } else if (bf16_cpu_has_dot_product()) {
        bf16_pack_pairs_avx512(input, pixels, channels, inputStride, output);
    } else {
        bf16_pack_pairs_portable(input, pixels, channels, inputStride, output);
    }
}

/// `np` pixels (rows of `a`) x `nz` columns of 16 output channels (zmm) and `ny` column of 8
/// (ymm) from channel `o`: accumulators start at the bias, each pair of channels adds its two
/// products (the odd channel's first), lanes past `oc` are not stored. `w` points at the first
/// column's weights, columns `pairs * 16` words apart.
static inline __attribute__((always_inline)) BF16_TARGET void bf16_tile(
    const uint32_t *a, long pairs, const uint32_t *w, const float *bias, float *out, long oc, long o,
    const int np, const int nz, const int ny) {
    __m512 z0[8], z1[8];
    __m256 y0[8];
    const uint32_t *w0 = w, *w1 = w + pairs * 16, *wy = w + nz * pairs * 16;
    const float *by = bias + 16 * nz;
    for (int i = 0; i < np; i++) {
        if (nz > 0) { z0[i] = _mm512_loadu_ps(bias); }
        if (nz > 1) { z1[i] = _mm512_loadu_ps(bias + 16); }
        if (ny > 0) { y0[i] = _mm256_loadu_ps(by); }
    }
    for (long k = 0; k < pairs; k++) {
        __m512bh x0 = (__m512bh)_mm512_setzero_si512(), x1 = x0;
        __m256bh xy = (__m256bh)_mm256_setzero_si256();
        if (nz > 0) { x0 = (__m512bh)_mm512_loadu_si512(w0 + k * 16); }
        if (nz > 1) { x1 = (__m512bh)_mm512_loadu_si512(w1 + k * 16); }
        if (ny > 0) { xy = (__m256bh)_mm256_loadu_si256((const __m256i *)(wy + k * 16)); }
        for (int i = 0; i < np; i++) {
            const int word = (int)a[i * pairs + k];
            const __m512bh v = (__m512bh)_mm512_set1_epi32(word);
            if (nz > 0) { z0[i] = _mm512_dpbf16_ps(z0[i], v, x0); }
            if (nz > 1) { z1[i] = _mm512_dpbf16_ps(z1[i], v, x1); }
            if (ny > 0) { y0[i] = _mm256_dpbf16_ps(y0[i], (__m256bh)_mm256_set1_epi32(word), xy); }
        }
    }
    for (int j = 0; j < nz; j++) {
        const long lanes = oc - (o + 16 * j);
        const __mmask16 m = lanes >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << lanes) - 1);
        for (int i = 0; i < np; i++) { _mm512_mask_storeu_ps(out + i * oc + o + 16 * j, m, j == 0 ? z0[i] : z1[i]); }
    }
    if (ny > 0) {
        const long lanes = oc - (o + 16 * nz);
        const __mmask8 m = lanes >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << lanes) - 1);
        for (int i = 0; i < np; i++) { _mm256_mask_storeu_ps(out + i * oc + o + 16 * nz, m, y0[i]); }
    }
}

/// All pixels of one tile column layout, in tiles of 8, 4 and 1 pixels.
static inline __attribute__((always_inline)) BF16_TARGET void bf16_columns(
    const uint32_t *a, long pixels, long pairs, const uint32_t *w, const float *bias, float *out, long oc, long o,
    const int nz, const int ny) {
    long p = 0;
    for (; p + 8 <= pixels; p += 8) { bf16_tile(a + p * pairs, pairs, w, bias, out + p * oc, oc, o, 8, nz, ny); }
    if (p + 4 <= pixels) { bf16_tile(a + p * pairs, pairs, w, bias, out + p * oc, oc, o, 4, nz, ny); p += 4; }
    for (; p < pixels; p++) { bf16_tile(a + p * pairs, pairs, w, bias, out + p * oc, oc, o, 1, nz, ny); }
}

/// Output channels in columns of 16 (the last one masked when 9 to 15 are left) and, when 1 to
/// 8 are left, one column of 8; two columns of 16 a pass, the column of 8 with the last pass.
static BF16_TARGET void bf16_gemm_avx512(const uint32_t *a, long pixels, long pairs, const uint32_t *w,
                                         const float *bias, long oc, float *out) {
    const long tail = oc % 16, zcols = oc / 16 + (tail > 8);
    int ycol = tail > 0 && tail <= 8;
    long c = 0;
    while (c < zcols) {
        const long left = zcols - c;
        const uint32_t *wc = w + c * pairs * 16;
        if (left >= 3 || (left == 2 && !ycol)) {
            bf16_columns(a, pixels, pairs, wc, bias + 16 * c, out, oc, 16 * c, 2, 0);
            c += 2;
        } else if (left == 2) {
            bf16_columns(a, pixels, pairs, wc, bias + 16 * c, out, oc, 16 * c, 2, 1);
            c += 2; ycol = 0;
        } else if (ycol) {
            bf16_columns(a, pixels, pairs, wc, bias + 16 * c, out, oc, 16 * c, 1, 1);
            c += 1; ycol = 0;
        } else {
            bf16_columns(a, pixels, pairs, wc, bias + 16 * c, out, oc, 16 * c, 1, 0);
            c += 1;
        }
    }
    if (ycol) { bf16_columns(a, pixels, pairs, w + zcols * pairs * 16, bias + 16 * zcols, out, oc, 16 * zcols, 0, 1); }
}

void bf16_gemm(const uint32_t *a, long pixels, long pairs, const uint32_t *w, const float *bias,
               long outputChannels, float *out) {
    if (bf16_cpu_has_dot_product()) { bf16_gemm_avx512(a, pixels, pairs, w, bias, outputChannels, out); }
}

#else

int bf16_cpu_has_dot_product(void) { return 0; }

void bf16_pack_pairs(const float *input, long pixels, long channels, long inputStride, uint32_t *output) {
    bf16_pack_pairs_portable(input, pixels, channels, inputStride, output);
}

void bf16_gemm(const uint32_t *a, long pixels, long pairs, const uint32_t *w, const float *bias,
               long outputChannels, float *out) {
    (void)a; (void)pixels; (void)pairs; (void)w; (void)bias; (void)outputChannels; (void)out;
}

#endif
