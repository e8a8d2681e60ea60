import BlazeImage
import BlazeModel
import BlazeTensor
import Foundation
import Synchronization
import VisionTasks

/// Which BlazeFace model detects: short range (faces within about 2 m, 128x128 input) or
/// full range (up to about 5 m, 192x192 input). ML Kit calls the same trade-off
/// `performanceMode` fast or accurate.
public enum FaceDetectorModel: String, Sendable, CaseIterable {
    case shortRange, fullRange

    /// ML Kit's names: fast is the short-range model, accurate the full-range one.
    public static let fast = FaceDetectorModel.shortRange
    public static let accurate = FaceDetectorModel.fullRange

    /// The model's square input size in pixels.
    public var inputSize: Int { self == .shortRange ? 128 : 192 }

    /// The bundled weights file.
    public var weightsFile: String { self == .shortRange ? "face_detection_short_range.bin" : "face_detection_full_range.bin" }

    /// The anchors MediaPipe configures for the model (face_detector_graph.cc and
    /// face_detection_full_range.pbtxt).
    public var anchorOptions: AnchorOptions { self == .shortRange ? .shortRange : .fullRange }

    /// MediaPipe's score threshold for the model: 0.5 for short range; 0.6 for full range,
    /// which its full-range graph hard-codes (the legacy solution applies 0.6 whatever
    /// min_detection_confidence it is given).
    public var defaultMinDetectionConfidence: Float { self == .shortRange ? 0.5 : 0.6 }
}

/// Options of a face detector, MediaPipe's `FaceDetectorOptions`.
public struct FaceDetectorOptions: Sendable {
    /// The model (default short range).
    public var model: FaceDetectorModel = .shortRange
    /// A weights file in the flat format; nil finds the bundled weights of `model`.
    public var weightsPath: String?
    /// Faces scoring below this are dropped before suppression (0...1); nil for the model's
    /// default (0.5 short range, 0.6 full range, as MediaPipe configures them).
    public var minDetectionConfidence: Float?
    /// Overlap (IoU) above which two detections are merged (0...1, default 0.3).
    public var minSuppressionThreshold: Float = 0.3
    /// At most this many faces, best first; nil for no limit. Must be at least 1.
    public var maxFaces: Int?
    /// The smallest face to report, as its box's width over the image's width (the image as
    /// given), in 0...1: Mobile Vision's and ML Kit's `minFaceSize`. Applied before `maxFaces`,
    /// so small faces never take the place of larger ones. Default 0 (MediaPipe has no such
    /// option; ML Kit's default is 0.1).
    public var minFaceSize: Float = 0
    /// The threads that share the letterbox and the network's larger layers (default
    /// `ThreadPool.shared`; `ThreadPool.inline` for the calling thread alone). Borrowed, never
    /// owned: pass one pool to everything of one pipeline. Results do not depend on it.
    public var threadPool: ThreadPool = .shared
    /// How the detector is fed, fixed at creation (MediaPipe's running_mode): `.image` (default),
    /// `.video` or `.liveStream` (RunningMode/).
    public var runningMode: RunningMode = .image
    /// Live stream only: called with each result, in timestamp order, on one serial queue
    /// (MediaPipe's result_callback). Results also arrive on `FaceDetector.liveStreamResults`.
    public var liveStreamHandler: (@Sendable (LiveStreamResult) -> Void)?

    public init(model: FaceDetectorModel = .shortRange, weightsPath: String? = nil, minDetectionConfidence: Float? = nil,
                minSuppressionThreshold: Float = 0.3, maxFaces: Int? = nil, threadPool: ThreadPool = .shared, minFaceSize: Float = 0,
                runningMode: RunningMode = .image, liveStreamHandler: (@Sendable (LiveStreamResult) -> Void)? = nil) {
        self.model = model
        self.weightsPath = weightsPath
        self.minDetectionConfidence = minDetectionConfidence
        self.minSuppressionThreshold = minSuppressionThreshold
        self.maxFaces = maxFaces
        self.minFaceSize = minFaceSize
        self.threadPool = threadPool
        self.runningMode = runningMode
        self.liveStreamHandler = liveStreamHandler
    }

    /// The threshold in force: the one set, or the model's default.
    public var effectiveMinDetectionConfidence: Float { minDetectionConfidence ?? model.defaultMinDetectionConfidence }

    func validated() throws(DetectorError) -> FaceDetectorOptions {
        for (name, v) in [("minDetectionConfidence", effectiveMinDetectionConfidence), ("minSuppressionThreshold", minSuppressionThreshold)] {
            guard v.isFinite, (0...1).contains(v) else {
                throw .invalidOption(name: name, value: "\(v)", allowed: "a number in 0...1")
            }
        }
        if let maxFaces, maxFaces < 1 {
            throw .invalidOption(name: "maxFaces", value: "\(maxFaces)", allowed: "at least 1, or nil for no limit")
        }
        guard minFaceSize.isFinite, (0...1).contains(minFaceSize) else {
            throw .invalidOption(name: "minFaceSize", value: "\(minFaceSize)", allowed: "a number in 0...1")
        }
        try validateRunningMode()
        return self
    }
}

/// BlazeFace face detection, stage for stage as MediaPipe's FaceDetectorGraph: letterbox to the
/// model's input (128x128 or 192x192) in [-1, 1], the network, anchor decoding, weighted NMS,
/// projection back to the image, pixel boxes.
///
/// One detector serves one call at a time (calls from several threads are serialised);
/// create one per thread for parallel work.
public final class FaceDetector: VisionTask {
    public let options: FaceDetectorOptions
    let state: Mutex<DetectorState>   // internal: FaceDetector+Inputs.swift extends the API
    /// The live-stream machinery; nil unless `options.runningMode` is `.liveStream`.
    public let liveStream: LiveStreamRunner<LiveStreamResult>?

    public init(options: FaceDetectorOptions = FaceDetectorOptions()) throws(DetectorError) {
        let options = try options.validated()
        let path: String
        if let explicit = options.weightsPath { path = explicit } else {
            path = try WeightsLocator.path(for: options.model.weightsFile)
        }
        let model: ModelFile
        do { model = try WeightsFormat.read(contentsOf: path) } catch {
            if case .io = error { throw .weights(error) }   // already names the path
            throw .weightsFile(path: path, error)
        }
        self.options = options
        self.state = Mutex(try DetectorState(model: model, options: options))
        self.liveStream = LiveStreamRunner(for: options.runningMode, label: "BlazeFace.liveStream", handler: options.liveStreamHandler)
    }

    deinit { liveStream?.shutDown() }

    private init(options: FaceDetectorOptions, state: sending DetectorState) {
        self.options = options
        self.state = Mutex(state)
        liveStream = nil
    }

    /// An image-mode detector with these options whose network shares this one's packed weights
    /// (one copy in memory and in the shared cache), with activations of its own: a lane of a
    /// `FaceSearch`. Its results are this detector's.
    func sharingWeights() throws(DetectorError) -> FaceDetector {
        var options = options
        (options.runningMode, options.liveStreamHandler) = (.image, nil)
        return FaceDetector(options: options, state: try state.withLock { s throws(DetectorError) in try DetectorState(sharingWeightsOf: s) })
    }

    /// The pool the detector's network borrows (for tests: one pool serves a pipeline).
    package var networkThreadPool: ThreadPool { state.withLock { $0.network.threadPool } }

    /// Runs only the network, once, on the input tensor left by the last call: what a benchmark
    /// of inference alone measures (no pre- or post-processing, no copies).
    @_spi(Benchmarks) public func runNetwork() {
        state.withLock { $0.network.run() }
    }

    /// Per-layer median times of the network (see `Network.profileLayers`).
    package func profileLayers(iterations: Int) -> [(op: String, shape: String, medianSeconds: Double, macs: Int)] {
        state.withLock { $0.network.profileLayers(iterations: iterations).map { ($0.node.op, "\($0.shape)", $0.medianSeconds, $0.macs) } }
    }

    /// Stage 1: the model's input tensor (1xSxSx3) for `image`, and the transform back.
    package func inputTensor(for image: RGBImage) throws(DetectorError) -> (tensor: [Float], transform: ImageToTensor.Transform) {
        try state.withLock { pipeline throws(DetectorError) in
            let t = try pipeline.preprocess(image)
            return (Array(pipeline.network.input()), t)
        }
    }

    /// Stage 2: the raw outputs (Nx16 regressors, N logits; N = 896 or 2304 anchors) for an input tensor.
    package func rawOutputs(for tensor: [Float]) throws(DetectorError) -> (regressors: [Float], logits: [Float]) {
        try state.withLock { pipeline throws(DetectorError) in
            let input = pipeline.network.input()
            guard tensor.count == input.count else {
                throw .invalidOption(name: "tensor", value: "\(tensor.count) values", allowed: "\(input.count) values")
            }
            _ = input.update(fromContentsOf: tensor)
            pipeline.network.run()
            return (Array(pipeline.network.output(pipeline.regressorsIndex)), Array(pipeline.network.output(pipeline.logitsIndex)))
        }
    }

    /// Stage 3: detections from raw outputs, for an image of the given size.
    package func detections(regressors: [Float], logits: [Float], transform: ImageToTensor.Transform,
                           imageWidth: Int, imageHeight: Int) throws(DetectorError) -> FaceDetectorResult {
        try state.withLock { pipeline throws(DetectorError) in
            guard regressors.count == pipeline.decoder.anchors.count * 16, logits.count == pipeline.decoder.anchors.count else {
                throw .invalidOption(name: "raw outputs", value: "\(regressors.count) and \(logits.count) values",
                                     allowed: "\(pipeline.decoder.anchors.count * 16) and \(pipeline.decoder.anchors.count)")
            }
            var result = FaceDetectorResult()
            regressors.withUnsafeBufferPointer { r in
                logits.withUnsafeBufferPointer { l in
                    pipeline.postprocess(regressors: r, logits: l, transform: transform,
                                         imageWidth: imageWidth, imageHeight: imageHeight, into: &result)
                }
            }
            return result
        }
    }
}

/// The detector's mutable state: the bound network, the fixed stages around it, and the
/// buffers post-processing reuses from frame to frame.
struct DetectorState {
    let network: Network
    let imageToTensor: ImageToTensor
    var decoder: DetectionDecoder
    let nms: WeightedNonMaxSuppression
    /// NaN check, `minFaceSize` and `maxFaces`: the last step of every search.
    let faces: FaceFilter
    let regressorsIndex: Int, logitsIndex: Int
    var decoded: [RawDetection] = [], merged: [RawDetection] = []
    var nmsScratch = WeightedNonMaxSuppression.Scratch()
    /// Video mode: the last frame's timestamp, checked and advanced under the same lock as the frame.
    var timestamps = TimestampGate()

    init(model: ModelFile, options: FaceDetectorOptions) throws(DetectorError) {
        do { network = try Network(model: model, options: Network.Options(threadPool: options.threadPool)) } catch { throw .weights(error) }
        let size = options.model.inputSize
        let anchors = options.model.anchorOptions.generate()
        guard network.inputShapes == [Shape([1, size, size, 3])] else {
            throw .weights(.unexpectedModel("input \(network.inputShapes), expected [[1x\(size)x\(size)x3]] for \(options.model) BlazeFace"))
        }
        imageToTensor = ImageToTensor(width: size, height: size, valueRange: -1...1, keepAspectRatio: true)
        // The regressors are the output with 16 values per anchor, the scores the one with 1.
        guard let r = network.outputShapes.firstIndex(of: Shape([1, anchors.count, 16])),
              let l = network.outputShapes.firstIndex(of: Shape([1, anchors.count, 1])) else {
            throw .weights(.unexpectedModel("outputs \(network.outputShapes), expected [1x\(anchors.count)x16] and [1x\(anchors.count)x1]"))
        }
        (regressorsIndex, logitsIndex) = (r, l)
        var decoder = DetectionDecoder(anchors: anchors, minScore: options.effectiveMinDetectionConfidence)
        (decoder.xScale, decoder.yScale, decoder.wScale, decoder.hScale) = (Float(size), Float(size), Float(size), Float(size))
        self.decoder = decoder
        nms = WeightedNonMaxSuppression(minSuppressionThreshold: options.minSuppressionThreshold)
        faces = FaceFilter(options)
        decoded.reserveCapacity(anchors.count)
        merged.reserveCapacity(anchors.count)
    }

    /// A fresh state (nothing decoded, no timestamp) whose network shares `other`'s packed weights.
    init(sharingWeightsOf other: borrowing DetectorState) throws(DetectorError) {
        do { network = try other.network.sharingWeights() } catch { throw .weights(error) }
        (imageToTensor, decoder, nms, faces) = (other.imageToTensor, other.decoder, other.nms, other.faces)
        (regressorsIndex, logitsIndex) = (other.regressorsIndex, other.logitsIndex)
        decoded.reserveCapacity(other.decoded.capacity)
        merged.reserveCapacity(other.merged.capacity)
    }

    /// The letterbox, its rows split over the network's pool (whose workers then stay awake
    /// for the network's first layers).
    func preprocess(_ image: RGBImage, region: RotatedRect? = nil) throws(DetectorError) -> ImageToTensor.Transform {
        try imageToTensor.convert(image, region: region, into: network.input(), rowRunner: network.threadPool.parallelFor(units:_:))
    }

    mutating func detect(_ image: RGBImage, region: RotatedRect? = nil, into result: inout FaceDetectorResult) throws(DetectorError) {
        let transform = try preprocess(image, region: region)
        network.run()
        postprocess(regressors: network.output(regressorsIndex), logits: network.output(logitsIndex),
                    transform: transform, imageWidth: image.width, imageHeight: image.height, into: &result)
    }

    /// The faces scoring `pass.minScore` (nil: the detector's threshold) or more, at most
    /// `maxFaces` of them if `pass.capsFaces`.
    mutating func postprocess(regressors: UnsafeBufferPointer<Float>, logits: UnsafeBufferPointer<Float>,
                              transform: ImageToTensor.Transform, imageWidth: Int, imageHeight: Int, pass: Pass = Pass(),
                              into result: inout FaceDetectorResult) {
        decoder.decode(regressors: regressors, logits: logits, minScore: pass.minScore ?? decoder.minScore, into: &decoded)
        nms(decoded, scratch: &nmsScratch, into: &merged)
        let projection = DetectionProjection(m: transform.projection)
        result.detections.removeAll(keepingCapacity: true)
        result.narrowerThanMinFaceSize = 0
        for var d in merged {
            projection(&d)
            guard faces.add(d, to: &result, width: imageWidth, height: imageHeight, capped: pass.capsFaces) else { break }
        }
    }

    /// A search's own thresholds, where they differ from the detector's.
    struct Pass {
        /// The lowest score decoded; nil: the detector's `minDetectionConfidence`.
        var minScore: Float? = nil
        /// Whether `maxFaces` caps this search (tiled detection caps the merged faces instead).
        var capsFaces = true
    }
}
