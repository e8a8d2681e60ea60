import CVectorFMA

/// What this build's kernels were compiled for. Built with `-target-cpu` for a newer CPU than
/// the one running it, the first AVX2 or AVX-512 instruction would kill the process; callers
/// (the CLI) check `missingCPUFeatures` first and say what to rebuild instead.
public enum BuildTarget {
    /// Instruction sets the build assumes that this CPU lacks ("AVX2", "FMA", "AVX-512"); empty
    /// when all are there, and always on non-x86 machines.
    public static var missingCPUFeatures: [String] {
        let bits = bf_missing_cpu_features()
        if bits < 0 { return ["CPUID"] }
        return [(1, "AVX2"), (2, "FMA"), (4, "AVX-512")].compactMap { bits & $0.0 != 0 ? $0.1 : nil }
    }

    /// Whether this build widens half-precision weights in one instruction (x86 F16C, arm64),
    /// so that exact float16 weights are kept as halves (`Conv2D.usesHalfWeights`).
    public static var hasFastHalfConversion: Bool { bf_has_fast_half() != 0 }

    /// Whether this build has AVX-512's 32 registers of 16 floats (the 12x16 GEMM tile's).
    public static var hasAVX512: Bool { bf_has_avx512() != 0 }
}
