// CenterFaceBench PHOTO WIDTH HEIGHT THREADS ITERATIONS [INPUT.f32]: times the CenterFace network
// (Weights/centerface.bin) on PHOTO stretched to WIDTH x HEIGHT (multiples of 32) with THREADS
// threads: the median and minimum of ITERATIONS runs after a warm-up, as one JSON line. Writes
// the input tensor (NHWC float32) to INPUT.f32 if given, so that another runtime can be timed on
// the same input (Tools/bench/centerface_vs_onnxruntime.py). CENTERFACE_LAYERS=1 also prints each
// layer's median time; CENTERFACE_PRECISION=bfloat16 builds the network in `Precision.bfloat16`.
import BlazeImageIO
import BlazeModel
import BlazeTensor
import BlazeThreads
@_spi(Benchmarks) import CenterFaceNet
import Foundation
import VisionTasks

func usage(_ problem: String? = nil) -> Never {
    FileHandle.standardError.write(Data(((problem.map { "CenterFaceBench: \($0)\n" } ?? "")
        + "usage: CenterFaceBench PHOTO WIDTH HEIGHT THREADS ITERATIONS [INPUT.f32]\n").utf8))
    exit(64)
}
let args = CommandLine.arguments
guard args.count == 6 || args.count == 7, let width = Int(args[2]), let height = Int(args[3]),
      let threads = Int(args[4]), let iterations = Int(args[5]), width > 0, height > 0,
      width % 32 == 0, height % 32 == 0, (1...64).contains(threads), iterations > 0 else { usage() }

func microseconds(_ d: Duration) -> Double { Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) / 1e12 }

do {
    let photo = try ImageFile.read(contentsOf: args[1], applyingOrientation: true)
    let pool = ThreadPool(threads: threads)
    let precision: Precision = ProcessInfo.processInfo.environment["CENTERFACE_PRECISION"] == "bfloat16" ? .bfloat16 : .float32
    let model = try WeightsFormat.read(contentsOf: try WeightsLocator.path(for: CenterFaceDetector.weightsFile))
    let network = try Network(model: model, options: Network.Options(threadPool: pool, precision: precision))
        .planned(inputShapes: [Shape([1, height, width, 3])])
    _ = try ImageToTensor(width: width, height: height, valueRange: 0...255, keepAspectRatio: false)
        .convert(photo, into: network.input(0))
    if args.count == 7 {
        try Data(buffer: UnsafeBufferPointer(network.input(0))).write(to: URL(fileURLWithPath: args[6]))
    }
    let clock = ContinuousClock()
    for _ in 0..<3 { network.run() }
    var samples: [Double] = []
    for _ in 0..<iterations {
        let start = clock.now
        network.run()
        samples.append(microseconds(clock.now - start))
    }
    samples.sort()
    // The detector end to end (resampling, network, decoding) at the same input size.
    let detector = try CenterFaceDetector(threadPool: pool, precision: precision)
    let scale = min(Float(width) / Float(photo.width), Float(height) / Float(photo.height))
    var faces = try detector.detect(photo, scale: scale)
    var detect: [Double] = []
    for _ in 0..<iterations {
        let start = clock.now
        faces = try detector.detect(photo, scale: scale)
        detect.append(microseconds(clock.now - start))
    }
    detect.sort()
    let size = CenterFaceDetector.inputSize(width: photo.width, height: photo.height, scale: scale)
    print("{\"width\":\(width),\"height\":\(height),\"threads\":\(threads),\"iterations\":\(iterations),"
          + "\"network_median_us\":\(samples[samples.count / 2]),\"network_min_us\":\(samples[0]),"
          + "\"detect_input\":[\(size.width),\(size.height)],\"detect_median_us\":\(detect[detect.count / 2]),\"faces\":\(faces.count)}")
    if ProcessInfo.processInfo.environment["CENTERFACE_LAYERS"] == "1" {
        // Each layer's median (the whole network on this thread; see Network.profileLayers).
        var total = 0.0
        for l in try detector.profileLayers(width: width, height: height, iterations: iterations) {
            total += l.medianSeconds
            let gflops = l.macs > 0 && l.medianSeconds > 0 ? 2 * Double(l.macs) / l.medianSeconds / 1e9 : 0
            print("\(l.op.padding(toLength: 20, withPad: " ", startingAt: 0)) \(l.shape.padding(toLength: 18, withPad: " ", startingAt: 0)) "
                  + String(format: "%8.1f us %7.2f GFLOP/s", l.medianSeconds * 1e6, gflops))
        }
        print(String(format: "total %.1f us", total * 1e6))
    }
} catch {
    FileHandle.standardError.write(Data("CenterFaceBench: \(error)\n".utf8))
    exit(1)
}
