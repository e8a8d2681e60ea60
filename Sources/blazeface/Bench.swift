import InternalUtilities
import BlazeImageIO
import ArgumentParser
@_spi(Benchmarks) import BlazeFace
import BlazeImage
import BlazeModel
import Foundation

struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Time inference and end-to-end detect(); medians and minima.")

    @Option(help: "The model: short or full.")
    var model: ModelChoice = .short

    @Option(help: "Threads for inference, or auto (the cores this process may use, up to 4).")
    var threads = ThreadCount(1)

    @Option(help: "Timed iterations (after warm-up).")
    var iterations: Int = 200

    @Option(help: "The photo for detect(): PNG, JPEG, PPM or PGM (default: the bundled 1280x853 two-face photo).")
    var image: String?

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    @Flag(help: "Also print each layer's median time and GFLOP/s.")
    var layers = false

    @Option(help: "Run this many detectors at once, as the lanes of one pool of that many threads (at most the cores this process may use; --threads is not used), and report the per-call median and the total throughput: the behaviour under contention.")
    var concurrent: Int?

    func validate() throws {
        guard iterations >= 1 else { throw ValidationError("--iterations must be at least 1") }
        if let concurrent, !(1...64).contains(concurrent) { throw ValidationError("--concurrent must be in 1...64") }
    }

    func run() throws {
        let detector: FaceDetector
        let photo: RGBImage
        do {
            detector = try FaceDetector(options: FaceDetectorOptions(model: model.detectorModel, threadPool: threads.makePool()))
            photo = try ImageFile.read(contentsOf: image ?? BenchDefaults.photo(), applyingOrientation: true)
        } catch let e as DetectorError { throw ToolError(e.description) } catch let e as ImageError { throw ToolError(e.description) }

        if let concurrent { return try runConcurrent(concurrent, photo: photo) }
        // Inference alone, on the photo's input tensor.
        _ = try detector.detect(image: photo)
        let inference = Timing.measure(iterations: iterations) { detector.runNetwork() }
        var result = FaceDetectorResult()   // kept from frame to frame: the allocation-free steady state
        let detect = try Timing.measure(iterations: iterations) { try detector.detect(image: photo, into: &result) }
        let preprocess = try Timing.measure(iterations: iterations) { _ = try detector.inputTensor(for: photo) }
        let cpu = Timing.cpuName()
        if json {
            var line = JSONObject()
            line.field("model", model.canonical)
            line.field("threads", threads.value)
            line.field("inference", inference)
            line.field("detect", detect)
            line.field("cpu", cpu)
            line.object("build") { $0.field("vector", BuildTarget.vectorISA); $0.field("arithmetic", BuildTarget.arithmetic.rawValue) }
            print(line.text)
        } else {
            print("model \(model.canonical), \(threads.value) thread(s), \(iterations) iterations, \(photo.width)x\(photo.height) photo, \(cpu)")
            print("build      \(BuildTarget.summary)")
            print("inference  median \(inference.median) us  min \(inference.min) us")
            print("detect     median \(detect.median) us  min \(detect.min) us")
            print("  of which letterbox  median \(preprocess.median) us  min \(preprocess.min) us")
        }
        if layers {
            for l in detector.profileLayers(iterations: iterations) { print(Timing.layerLine(l, shapeWidth: 14)) }
        }
    }
}

extension Bench {
    /// Microseconds of each of `count` detect() calls on one detector (after `Timing`'s warm-up).
    static func timedCalls(_ detector: FaceDetector, photo: RGBImage, count: Int) -> [Double] {
        var result = FaceDetectorResult()
        return Timing.samples(iterations: count) { try? detector.detect(image: photo, into: &result) }
    }

    /// `--concurrent N`: N detectors as the lanes of one pool of N threads, all calling
    /// detect() on the photo at once (each detector's layers on its own lane).
    func runConcurrent(_ count: Int, photo: RGBImage) throws {
        let pool = ThreadPool(threads: count)
        let options = FaceDetectorOptions(model: model.detectorModel, threadPool: pool)
        var detectors: [FaceDetector] = []
        for _ in 0..<count {
            do { detectors.append(try FaceDetector(options: options)) } catch { throw ToolError(error.description) }
        }
        let lanes = Lanes(detectors)
        let clock = ContinuousClock()
        let start = clock.now
        let calls = iterations
        pool.forEach(count: count, lanes: count) { lane, _ in
            lanes.record(Self.timedCalls(lanes.detectors[lane], photo: photo, count: calls), lane: lane)
        }
        let wall = clock.now - start
        let seconds = Double(wall.components.attoseconds) / 1e18 + Double(wall.components.seconds)
        let all = lanes.samples
        let perLane = all.map { $0.sorted()[$0.count / 2] }
        let median = all.flatMap { $0 }.sorted()[count * iterations / 2]
        print("model \(model.canonical), \(count) detectors on a pool of \(pool.threads) thread(s), \(iterations) calls each, "
              + "\(Timing.cpuName()), \(AvailableCores.count) core(s) available")
        print(String(format: "detect     median %.1f us over all calls; per detector %@", median,
                     perLane.map { String(format: "%.1f", $0) }.joined(separator: ", ")))
        print(String(format: "throughput %.1f calls/s", Double(count * iterations) / seconds))
    }
}

/// The detectors of `--concurrent`, one per lane; each lane uses only its own.
private final class Lanes: @unchecked Sendable {
    let detectors: [FaceDetector]
    private(set) var samples: [[Double]]
    private let lock = NSLock()
    init(_ detectors: [FaceDetector]) { (self.detectors, samples) = (detectors, Array(repeating: [], count: detectors.count)) }
    func record(_ times: [Double], lane: Int) { lock.withLock { samples[lane] = times } }
}

enum BenchDefaults {
    static func photo() -> String {
        let relative = "Tests/Fixtures/images/two_faces_1280x853.png"
        if FileManager.default.fileExists(atPath: relative) { return relative }
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return package.appendingPathComponent(relative).path
    }
}

/// Wall-clock timing after a warm-up; median and minimum in microseconds, rounded to 0.1.
enum Timing {
    static func measure(iterations: Int, _ body: () throws -> Void) rethrows -> (median: Double, min: Double) {
        let samples = try self.samples(iterations: iterations, body).sorted()
        let median = samples.count % 2 == 1 ? samples[samples.count / 2]
            : (samples[samples.count / 2 - 1] + samples[samples.count / 2]) / 2
        return ((median * 10).rounded() / 10, (samples[0] * 10).rounded() / 10)
    }

    /// Microseconds of each of `iterations` calls of `body`, in call order, after the warm-up.
    static func samples(iterations: Int, _ body: () throws -> Void) rethrows -> [Double] {
        // Warm up for at least 50 calls and 100 ms: caches, page faults and the clock ramp-up
        // stay out of the samples.
        let clock = ContinuousClock()
        let warmUpEnd = clock.now.advanced(by: .milliseconds(100))
        var warmUps = 0
        while warmUps < 50 || clock.now < warmUpEnd {
            try body()
            warmUps += 1
        }
        var samples: [Double] = []
        samples.reserveCapacity(iterations)
        for _ in 0..<iterations {
            let start = clock.now
            try body()
            let d = clock.now - start
            samples.append(Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) / 1e12)
        }
        return samples
    }

    /// A line of `--layers`: the layer's operator, its output shape, its median time and GFLOP/s.
    static func layerLine(_ l: (op: String, shape: String, medianSeconds: Double, macs: Int), shapeWidth: Int) -> String {
        let gflops = l.macs > 0 && l.medianSeconds > 0 ? 2 * Double(l.macs) / l.medianSeconds / 1e9 : 0
        return "\(l.op.padding(toLength: 20, withPad: " ", startingAt: 0)) \(l.shape.padding(toLength: shapeWidth, withPad: " ", startingAt: 0)) "
            + String(format: "%8.1f us %7.2f GFLOP/s", l.medianSeconds * 1e6, gflops)
    }

    static func cpuName() -> String {
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown" }
        for line in info.split(separator: "\n") where line.hasPrefix("model name") {
            return line.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
        }
        return "unknown"
    }
}
