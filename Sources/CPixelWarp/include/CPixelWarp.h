// OpenCV's warp, pixel for pixel: its sample positions (WarpPerspectiveInvoker, INTER_LINEAR),
// the packed-RGB bilinear tap, and the RGB and 4:2:0 YUV warps of a run of destination pixels.
// Built on CVectorMath's vector types, fma and rounding.
#ifndef C_PIXEL_WARP_H
#define C_PIXEL_WARP_H

#include "CVectorMath.h"

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

/// OpenCV's sample positions (WarpPerspectiveInvoker, INTER_LINEAR) for destination pixels
/// `first ..< first + count` of row `y`, as x, y pairs in 1/32 pixels from `out[0]`. `m` is the
/// 3x3 inverse map, row-major. As OpenCV, in double precision, the row in blocks of `blockWidth`
/// columns: a block's first column enters the sums once (`x0`, `y0`, `w0`), the offset within it
/// per pixel; `32 / w` (0 where w is 0); each product rounded half to even, clamped to the int
/// range (+-2e9 here, beyond any valid position), then the integer part (>> 5) saturated to a
/// short, the five fraction bits kept. A NaN clamps to a bound, outside the image, as OpenCV's
/// INT_MIN does. Eight pixels per step; every lane does the same operations, so any grouping
/// gives the same bits. Contraction is off: every product and sum is rounded on its own.
static inline void bf_opencv_positions_row(const double *m, long y, long first, long count, long blockWidth, int *out) {
#pragma clang fp contract(off)
    const double yd = (double)y;
    const bf_double8 lanes = {0, 1, 2, 3, 4, 5, 6, 7};
    const bf_double8 lo = -2.0e9, hi = 2.0e9;
    const bf_int8 smin = -32768, smax = 32767;
    const long end = first + count;
    long x = first;
    while (x < end) {
        const long xb = x - x % blockWidth;
        const long blockEnd = xb + blockWidth < end ? xb + blockWidth : end;
        const double x0 = m[0] * (double)xb + m[1] * yd + m[2];
        const double y0 = m[3] * (double)xb + m[4] * yd + m[5];
        const double w0 = m[6] * (double)xb + m[7] * yd + m[8];
        for (long x1 = x - xb; xb + x1 < blockEnd; x1 += 8) {
            const bf_double8 xv = lanes + (double)x1;
            const bf_double8 w = w0 + m[6] * xv;
            const bf_double8 W = (bf_double8)((bf_long8)(32.0 / w) & (bf_long8)(w != 0));
            // Clamped, then rounded: the same as OpenCV's rounding then clamping (the bounds are
            // integers), and within the magic-number rounding's range.
            const bf_double8 fx = __builtin_elementwise_max(__builtin_elementwise_min((x0 + m[0] * xv) * W, hi), lo);
            const bf_double8 fy = __builtin_elementwise_max(__builtin_elementwise_min((y0 + m[3] * xv) * W, hi), lo);
            bf_int8 xi = __builtin_convertvector(bf_round_even8(fx), bf_int8);
            bf_int8 yi = __builtin_convertvector(bf_round_even8(fy), bf_int8);
            xi = (__builtin_elementwise_max(__builtin_elementwise_min(xi >> 5, smax), smin) << 5) | (xi & 31);
            yi = (__builtin_elementwise_max(__builtin_elementwise_min(yi >> 5, smax), smin) << 5) | (yi & 31);
            const bf_int16 pairs = __builtin_shufflevector(xi, yi, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
            int *o = out + 2 * (xb + x1 - first);
            const long n = blockEnd - xb - x1;
            if (n >= 8) {
                *(bf_int16_unaligned *)o = pairs;
            } else {
                for (long k = 0; k < 2 * n; k++) o[k] = pairs[k];
            }
        }
        x = blockEnd;
    }
}

typedef unsigned char bf_uchar8 __attribute__((ext_vector_type(8)));
typedef unsigned char bf_uchar8_unaligned __attribute__((ext_vector_type(8), aligned(1)));
typedef unsigned char bf_uchar16 __attribute__((ext_vector_type(16)));
typedef short bf_short8 __attribute__((ext_vector_type(8)));

/// OpenCV's fixed-point bilinear sum of one packed-RGB pixel (remapBilinear, 8UC3): pixels x
/// and x + 1 of a row at `upper` (R, G, B, R, G, B), of the next row at `lower`, weighted
/// (32 - ax, ax) along the rows and (32 - ay, ay) across them; returns R, G, B, 0. Reads 8
/// bytes at each pointer (the last two are weighted 0). Every product and sum is exact in its
/// lanes, so the order does not change the integer. SSSE3 and up: the rows' bytes interleaved
/// and weighted (32 - ay, ay) in one pmaddubsw (each sum at most 255 * 32), then each channel's
/// left and right sums weighted (32 - ax, ax) in one pmaddwd. Elsewhere: each row's taps
/// weighted along the row, then the two rows.
static inline __attribute__((always_inline)) bf_int4 bf_bilinear_rgb(const unsigned char *upper, const unsigned char *lower,
                                                                     int ax, int ay) {
    bf_uchar8 u = *(const bf_uchar8_unaligned *)upper, l = *(const bf_uchar8_unaligned *)lower;
#if defined(__SSSE3__)
    bf_uchar16 pairs = __builtin_shufflevector(u, l, 0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
    bf_short8 wy = (bf_short8)(short)((ay << 8) | (32 - ay));
    bf_short8 columns = (bf_short8)__builtin_ia32_pmaddubsw128((__attribute__((vector_size(16))) char)pairs,
                                                             (__attribute__((vector_size(16))) char)wy);
    // (R0, R1, G0, G1, B0, B1, 0, 0): left and right column of each channel side by side.
    bf_short8 zero = 0;
    bf_short8 lr = __builtin_shufflevector(columns, zero, 0, 3, 1, 4, 2, 5, 8, 8);
    bf_int4 wx = (bf_int4)((ax << 16) | (32 - ax));
    return (bf_int4)__builtin_ia32_pmaddwd128((__attribute__((vector_size(16))) short)lr,
                                              (__attribute__((vector_size(16))) short)wx);
#elif defined(__SSE2__)
    // SSE2 alone: each row's left and right taps side by side in 16 bits, weighted (32 - ax, ax)
    // in one pmaddwd; the two rows' sums (each at most 255 * 32) paired in 16 bits and weighted
    // (32 - ay, ay) in another.
    const bf_short8 wx = {32 - ax, ax, 32 - ax, ax, 32 - ax, ax, 0, 0};
    const bf_short8 wy = {32 - ay, ay, 32 - ay, ay, 32 - ay, ay, 0, 0};
    bf_short8 ut = __builtin_convertvector(__builtin_shufflevector(u, u, 0, 3, 1, 4, 2, 5, 6, 7), bf_short8);
    bf_short8 lt = __builtin_convertvector(__builtin_shufflevector(l, l, 0, 3, 1, 4, 2, 5, 6, 7), bf_short8);
    bf_int4 up = (bf_int4)__builtin_ia32_pmaddwd128((__attribute__((vector_size(16))) short)ut,
                                                   (__attribute__((vector_size(16))) short)wx);
    bf_int4 down = (bf_int4)__builtin_ia32_pmaddwd128((__attribute__((vector_size(16))) short)lt,
                                                     (__attribute__((vector_size(16))) short)wx);
    bf_short8 rows = __builtin_convertvector(__builtin_shufflevector(up, down, 0, 4, 1, 5, 2, 6, 3, 7), bf_short8);
    return (bf_int4)__builtin_ia32_pmaddwd128((__attribute__((vector_size(16))) short)rows,
                                              (__attribute__((vector_size(16))) short)wy);
#else
    // Each channel's left and right tap side by side, the upper row then the lower.
    bf_int16 taps = __builtin_convertvector(__builtin_shufflevector(u, l, 0, 3, 1, 4, 2, 5, 6, 7,
                                                                    8, 11, 9, 12, 10, 13, 14, 15), bf_int16);
    // (32 - ax, ax) in each pair of lanes but the fourth of each row.
    const bf_int16 wx = {32 - ax, ax, 32 - ax, ax, 32 - ax, ax, 0, 0, 32 - ax, ax, 32 - ax, ax, 32 - ax, ax, 0, 0};
    bf_int16 p = taps * wx;
    bf_int8 rows = __builtin_shufflevector(p, p, 0, 2, 4, 6, 8, 10, 12, 14) + __builtin_shufflevector(p, p, 1, 3, 5, 7, 9, 11, 13, 15);
    bf_int4 up = __builtin_shufflevector(rows, rows, 0, 1, 2, 3), down = __builtin_shufflevector(rows, rows, 4, 5, 6, 7);
    return up * (32 - ay) + down * ay;
#endif
}


typedef float bf_float4_unaligned __attribute__((ext_vector_type(4), aligned(4)));
typedef float bf_float2_unaligned __attribute__((ext_vector_type(2), aligned(4)));

/// OpenCV's INTER_LINEAR warp of a packed-RGB image (remapBilinear for 8UC3, then
/// convertTo's fma(v, scale, offset)) for a run of destination pixels: `positions` holds each
/// one's sample position (x, y in 1/32 pixels, as `bf_opencv_positions_row` stores them). Writes
/// R, G, B floats for pixels 0, 1, ... to `out` while a pixel's 2x2 taps (read 8 bytes a row,
/// inside `byteCount`) lie inside the image, and returns how many it wrote. Stores may spill
/// into the next pixel's R and G (never past the last of `count`), which the next pixel (here
/// or at the caller) overwrites. With AVX2, eight pixels at a time (below). `exactFMA` picks
/// `bf_fma4_exact` over `bf_fma4` (the same where the build has FMA).
#if defined(__AVX2__)
typedef char bf_char32_t __attribute__((vector_size(32)));
typedef short bf_short16_t __attribute__((vector_size(32)));
typedef short bf_short16 __attribute__((ext_vector_type(16)));
typedef unsigned char bf_uchar32 __attribute__((ext_vector_type(32)));

/// `bf_bilinear_rgb` for pixels k and k + 1 of a group of eight, one in each 128-bit half:
/// `upper` holds the eight pixels' upper-row byte offsets from `base`, `wy` each one's
/// (32 - ay, ay) byte pair in both 16-bit halves, `wx` each one's (32 - ax, ax) 16-bit pair.
/// The same pmaddubsw and pmaddwd per half, so the same integers.
static inline __attribute__((always_inline)) bf_int8 bf_bilinear_rgb_pair(const unsigned char *base, long rowStride,
                                                                          const int *upper, int k, bf_int8 wy, bf_int8 wx) {
    const unsigned char *u0 = base + upper[k], *u1 = base + upper[k + 1];
    bf_uchar16 p0 = __builtin_shufflevector(*(const bf_uchar8_unaligned *)u0, *(const bf_uchar8_unaligned *)(u0 + rowStride),
                                            0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
    bf_uchar16 p1 = __builtin_shufflevector(*(const bf_uchar8_unaligned *)u1, *(const bf_uchar8_unaligned *)(u1 + rowStride),
                                            0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
    bf_uchar32 pairs = __builtin_shufflevector(p0, p1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                               16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31);
    const bf_int8 pick = (bf_int8){0, 0, 0, 0, 1, 1, 1, 1} + k;
    const bf_int8 wyk = (bf_int8)__builtin_ia32_permvarsi256(wy, pick), wxk = (bf_int8)__builtin_ia32_permvarsi256(wx, pick);
    bf_short16 columns = (bf_short16)__builtin_ia32_pmaddubsw256((bf_char32_t)pairs, (bf_char32_t)wyk);
    const bf_short16 zero = 0;
    bf_short16 lr = __builtin_shufflevector(columns, zero, 0, 3, 1, 4, 2, 5, 16, 16, 8, 11, 9, 12, 10, 13, 16, 16);
    return (bf_int8)__builtin_ia32_pmaddwd256((bf_short16_t)lr, (bf_short16_t)wxk);
}
#endif

static inline long bf_warp_rgb_interior(const int *positions, long count, const unsigned char *base, long rowStride,
                                        long width, long height, long byteCount, float scale, float offset, float *out,
                                        int exactFMA) {
    const bf_float4 s = scale, o = offset;
    long i = 0;
#if defined(__AVX2__)
    // Eight pixels at a time while all eight are inside: positions, bounds and weights in
    // vectors, then two pixels per 256-bit bilinear sum. Offsets in 32 bits: only for images
    // under 2 GB.
    if (byteCount < 0x7fff0000L && rowStride < 0x7fff0000L) {
        const bf_int8 w1 = (int)(width - 1), h1 = (int)(height - 1), stride = (int)rowStride, limit = (int)(byteCount - 8);
        const bf_float8 s8 = scale, o8 = offset;
        for (; i + 8 <= count; i += 8) {
            const bf_int16 p = *(const bf_int16_unaligned *)(positions + 2 * i);
            const bf_int8 X = __builtin_shufflevector(p, p, 0, 2, 4, 6, 8, 10, 12, 14);
            const bf_int8 Y = __builtin_shufflevector(p, p, 1, 3, 5, 7, 9, 11, 13, 15);
            const bf_int8 sx = X >> 5, sy = Y >> 5;
            const bf_int8 upper = sy * stride + 3 * sx;
            const bf_int8 inside = (sx >= 0) & (sx < w1) & (sy >= 0) & (sy < h1) & (upper + stride <= limit);
            if (!__builtin_reduce_and(inside)) break;
            const bf_int8 ax = X & 31, ay = Y & 31;
            const bf_int8 wy = ((ay << 8) | (32 - ay)) * 0x10001;
            const bf_int8 wx = (ax << 16) | (32 - ax);
            int offsets[8];
            *(bf_int8 *)offsets = upper;
            for (int k = 0; k < 8; k += 2) {
                const bf_int8 v = bf_bilinear_rgb_pair(base, rowStride, offsets, k, wy, wx);
                // One rounding, as OpenCV's AVX2 convertTo (an FMA) rounds.
                const bf_float8 f = __builtin_elementwise_fma(__builtin_convertvector((v + 512) >> 10, bf_float8), s8, o8);
                // R, G, B of both pixels, then two floats the next pixel overwrites; the run's
                // last pair stores its six floats alone (nothing of this call follows them).
                if (i + k + 2 < count) {
                    *(bf_float8_unaligned *)(out + 3 * (i + k)) = __builtin_shufflevector(f, f, 0, 1, 2, 4, 5, 6, 7, 7);
                } else {
                    *(bf_float4_unaligned *)(out + 3 * (i + k)) = __builtin_shufflevector(f, f, 0, 1, 2, 4);
                    *(bf_float2_unaligned *)(out + 3 * (i + k) + 4) = __builtin_shufflevector(f, f, 5, 6);
                }
            }
        }
    }
#endif
    for (; i < count; i++) {
        const int X = positions[2 * i], Y = positions[2 * i + 1];
        const long sx = X >> 5, sy = Y >> 5;
        const long upper = sy * rowStride + 3 * sx, lower = upper + rowStride;
        if (sx < 0 || sx + 1 >= width || sy < 0 || sy + 1 >= height || lower + 8 > byteCount) return i;
        const bf_int4 v = bf_bilinear_rgb(base + upper, base + lower, X & 31, Y & 31);
        // One rounding, as OpenCV's AVX2 convertTo (an FMA) rounds.
        const bf_float4 value = __builtin_convertvector((v + 512) >> 10, bf_float4);
        const bf_float4 f = exactFMA ? bf_fma4_exact(value, s, o) : bf_fma4(value, s, o);
        if (i + 1 < count) {
            *(bf_float4_unaligned *)(out + 3 * i) = f;  // the next pixel overwrites the fourth lane
        } else {
            out[3 * i] = f.x; out[3 * i + 1] = f.y; out[3 * i + 2] = f.z;
        }
    }
    return count;
}

/// R, G, B (lane 3 is 0) of one limited-range Y, Cb, Cr triple: `YUVToRGB.rgb`, the same integers.
static inline __attribute__((always_inline)) bf_int4 bf_yuv_rgb(int y, int cb, int cr) {
    const int c = 298 * (y - 16) + 128, d = cb - 128, e = cr - 128;
    const bf_int4 v = (bf_int4){c + 409 * e, c - 100 * d - 208 * e, c + 516 * d, 0} >> 8;
    const bf_int4 lo = 0, hi = (bf_int4){255, 255, 255, 0};
    return __builtin_elementwise_min(__builtin_elementwise_max(v, lo), hi);
}

#if defined(__AVX512F__)
/// Sixteen 32-bit words from `base` at the byte offsets `index` (vpgatherdd).
static inline __attribute__((always_inline)) bf_int16 bf_gather16(const unsigned char *base, bf_int16 index) {
    return (bf_int16)__builtin_ia32_gathersiv16si((bf_int16)0, (const void *)base, index, (unsigned short)0xffff, 1);
}

/// One channel of sixteen taps, clamped to 0...255: `(c + m) >> 8`.
static inline __attribute__((always_inline)) bf_int16 bf_clamp8(bf_int16 v) {
    const bf_int16 lo = 0, hi = 255;
    return __builtin_elementwise_min(__builtin_elementwise_max(v >> 8, lo), hi);
}
#endif

/// `bf_warp_rgb_interior` for 4:2:0 YUV planes (`YUVSampler`: I420, or NV12 and NV21 with
/// `chromaStep` 2): each tap converted as `bf_yuv_rgb` converts it, with the chroma sample
/// covering it, then weighted as `fourTapBilinearSum` weights them; the same integers, the same
/// fma. Writes while all four taps lie inside the image; returns how many pixels it wrote.
/// With AVX-512, sixteen pixels at a time while their taps lie above the last two rows (each
/// gather reads four bytes: the rows below keep them inside the planes): one gather brings a
/// tap row's two luma bytes, one a chroma row's two samples.
static inline long bf_warp_yuv420_interior(const int *positions, long count, const unsigned char *y, long yStride,
                                           const unsigned char *cb, const unsigned char *cr, long cbStride, long crStride,
                                           long chromaStep, long width, long height, float scale, float offset, float *out,
                                           int exactFMA) {
    long i = 0;
#if defined(__AVX512F__)
    // Offsets in 32 bits: planes under 2 GB; at least 8 columns, so that a chroma row's four
    // bytes end inside its plane.
    if (width >= 8 && (height + 1) / 2 * (cbStride > crStride ? cbStride : crStride) < 0x7fff0000L
        && height * yStride < 0x7fff0000L) {
        const bf_int16 w1 = (int)(width - 1), h3 = (int)(height - 3), ys = (int)yStride;
        const bf_int16 cbs = (int)cbStride, crs = (int)crStride, step = (int)chromaStep;
        const bf_float16 s16 = scale, o16 = offset;
        for (; i + 16 <= count; i += 16) {
            const bf_int16 p0 = *(const bf_int16_unaligned *)(positions + 2 * i);
            const bf_int16 p1 = *(const bf_int16_unaligned *)(positions + 2 * i + 16);
            const bf_int16 X = __builtin_shufflevector(p0, p1, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
            const bf_int16 Y = __builtin_shufflevector(p0, p1, 1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
            const bf_int16 sx = X >> 5, sy = Y >> 5;
            const bf_int16 inside = (sx >= 0) & (sx < w1) & (sy >= 0) & (sy < h3);
            if (!__builtin_reduce_and(inside)) break;
            const bf_int16 ax = X & 31, ay = Y & 31;
            // Luma: (sx, sy) and (sx + 1, sy) in one word, the row below in another.
            const bf_int16 top = bf_gather16(y, sy * ys + sx), bottom = bf_gather16(y, (sy + 1) * ys + sx);
            // Chroma: the samples of columns sx and sx + 1 (the same one where sx is even), rows
            // sy and sy + 1 (the same where sy is even).
            const bf_int16 cx = (sx >> 1) * step, odd = (sx & 1) != 0;
            const bf_int16 cy0 = sy >> 1, cy1 = (sy + 1) >> 1;
            const bf_int16 cbTop = bf_gather16(cb, cy0 * cbs + cx), cbBottom = bf_gather16(cb, cy1 * cbs + cx);
            const bf_int16 crTop = bf_gather16(cr, cy0 * crs + cx), crBottom = bf_gather16(cr, cy1 * crs + cx);
            const bf_int16 shift = step * 8;   // bits to the next chroma sample in the word
            const bf_int16 b00 = cbTop & 255, b10 = cbBottom & 255, r00 = crTop & 255, r10 = crBottom & 255;
            const bf_int16 b01 = odd ? (cbTop >> shift) & 255 : b00, b11 = odd ? (cbBottom >> shift) & 255 : b10;
            const bf_int16 r01 = odd ? (crTop >> shift) & 255 : r00, r11 = odd ? (crBottom >> shift) & 255 : r10;
            const bf_int16 wy0 = 32 - ay, wx0 = 32 - ax;
            const bf_int16 w00 = wy0 * wx0, w01 = wy0 * ax, w10 = ay * wx0, w11 = ay * ax;
            bf_int16 sumR = 0, sumG = 0, sumB = 0;
#define BF_YUV_TAP16(luma, cbv, crv, w) do { \
                const bf_int16 c = 298 * ((luma) - 16) + 128, d = (cbv) - 128, e = (crv) - 128; \
                sumR += bf_clamp8(c + 409 * e) * (w); \
                sumG += bf_clamp8(c - 100 * d - 208 * e) * (w); \
                sumB += bf_clamp8(c + 516 * d) * (w); \
            } while (0)
            BF_YUV_TAP16(top & 255, b00, r00, w00);
            BF_YUV_TAP16((top >> 8) & 255, b01, r01, w01);
            BF_YUV_TAP16(bottom & 255, b10, r10, w10);
            BF_YUV_TAP16((bottom >> 8) & 255, b11, r11, w11);
#undef BF_YUV_TAP16
            // One rounding, as OpenCV's AVX2 convertTo (an FMA) rounds.
            const bf_float16 R = __builtin_elementwise_fma(__builtin_convertvector((sumR + 512) >> 10, bf_float16), s16, o16);
            const bf_float16 G = __builtin_elementwise_fma(__builtin_convertvector((sumG + 512) >> 10, bf_float16), s16, o16);
            const bf_float16 B = __builtin_elementwise_fma(__builtin_convertvector((sumB + 512) >> 10, bf_float16), s16, o16);
            // R, G, B interleaved: 48 floats in three stores.
            typedef float bf_float32 __attribute__((ext_vector_type(32)));
            const bf_float32 RG = __builtin_shufflevector(R, G, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                                          16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31);
            const bf_float32 BB = __builtin_shufflevector(B, B, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                                          0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
            float *o = out + 3 * i;
            *(bf_float16_unaligned *)o = __builtin_shufflevector(RG, BB, 0, 16, 32, 1, 17, 33, 2, 18, 34, 3, 19, 35, 4, 20, 36, 5);
            *(bf_float16_unaligned *)(o + 16) = __builtin_shufflevector(RG, BB, 21, 37, 6, 22, 38, 7, 23, 39, 8, 24, 40, 9, 25, 41, 10, 26);
            *(bf_float16_unaligned *)(o + 32) = __builtin_shufflevector(RG, BB, 42, 11, 27, 43, 12, 28, 44, 13, 29, 45, 14, 30, 46, 15, 31, 47);
        }
    }
#endif
    const bf_float4 s = scale, o = offset;
#define BF_YUV_TAP(px, py) bf_yuv_rgb(y[(py) * yStride + (px)], cb[((py) >> 1) * cbStride + ((px) >> 1) * chromaStep], \
                                      cr[((py) >> 1) * crStride + ((px) >> 1) * chromaStep])
    for (; i < count; i++) {
        const int X = positions[2 * i], Y = positions[2 * i + 1];
        const long sx = X >> 5, sy = Y >> 5;
        if (sx < 0 || sx + 1 >= width || sy < 0 || sy + 1 >= height) return i;
        const int ax = X & 31, ay = Y & 31;
        bf_int4 v;
        if ((ax | ay) == 0) {
            v = BF_YUV_TAP(sx, sy) * 1024;
        } else {
            v = BF_YUV_TAP(sx, sy) * ((32 - ay) * (32 - ax)) + BF_YUV_TAP(sx + 1, sy) * ((32 - ay) * ax)
              + BF_YUV_TAP(sx, sy + 1) * (ay * (32 - ax)) + BF_YUV_TAP(sx + 1, sy + 1) * (ay * ax);
        }
        // One rounding, as OpenCV's AVX2 convertTo (an FMA) rounds.
        const bf_float4 value = __builtin_convertvector((v + 512) >> 10, bf_float4);
        const bf_float4 f = exactFMA ? bf_fma4_exact(value, s, o) : bf_fma4(value, s, o);
        if (i + 1 < count) {
            *(bf_float4_unaligned *)(out + 3 * i) = f;  // the next pixel overwrites the fourth lane
        } else {
            out[3 * i] = f.x; out[3 * i + 1] = f.y; out[3 * i + 2] = f.z;
        }
    }
#undef BF_YUV_TAP
    return count;
}

#pragma clang diagnostic pop

#endif
