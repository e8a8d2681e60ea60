import Benchmark
@_spi(Benchmarks) import BlazeFace
import BlazeImageIO
import BlazeModel
import BlazeTensor
import Foundation

/// The suite: each kernel on BlazeFace's real layer shapes (with MFLOP/s), model inference
/// (both models), detect() end to end on a 1280x853 photo, and heap allocations per frame; and
/// the video reader and writer (VideoBenchmarks.swift).
let benchmarks: @Sendable () -> Void = {
    let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let weights = repo.appendingPathComponent("Weights/face_detection_short_range.bin").path
    let photoPath = repo.appendingPathComponent("Tests/Fixtures/images/two_faces_1280x853.png").path
    let mflops = BenchmarkMetric.custom("MFLOP/s", polarity: .prefersLarger, useScalingFactor: false)
    let frame = Benchmark.Configuration(metrics: [.wallClock, .mallocCountTotal], warmupIterations: 20,
                                        scalingFactor: .one, maxDuration: .seconds(3), maxIterations: 2000)

    // Full-range inference, 1 and 2 threads.
    for threads in [1, 2] {
        Benchmark("inference full threads=\(threads)", configuration: frame) { (benchmark: Benchmark, detector: FaceDetector) in
            for _ in benchmark.scaledIterations { detector.runNetwork() }
        } setup: {
            let detector = try FaceDetector(options: FaceDetectorOptions(
                model: .fullRange, weightsPath: repo.appendingPathComponent("Weights/face_detection_full_range.bin").path, threadPool: ThreadPool(threads: threads)))
            _ = try detector.detect(image: try PNG.read(contentsOf: photoPath))
            return detector
        }
    }

    // Model inference (input tensor to raw outputs) and detect() end to end, 1 and 2 threads.
    for threads in [1, 2] {
        Benchmark("inference short threads=\(threads)", configuration: frame) { (benchmark: Benchmark, detector: FaceDetector) in
            for _ in benchmark.scaledIterations { detector.runNetwork() }
        } setup: {
            let detector = try FaceDetector(options: FaceDetectorOptions(weightsPath: weights, threadPool: ThreadPool(threads: threads)))
            _ = try detector.detect(image: try PNG.read(contentsOf: photoPath))
            return detector
        }
        // detect(image:into:) with the result kept from frame to frame: the steady state.
        Benchmark("detect 1280x853 threads=\(threads)", configuration: frame) { (benchmark: Benchmark, state: (FaceDetector, RGBImage)) in
            var result = FaceDetectorResult()
            try state.0.detect(image: state.1, into: &result)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                try state.0.detect(image: state.1, into: &result)
                blackHole(result)
            }
            benchmark.stopMeasurement()
        } setup: {
            (try FaceDetector(options: FaceDetectorOptions(weightsPath: weights, threadPool: ThreadPool(threads: threads))),
             try PNG.read(contentsOf: photoPath))
        }
    }

    // Each kernel on a real layer shape: bound once to buffers, timed per call.
    let kernelConfig = Benchmark.Configuration(metrics: [.wallClock, mflops, .mallocCountTotal], warmupIterations: 50,
                                               scalingFactor: .one, maxDuration: .seconds(2), maxIterations: 5000)
    for layer in KernelLayer.blazeFaceShapes {
        Benchmark("kernel \(layer.name)", configuration: kernelConfig) { (benchmark: Benchmark, bound: BoundLayer) in
            let start = ContinuousClock.now
            for _ in benchmark.scaledIterations { bound.work(scratch: bound.scratch) }
            let seconds = (ContinuousClock.now - start) / .seconds(1) / Double(benchmark.scaledIterations.count)
            benchmark.measurement(mflops, Int(2 * Double(layer.macs) / seconds / 1e6))
        } setup: {
            try BoundLayer(layer)
        }
    }

    videoBenchmarks()
}

/// A layer shape of the short-range (or full-range) model and the operator that computes it.
struct KernelLayer: Sendable {
    var name: String
    var input: [Int]
    var skip: [Int]?
    var make: @Sendable (inout SplitMix) throws -> any TensorOperator
    var macs: Int

    static func conv(_ name: String, input: [Int], out: Int, k: Int, stride: Int, skip: [Int]? = nil, pooled: Bool = false) -> KernelLayer {
        let oh = (input[1] + stride - 1) / stride, ow = (input[2] + stride - 1) / stride
        return KernelLayer(name: name, input: input, skip: skip, make: { rng in
            try Conv2D(weights: rng.tensor([out, k, k, input[3]]), bias: rng.tensor([out]), strideH: stride, strideW: stride,
                       padding: .same, activation: .relu, residual: skip == nil ? nil : Residual(pooled: pooled))
        }, macs: oh * ow * out * k * k * input[3])
    }

    /// A 1x1 convolution pruned as the full-range detector's are: 70% of its weights zero, so
    /// that the operator takes the SpMM kernel (`dense` keeps every weight, for comparison).
    static func pruned(_ name: String, input: [Int], out: Int, dense: Bool = false) -> KernelLayer {
        KernelLayer(name: name, input: input, skip: nil, make: { rng in
            let w = try rng.tensor([out, 1, 1, input[3]])
            let kept = dense ? w.scalars : w.scalars.map { abs($0) < 0.3 ? $0 : 0 }
            return try Conv2D(weights: Tensor(shape: w.shape, scalars: kept), bias: rng.tensor([out]), strideH: 1, strideW: 1,
                              padding: .same, activation: .relu)
        }, macs: input[1] * input[2] * out * input[3])
    }

    static func depthwise(_ name: String, input: [Int], stride: Int) -> KernelLayer {
        let oh = (input[1] + stride - 1) / stride, ow = (input[2] + stride - 1) / stride
        return KernelLayer(name: name, input: input, skip: nil, make: { rng in
            try DepthwiseConv2D(weights: rng.tensor([1, 3, 3, input[3]]), bias: rng.tensor([input[3]]),
                                strideH: stride, strideW: stride, padding: .same, activation: .none)
        }, macs: oh * ow * input[3] * 9)
    }

    static let blazeFaceShapes: [KernelLayer] = [
        .conv("conv 5x5/2 128x128x3->24", input: [1, 128, 128, 3], out: 24, k: 5, stride: 2),
        .depthwise("depthwise 3x3 64x64x24", input: [1, 64, 64, 24], stride: 1),
        .conv("pointwise 64x64 24->24 +skip", input: [1, 64, 64, 24], out: 24, k: 1, stride: 1, skip: [1, 64, 64, 24]),
        .conv("pointwise 64x64 24->28 +skip24", input: [1, 64, 64, 24], out: 28, k: 1, stride: 1, skip: [1, 64, 64, 24]),
        .depthwise("depthwise 3x3/2 64x64x28", input: [1, 64, 64, 28], stride: 2),
        .conv("pointwise 32x32 28->32 +pooled skip", input: [1, 32, 32, 28], out: 32, k: 1, stride: 1, skip: [1, 64, 64, 28], pooled: true),
        .depthwise("depthwise 3x3 16x16x88", input: [1, 16, 16, 88], stride: 1),
        .conv("pointwise 16x16 80->88 +skip80", input: [1, 16, 16, 80], out: 88, k: 1, stride: 1, skip: [1, 16, 16, 80]),
        .conv("pointwise 8x8 96->96 +skip", input: [1, 8, 8, 96], out: 96, k: 1, stride: 1, skip: [1, 8, 8, 96]),
        .conv("head 16x16 88->32", input: [1, 16, 16, 88], out: 32, k: 1, stride: 1),
        // Full range: the same layer dense (GEMM) and pruned (SpMM); GFLOP/s count every weight.
        .pruned("pointwise 24x24 32->128 dense", input: [1, 24, 24, 32], out: 128, dense: true),
        .pruned("pointwise 24x24 32->128 70% zeros (SpMM 32x2)", input: [1, 24, 24, 32], out: 128),
        .pruned("pointwise 6x6 384->96 dense", input: [1, 6, 6, 384], out: 96, dense: true),
        .pruned("pointwise 6x6 384->96 70% zeros (SpMM 16x4)", input: [1, 6, 6, 384], out: 96),
    ]
}

/// An operator bound to buffers of its layer's shapes (random inputs, as values do not matter for time).
final class BoundLayer: @unchecked Sendable {
    let work: BoundWork
    let scratch: UnsafeMutablePointer<Float>
    private let buffers: [UnsafeMutablePointer<Float>]

    init(_ layer: KernelLayer) throws {
        var rng = SplitMix(seed: 1)
        let op = try layer.make(&rng)
        let inputShapes = [Shape(layer.input)] + (layer.skip.map { [Shape($0)] } ?? [])
        let outputShape = try op.outputShapes(for: inputShapes)[0]
        var buffers: [UnsafeMutablePointer<Float>] = []
        for shape in inputShapes + [outputShape] {
            let p = UnsafeMutablePointer<Float>.allocate(capacity: shape.count + kernelSlack)
            for i in 0..<(shape.count + kernelSlack) { p[i] = rng.float() }
            buffers.append(p)
        }
        self.buffers = buffers
        work = try op.bind(inputs: buffers.dropLast().map { UnsafePointer($0) }, shapes: inputShapes, outputs: [buffers.last!])
        scratch = .allocate(capacity: work.scratchFloats + kernelSlack)
        scratch.initialize(repeating: 0, count: work.scratchFloats + kernelSlack)
    }

    deinit {
        buffers.forEach { $0.deallocate() }
        scratch.deallocate()
    }
}

struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func float() -> Float { Float(next() >> 40) / Float(1 << 24) * 2 - 1 }
    mutating func tensor(_ dims: [Int]) throws -> Tensor {
        let shape = Shape(dims)
        return try Tensor(shape: shape, scalars: (0..<shape.count).map { _ in float() })
    }
}
