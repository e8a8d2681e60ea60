// swift-tools-version: 6.1
// The benchmark suite, a package of its own so that building and testing the library does not
// build the benchmark toolchain. Run from this folder:
//
//   swift package --allow-writing-to-package-directory benchmark
//
// The library is compiled for this machine's CPU (see ../Package.swift); the README's kernel
// figures were measured with AVX2/FMA code: BLAZEFACE_TARGET_CPU=haswell swift package ...
import PackageDescription

let package = Package(
    name: "BlazeFaceBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "BlazeFace", path: ".."),
        .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "BlazeFaceBenchmarks",
            dependencies: [
                .product(name: "Benchmark", package: "package-benchmark"),
                .product(name: "BlazeFace", package: "BlazeFace"),
                .product(name: "BlazeImageIO", package: "BlazeFace"),
                .product(name: "BlazeModel", package: "BlazeFace"),
                .product(name: "BlazeTensor", package: "BlazeFace"),
                .product(name: "BlazeVideoIO", package: "BlazeFace"),
            ],
            path: "BlazeFaceBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
    ]
)
