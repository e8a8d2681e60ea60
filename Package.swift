// swift-tools-version: 6.1
// The layout is the architecture; dependencies flow one way:
//
//   BlazeTensor  ->  BlazeModel  ->  BlazeFace  ->  FaceLandmarks  ->  blazeface (CLI)
//                    TFLiteImport ------------------------------------^
//   CLibPNG -> CPNGSupport -> BlazeImage ---------^
import PackageDescription

let package = Package(
    name: "BlazeFace",
    products: [
        .library(name: "BlazeFace", targets: ["BlazeFace"]),
        .library(name: "FaceLandmarks", targets: ["FaceLandmarks"]),
        .library(name: "BlazeImage", targets: ["BlazeImage"]),
        .library(name: "BlazeModel", targets: ["BlazeModel"]),
        .library(name: "BlazeTensor", targets: ["BlazeTensor"]),
        .executable(name: "blazeface", targets: ["blazeface"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // The few vector operations (fma, max, min, lane masks) that Swift's SIMD types spell as per-lane loops.
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
        // Pixel buffers, PNG decoding and encoding, drawing.
        .target(name: "BlazeImage", dependencies: ["CPNGSupport"]),
        // The detection pipeline: pre-processing, anchors, decoding, NMS, the FaceDetector API.
        .target(name: "BlazeFace", dependencies: ["BlazeModel", "BlazeImage", "CVectorFMA"]),
        // MediaPipe's Face Landmarker on top of the detector: regions, crop, 478 landmarks, blendshapes.
        .target(name: "FaceLandmarks", dependencies: ["BlazeFace", "BlazeModel", "BlazeImage"]),
        // The command-line tool.
        .executableTarget(name: "blazeface", dependencies: [
            "BlazeFace", "FaceLandmarks", "TFLiteImport",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .testTarget(name: "BlazeTensorTests", dependencies: ["BlazeTensor"]),
        .testTarget(name: "BlazeModelTests", dependencies: ["BlazeModel", "TFLiteImport"]),
        .testTarget(name: "BlazeImageTests", dependencies: ["BlazeImage"], resources: [.copy("Resources")]),
        .testTarget(name: "BlazeFaceTests", dependencies: ["BlazeFace"]),
        .testTarget(name: "FaceLandmarksTests", dependencies: ["FaceLandmarks", "BlazeFace", "BlazeImage"]),
    ]
)
