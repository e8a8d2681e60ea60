import CProcessor
import CVectorMath

/// What this build's kernels were compiled for, and whether the running CPU can execute them.
///
/// A dependent's plain build compiles for the toolchain's default CPU (on x86-64: SSE2, no
/// FMA), this checkout's own build for the build machine's (see Package.swift). `summary`
/// says which, and which flag makes a dependent's build as fast as this repository's.
public enum BuildTarget {
    /// How the kernels compute a * b + c.
    public enum Arithmetic: String, Sendable {
        /// One fused multiply-add instruction, rounded once: the same bits as TFLite + XNNPACK
        /// on CPUs with FMA (x86-64 built for Haswell or newer, every arm64).
        case hardwareFMA = "hardware FMA"
        /// The fused multiply-add computed exactly without FMA instructions (the `ExactFMA`
        /// package trait on an x86-64 build without FMA): the same bits, about 20x slower.
        case emulatedFMA = "emulated FMA"
        /// A multiply then an add, rounded twice (an x86-64 build without FMA): within 1e-5 of
        /// the fused results on these models, not the same bits.
        case unfused = "unfused multiply-add"
    }

    /// The arithmetic of this build's kernels.
    public static var arithmetic: Arithmetic {
        if bf_has_hardware_fma() != 0 { return .hardwareFMA }
        #if ExactFMA
        return .emulatedFMA
        #else
        return .unfused
        #endif
    }

    /// The widest vector instructions this build uses: "AVX-512", "AVX2", "AVX", "SSE2",
    /// "NEON", or "scalar".
    public static var vectorISA: String {
        ["scalar", "SSE2", "AVX", "AVX2", "AVX-512", "NEON"][Int(bf_vector_isa())]
    }

    /// One line: the vector instructions, the arithmetic, and, where the CPU running this could
    /// do better, the flag that builds for it.
    public static var summary: String {
        var line = "\(vectorISA), \(arithmetic.rawValue)"
        // The best vector level the CPU offers, on `bf_vector_isa`'s scale: 4 AVX-512, 3 AVX2 and FMA.
        let features = Int(bf_cpu_features()), built = Int(bf_vector_isa())
        let cpu = features < 0 ? 0 : features & 4 != 0 ? 4 : features & 3 == 3 ? 3 : 1
        if (1...4).contains(built), cpu > built {
            line += " (this CPU has \(cpu == 4 ? "AVX-512" : "AVX2 and FMA"): "
                + (arithmetic == .unfused ? "about 3x faster" : "many times faster")
                + " built with `swift build -c release -Xswiftc -target-cpu -Xswiftc native`)"
        }
        return line
    }

    /// Instruction sets the build assumes that this CPU lacks ("AVX2", "FMA", "AVX-512"); empty
    /// when all are there, and always on non-x86 machines.
    public static var missingCPUFeatures: [String] {
        let bits = bf_missing_cpu_features()
        if bits < 0 { return ["CPUID"] }
        return [(1, "AVX2"), (2, "FMA"), (4, "AVX-512")].compactMap { bits & $0.0 != 0 ? $0.1 : nil }
    }

    /// Nil when this CPU runs this build; otherwise what it lacks and what to do, for an error
    /// (the networks refuse to load rather than die on their first unknown instruction).
    public static var unsupportedCPUMessage: String? {
        let missing = missingCPUFeatures
        guard !missing.isEmpty else { return nil }
        return "this build of BlazeFace uses \(missing.joined(separator: ", ")), which this CPU lacks; "
            + "rebuild it without -target-cpu (or on this machine, or with BLAZEFACE_TARGET_CPU=generic)"
    }

    /// Whether this build widens half-precision weights in one instruction (x86 F16C, arm64),
    /// so that exact float16 weights are kept as halves (`Conv2D.usesHalfWeights`).
    static var hasFastHalfConversion: Bool { bf_has_fast_half() != 0 }

    /// Whether this build has AVX-512's 32 registers of 16 floats (the 12x16 GEMM tile's).
    static var hasAVX512: Bool { bf_has_avx512() != 0 }

    /// Whether this build has only SSE's sixteen 4-float registers (x86-64 without AVX), so
    /// that tiles are 8 channels wide.
    static var hasNarrowVectors: Bool { bf_has_narrow_vectors() != 0 }
}
