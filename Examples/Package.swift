// swift-tools-version: 6.1
// Small programs that use BlazeFace as a package would (by path here; by version in yours).
// Build and run from this folder, e.g. `swift run -c release DetectFaces ../Tests/Fixtures/images`.
import PackageDescription

let package = Package(
    name: "BlazeFaceExamples",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "BlazeFace", path: "..")],
    targets: [
        // A folder of photos to JSON lines: the shortest useful program.
        .executableTarget(name: "DetectFaces", dependencies: [
            .product(name: "BlazeFace", package: "BlazeFace"), .product(name: "BlazeImageIO", package: "BlazeFace"),
        ]),
        // Mobile Vision's face-tracker demo: cartoon eyes on every tracked face of a video.
        .executableTarget(name: "GooglyEyes", dependencies: [
            .product(name: "FaceTracking", package: "BlazeFace"), .product(name: "BlazeImageIO", package: "BlazeFace"),
        ]),
        // A live-stream detector fed by a simulated 30 fps camera; results through the AsyncStream.
        .executableTarget(name: "LiveCamera", dependencies: [
            .product(name: "BlazeFace", package: "BlazeFace"), .product(name: "BlazeImageIO", package: "BlazeFace"),
        ]),
        // A soak of the live paths (Tools/soak.sh): memory and threads flat while frames are dropped.
        .executableTarget(name: "LiveSoak", dependencies: [
            .product(name: "BlazeFace", package: "BlazeFace"), .product(name: "BlazeImageIO", package: "BlazeFace"),
            .product(name: "MeshAnalysis", package: "BlazeFace"), .product(name: "FaceTracking", package: "BlazeFace"),
        ]),
        // The CenterFace network timed at one input size (Tools/bench/centerface_vs_onnxruntime.py).
        .executableTarget(name: "CenterFaceBench", dependencies: [
            .product(name: "CenterFaceNet", package: "BlazeFace"), .product(name: "BlazeModel", package: "BlazeFace"),
            .product(name: "BlazeImageIO", package: "BlazeFace"), .product(name: "VisionTasks", package: "BlazeFace"),
            .product(name: "BlazeThreads", package: "BlazeFace"), .product(name: "BlazeTensor", package: "BlazeFace"),
        ]),
        // A photo panned into a short Y4M video (input for GooglyEyes and the README's samples).
        .executableTarget(name: "PanningVideo", dependencies: [.product(name: "BlazeImageIO", package: "BlazeFace")]),
    ]
)
