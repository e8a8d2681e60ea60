// swift-tools-version: 6.1
// The layout is the architecture; dependencies flow one way:
//
//   BlazeTensor -> BlazeModel -> BlazeFace -> FaceTracking       (video, IDs, lifecycle)
//                              BlazeFace -> FaceLandmarks      (MediaPipe's Face Landmarker)
//   BlazeModel -> FaceGeometry -> FaceAnalysis <- FaceLandmarks   (ML Kit's view)
//   BlazeModel -> TFLiteImport                                  (the exporter)
//   CLibPNG -> CPNGSupport, CLibJPEG -> CJPEGSupport -> BlazeImage -> BlazeFace
//   all of them -> blazeface                                    (the CLI)
import Foundation
import PackageDescription

/// The CPU the Swift code is compiled for. By default the build machine's own, as llama.cpp's
/// GGML_NATIVE does: with FMA at compile time every vector fused multiply-add is one instruction
/// instead of an exact emulation (about 20x slower), and with AVX-512 the 16-channel tiles take
/// one register each. The numbers are the same bits either way. `BLAZEFACE_TARGET_CPU=generic`
/// builds a binary for any x86-64, `BLAZEFACE_TARGET_CPU=haswell` (or any `-target-cpu` name)
/// one for that CPU; a binary run on a CPU without what it was built for refuses with a message.
let targetCPU: String? = {
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
    products: [
        .library(name: "BlazeFace", targets: ["BlazeFace"]),
        .library(name: "FaceTracking", targets: ["FaceTracking"]),
        .library(name: "FaceLandmarks", targets: ["FaceLandmarks"]),
        .library(name: "BlazeImage", targets: ["BlazeImage"]),
        .library(name: "BlazeModel", targets: ["BlazeModel"]),
        .library(name: "BlazeTensor", targets: ["BlazeTensor"]),
        .library(name: "TFLiteImport", targets: ["TFLiteImport"]),
        .library(name: "FaceGeometry", targets: ["FaceGeometry"]),
        .library(name: "FaceAnalysis", targets: ["FaceAnalysis"]),
        .executable(name: "blazeface", targets: ["blazeface"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // The few vector operations (fma, max, min, lane masks, shuffles) that Swift's SIMD types spell as per-lane loops.
        .target(name: "CVectorFMA"),
        // NHWC Float32 tensors, operators and their microkernels.
        .target(name: "BlazeTensor", dependencies: ["CVectorFMA"]),
        // The flat weights format and the graph runner built on BlazeTensor.
        .target(name: "BlazeModel", dependencies: ["BlazeTensor"]),
        // Reads TFLite flatbuffers and converts them to the flat format (the exporter).
        .target(name: "TFLiteImport", dependencies: ["BlazeModel"]),
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
        // Pixel buffers, PNG/JPEG/PPM/PGM decoding, PNG/PPM/PGM encoding, drawing.
        .target(name: "BlazeImage", dependencies: ["CPNGSupport", "CJPEGSupport", "CVectorFMA"]),
        // The detection pipeline: pre-processing, anchors, decoding, NMS, the FaceDetector API.
        .target(name: "BlazeFace", dependencies: ["BlazeModel", "BlazeImage", "CVectorFMA"]),
        // The canonical face model (from MediaPipe's geometry metadata) and the pose solver.
        .target(name: "FaceGeometry", dependencies: ["BlazeModel", "BlazeTensor"]),
        // The ML Kit view of a face mesh: landmark and contour types, head angles, classification,
        // and the end-to-end pipeline (detector, landmarker, geometry, that view).
        .target(name: "FaceAnalysis", dependencies: ["FaceGeometry", "FaceLandmarks"]),
        // Tracking IDs, per-face tracker lifecycle, smoothing and detection skipping over video.
        .target(name: "FaceTracking", dependencies: ["BlazeFace"]),
        // MediaPipe's Face Landmarker on top of the detector: regions, crop, 478 landmarks, blendshapes.
        .target(name: "FaceLandmarks", dependencies: ["BlazeFace", "BlazeModel", "BlazeImage"]),
        // The command-line tool.
        .executableTarget(name: "blazeface", dependencies: [
            "BlazeTensor", "BlazeFace", "FaceTracking", "FaceLandmarks", "TFLiteImport", "FaceGeometry", "FaceAnalysis",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // The seeded random generator the tests share.
        .target(name: "TestSupport", path: "Tests/Support/TestSupport"),
        .testTarget(name: "BlazeTensorTests", dependencies: ["BlazeTensor", "TestSupport"]),
        .testTarget(name: "BlazeModelTests", dependencies: ["BlazeModel", "TFLiteImport"]),
        .testTarget(name: "BlazeImageTests", dependencies: ["BlazeImage", "TestSupport"], resources: [.copy("Resources")]),
        .testTarget(name: "BlazeFaceTests", dependencies: ["BlazeFace", "TestSupport"]),
        // MediaPipe's FaceLandmarker goldens, read by the geometry and analysis tests.
        .target(name: "LandmarkerGoldens", path: "Tests/Support/LandmarkerGoldens"),
        .testTarget(name: "FaceGeometryTests", dependencies: ["FaceGeometry", "BlazeModel", "LandmarkerGoldens", "TestSupport"]),
        .testTarget(name: "FaceAnalysisTests", dependencies: ["FaceAnalysis", "FaceGeometry", "FaceLandmarks", "BlazeFace", "BlazeImage",
                                                             "LandmarkerGoldens"]),
        .testTarget(name: "FaceTrackingTests", dependencies: ["FaceTracking"]),
        .testTarget(name: "FaceLandmarksTests", dependencies: ["FaceLandmarks", "BlazeFace", "BlazeImage"]),
    ]
)

// Every Swift target is compiled for the same CPU (see `targetCPU`). The C targets keep the
// compiler's portable default: they are I/O glue, and none of them may contract a * b + c.
for target in package.targets where target.type != .system && !target.name.hasPrefix("C") {
    target.swiftSettings = (target.swiftSettings ?? []) + cpuSettings
}
