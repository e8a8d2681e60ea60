// swift-tools-version: 6.1
// libFuzzer targets, one per reader of untrusted bytes. A separate package so that the main
// build and `swift test` never need the fuzzer runtime. Build and run: Tools/fuzz.sh.
import PackageDescription


let package = Package(
    name: "BlazeFaceFuzz",
    dependencies: [.package(name: "BlazeFace", path: "..")],
    targets: [
        // Declares libFuzzer's LLVMFuzzerRunDriver, which each target's main calls.
        .target(name: "CFuzzerDriver"),
        .executableTarget(name: "FuzzJPEG", dependencies: ["CFuzzerDriver", .product(name: "BlazeImageIO", package: "BlazeFace")]),
        .executableTarget(name: "FuzzPNM", dependencies: ["CFuzzerDriver", .product(name: "BlazeImageIO", package: "BlazeFace")]),
        .executableTarget(name: "FuzzWebP", dependencies: ["CFuzzerDriver", .product(name: "BlazeImageIO", package: "BlazeFace")]),
        .executableTarget(name: "FuzzTIFF", dependencies: ["CFuzzerDriver", .product(name: "BlazeImageIO", package: "BlazeFace")]),
        .executableTarget(name: "FuzzPNG", dependencies: ["CFuzzerDriver", .product(name: "BlazeImageIO", package: "BlazeFace")]),
        .executableTarget(name: "FuzzWeights", dependencies: ["CFuzzerDriver", .product(name: "BlazeModel", package: "BlazeFace")]),
        .executableTarget(name: "FuzzGeometry", dependencies: ["CFuzzerDriver", .product(name: "GeometryEstimation", package: "BlazeFace")]),
        .executableTarget(name: "FuzzTaskBundle", dependencies: ["CFuzzerDriver", .product(name: "TFLiteImport", package: "BlazeFace")]),
        .executableTarget(name: "FuzzY4M", dependencies: ["CFuzzerDriver", .product(name: "BlazeImageIO", package: "BlazeFace")]),
        .executableTarget(name: "FuzzTFLite", dependencies: ["CFuzzerDriver", .product(name: "TFLiteImport", package: "BlazeFace")]),
        .executableTarget(name: "FuzzVideo", dependencies: ["CFuzzerDriver", .product(name: "BlazeVideoIO", package: "BlazeFace")]),
    ]
)
