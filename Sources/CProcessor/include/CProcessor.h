// The processor: which x86 instruction sets the CPU running this offers (CPUID) and which this
// build was compiled for, and the spin-wait hint (x86 pause, arm64 yield).
#ifndef C_PROCESSOR_H
#define C_PROCESSOR_H

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

#if defined(__x86_64__)
#include <cpuid.h>
#endif

/// The x86 instruction sets the CPU running this offers (cpuid, and XCR0 for the registers the
/// OS saves), as bits: 1 AVX2, 2 FMA, 4 AVX-512 (F, BW, DQ, VL), 8 AVX512-BF16 (with 4); -1 when
/// cpuid fails; 0 off x86.
static inline int bf_cpu_features(void) {
    int features = 0;
#if defined(__x86_64__)
    unsigned a = 0, b = 0, c = 0, d = 0, b7 = 0, a71 = 0, xcr0 = 0, ignored = 0;
    if (__get_cpuid(1, &a, &b, &c, &d) == 0) { return -1; }
    const int osSavesYMM = (c & (1u << 27)) != 0;   // OSXSAVE, then XCR0 below
    const int hasFMA = (c & (1u << 12)) != 0;
    if (osSavesYMM) { __asm__("xgetbv" : "=a"(xcr0), "=d"(ignored) : "c"(0)); }
    if (__get_cpuid_count(7, 0, &a, &b7, &c, &d) == 0) { b7 = 0; }
    const int avx = (xcr0 & 0x6) == 0x6, avx512 = (xcr0 & 0xE6) == 0xE6;
    const unsigned need512 = (1u << 16) | (1u << 17) | (1u << 30) | (1u << 31);   // F, DQ, BW, VL
    if (avx && (b7 & (1u << 5))) { features |= 1; }
    if (avx && hasFMA) { features |= 2; }
    if (avx512 && (b7 & need512) == need512) { features |= 4; }
    if ((features & 4) && a >= 1 && __get_cpuid_count(7, 1, &a71, &b, &c, &d) != 0 && (a71 & (1u << 5))) { features |= 8; }
#endif
    return features;
}

/// The x86 instruction sets this code was compiled for (`-target-cpu`) that the CPU running it
/// lacks, as `bf_cpu_features` bits; -1 when cpuid fails; 0 elsewhere and when all are there.
/// A build for a newer CPU would otherwise die on its first unknown instruction.
static inline int bf_missing_cpu_features(void) {
    int built = 0;
#if defined(__AVX2__)
    built |= 1;
#endif
#if defined(__FMA__)
    built |= 2;
#endif
#if defined(__AVX512F__)
    built |= 4;
#endif
    const int cpu = bf_cpu_features();
    return cpu < 0 ? (built ? -1 : 0) : built & ~cpu;
}

/// The widest vector instructions this build was compiled for: 4 AVX-512, 3 AVX2, 2 AVX,
/// 1 SSE2 (every x86-64), 5 NEON (arm64), 0 none of these.
static inline int bf_vector_isa(void) {
#if defined(__AVX512F__)
    return 4;
#elif defined(__AVX2__)
    return 3;
#elif defined(__AVX__)
    return 2;
#elif defined(__SSE2__)
    return 1;
#elif defined(__ARM_NEON)
    return 5;
#else
    return 0;
#endif
}

/// Whether this build's vectors are SSE's: x86-64 compiled without AVX (a dependent's plain
/// build), sixteen registers of four floats. Its tiles are 8 channels wide (two registers a
/// row) instead of 16 (four), which would spill.
static inline int bf_has_narrow_vectors(void) {
#if defined(__x86_64__) && !defined(__AVX__)
    return 1;
#else
    return 0;
#endif
}

/// Whether this build has AVX-512's 32 registers of 16 floats, so that a tile of 12 SIMD16
/// accumulators fits in registers (AVX2 holds an SIMD16 in two of its 16).
static inline int bf_has_avx512(void) {
#if defined(__AVX512F__)
    return 1;
#else
    return 0;
#endif
}

/// Whether `bf_load_half16` is one instruction here (x86 F16C, or arm64): only then do the
/// kernels keep weights in half precision (half the bytes to stream, the same floats).
static inline int bf_has_fast_half(void) {
#if defined(__F16C__) || defined(__aarch64__)
    return 1;
#else
    return 0;
#endif
}

/// Tells the core this thread is spinning (x86 pause, arm64 yield): the sibling hyper-thread
/// gets the pipeline, and the loop burns less power.
static inline __attribute__((always_inline)) void bf_spin_pause(void) {
#if defined(__x86_64__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

#pragma clang diagnostic pop

#endif
