// bfloat16 pointwise convolution for BlazeTensor's `Precision.bfloat16`: inputs and weights
// rounded to bfloat16 (round to nearest even, subnormals to zero, NaN kept quiet), products
// summed in float32 a pair of channels after another. On x86 CPUs with AVX512-BF16 (AMD Zen 4
// and later, Intel Cooper Lake and Sapphire Rapids) one vdpbf16ps adds a pair's two products,
// the odd channel's first, each rounded as an fma rounds: twice the multiply-adds per cycle of
// a float32 fma, and the same bits as float32 fmas over the rounded values in that order, which
// the other CPUs compute instead (BlazeTensor's float32 GEMM on rounded copies with each pair's
// channels swapped). Only pointers cross this header.
#ifndef C_BFLOAT16_H
#define C_BFLOAT16_H

#include <stdint.h>

/// Whether the CPU running this has AVX512-BF16 with AVX-512 F, BW and VL, the registers saved
/// by the OS (CPUID leaf 7 subleaf 1, XCR0); 0 elsewhere, or where the environment sets
/// BLAZEFACE_BF16_DOT_PRODUCT=0. The value is computed once.
int bf16_cpu_has_dot_product(void);

/// Rounds `count` floats to bfloat16 values, stored as floats (the low 16 bits zero).
void bf16_round_floats(const float *input, long count, float *output);

/// `channels` floats rounded to bfloat16 with each pair's two swapped (output[2i] is input[2i+1]
/// rounded), and for an odd count one more pair (0, the last channel): `(channels + 1) / 2 * 2`
/// floats, the order in which vdpbf16ps adds the products of `bf16_pack_pairs`' words.
void bf16_round_swapping_pairs(const float *input, long channels, float *output);

/// Rows of `pixels` x `channels` floats (`input`, rows `inputStride` floats apart) as rows of
/// `(channels + 1) / 2` pairs of bfloat16, each pair one 32-bit word as in memory: the even
/// channel in the low half, the odd one (which vdpbf16ps multiplies first) in the high half, zero
/// past the last channel. vcvtne2ps2bf16 on CPUs with it.
void bf16_pack_pairs(const float *input, long pixels, long channels, long inputStride, uint32_t *output);

/// out[p][o] = bias[o] + Σ_k a[p][k] · w[k][o] over `pixels` rows of `pairs` words (`a`, from
/// `bf16_pack_pairs`) and weights in groups of 16 output channels, each `pairs` rows of 16 words
/// (`w`; the weights' pairs packed like the inputs'), `bias` padded to whole groups, `out`
/// `pixels` rows of `outputChannels` floats. Needs `bf16_cpu_has_dot_product()`; does nothing
/// on other CPUs and builds.
void bf16_gemm(const uint32_t *a, long pixels, long pairs, const uint32_t *w, const float *bias,
               long outputChannels, float *out);

#endif
