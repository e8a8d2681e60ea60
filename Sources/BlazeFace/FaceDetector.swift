import BlazeImage
import BlazeModel
import BlazeTensor
import Foundation
import Synchronization

/// Options of a face detector, MediaPipe's `FaceDetectorOptions`.
public struct FaceDetectorOptions: Sendable {
    /// A weights file in the flat format; nil finds the bundled short-range weights.
    public var weightsPath: String?
    /// Faces scoring below this are dropped before suppression (0...1, default 0.5).
    public var minDetectionConfidence: Float = 0.5
    /// Overlap (IoU) above which two detections are merged (0...1, default 0.3).
    public var minSuppressionThreshold: Float = 0.3
    /// At most this many faces, best first; nil for no limit. Must be at least 1.
    public var maxFaces: Int?
    /// Threads the network may use (1...64, default 1). Results do not depend on it.
    public var threads: Int = 1

    public init(weightsPath: String? = nil, minDetectionConfidence: Float = 0.5,
                minSuppressionThreshold: Float = 0.3, maxFaces: Int? = nil, threads: Int = 1) {
        self.weightsPath = weightsPath
        self.minDetectionConfidence = minDetectionConfidence
        self.minSuppressionThreshold = minSuppressionThreshold
        self.maxFaces = maxFaces
        self.threads = threads
    }

    func validated() throws(DetectorError) -> FaceDetectorOptions {
        for (name, v) in [("minDetectionConfidence", minDetectionConfidence), ("minSuppressionThreshold", minSuppressionThreshold)] {
            guard v.isFinite, (0...1).contains(v) else {
                throw .invalidOption(name: name, value: "\(v)", allowed: "a number in 0...1")
            }
        }
        guard (1...64).contains(threads) else {
            throw .invalidOption(name: "threads", value: "\(threads)", allowed: "in 1...64")
        }
        if let maxFaces, maxFaces < 1 {
            throw .invalidOption(name: "maxFaces", value: "\(maxFaces)", allowed: "at least 1, or nil for no limit")
        }
        return self
    }
}

/// BlazeFace short-range face detection, stage for stage as MediaPipe's FaceDetectorGraph:
/// letterbox to 128x128 in [-1, 1], the network, anchor decoding, weighted NMS, projection
/// back to the image, pixel boxes.
///
/// One detector serves one call at a time (calls from several threads are serialised);
/// create one per thread for parallel work.
public final class FaceDetector: Sendable {
    public let options: FaceDetectorOptions
    private let state: Mutex<Pipeline>

    public init(options: FaceDetectorOptions = FaceDetectorOptions()) throws(DetectorError) {
        let options = try options.validated()
        let path: String
        if let explicit = options.weightsPath { path = explicit } else {
            path = try WeightsLocator.path(for: "face_detection_short_range.bin")
        }
        let model: ModelFile
        do { model = try WeightsFormat.read(contentsOf: path) } catch {
            if case .io = error { throw .weights(error) }   // already names the path
            throw .weightsFile(path: path, error)
        }
        self.options = options
        self.state = Mutex(try Pipeline(model: model, options: options))
    }

    /// Detects faces in `image`; detections sorted by score, highest first.
    public func detect(image: RGBImage) throws(DetectorError) -> FaceDetectorResult {
        var result = FaceDetectorResult()
        try detect(image: image, into: &result)
        return result
    }

    /// Detects faces into `result`, reusing its storage: with a result kept from frame to
    /// frame, a detection allocates nothing on the heap.
    public func detect(image: RGBImage, into result: inout FaceDetectorResult) throws(DetectorError) {
        try state.withLock { pipeline throws(DetectorError) in try pipeline.detect(image, into: &result) }
    }

    /// Runs only the network, once, on the input tensor left by the last call: what a benchmark
    /// of inference alone measures (no pre- or post-processing, no copies).
    public func runNetwork() {
        state.withLock { $0.network.run() }
    }

    /// Per-layer median times of the network (see `Network.profileLayers`).
    public func profileLayers(iterations: Int) -> [(op: String, shape: String, medianSeconds: Double, macs: Int)] {
        state.withLock { $0.network.profileLayers(iterations: iterations).map { ($0.node.op, "\($0.shape)", $0.medianSeconds, $0.macs) } }
    }

    /// Stage 1: the model's input tensor (1x128x128x3) for `image`, and the transform back.
    public func inputTensor(for image: RGBImage) throws(DetectorError) -> (tensor: [Float], transform: ImageToTensor.Transform) {
        try state.withLock { pipeline throws(DetectorError) in
            let t = try pipeline.preprocess(image)
            return (Array(pipeline.network.input()), t)
        }
    }

    /// Stage 2: the raw outputs (896x16 regressors, 896 logits) for an input tensor.
    public func rawOutputs(for tensor: [Float]) throws(DetectorError) -> (regressors: [Float], logits: [Float]) {
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
    public func detections(regressors: [Float], logits: [Float], transform: ImageToTensor.Transform,
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
struct Pipeline {
    let network: Network
    let imageToTensor = ImageToTensor(width: 128, height: 128, valueRange: -1...1, keepAspectRatio: true)
    let decoder: DetectionDecoder
    let nms: WeightedNonMaxSuppression
    let maxFaces: Int?
    let regressorsIndex: Int, logitsIndex: Int
    var decoded: [RawDetection] = [], merged: [RawDetection] = []
    var nmsScratch = WeightedNonMaxSuppression.Scratch()

    init(model: ModelFile, options: FaceDetectorOptions) throws(DetectorError) {
        do { network = try Network(model: model, options: Network.Options(threads: options.threads)) } catch { throw .weights(error) }
        let anchors = AnchorOptions.shortRange.generate()
        guard network.inputShapes == [Shape([1, 128, 128, 3])] else {
            throw .weights(.unexpectedModel("input \(network.inputShapes), expected [[1x128x128x3]] for short-range BlazeFace"))
        }
        // The regressors are the output with 16 values per anchor, the scores the one with 1.
        guard let r = network.outputShapes.firstIndex(of: Shape([1, anchors.count, 16])),
              let l = network.outputShapes.firstIndex(of: Shape([1, anchors.count, 1])) else {
            throw .weights(.unexpectedModel("outputs \(network.outputShapes), expected [1x\(anchors.count)x16] and [1x\(anchors.count)x1]"))
        }
        (regressorsIndex, logitsIndex) = (r, l)
        decoder = DetectionDecoder(anchors: anchors, minScore: options.minDetectionConfidence)
        nms = WeightedNonMaxSuppression(minSuppressionThreshold: options.minSuppressionThreshold)
        maxFaces = options.maxFaces
        decoded.reserveCapacity(anchors.count)
        merged.reserveCapacity(anchors.count)
    }

    func preprocess(_ image: RGBImage) throws(DetectorError) -> ImageToTensor.Transform {
        try imageToTensor.convert(image, into: network.input())
    }

    mutating func detect(_ image: RGBImage, into result: inout FaceDetectorResult) throws(DetectorError) {
        let transform = try preprocess(image)
        network.run()
        postprocess(regressors: network.output(regressorsIndex), logits: network.output(logitsIndex),
                    transform: transform, imageWidth: image.width, imageHeight: image.height, into: &result)
    }

    mutating func postprocess(regressors: UnsafeBufferPointer<Float>, logits: UnsafeBufferPointer<Float>,
                              transform: ImageToTensor.Transform, imageWidth: Int, imageHeight: Int,
                              into result: inout FaceDetectorResult) {
        decoder.decode(regressors: regressors, logits: logits, into: &decoded)
        nms(decoded, scratch: &nmsScratch, into: &merged)
        let projection = DetectionProjection(m: transform.projection)
        result.detections.removeAll(keepingCapacity: true)
        for var d in merged {
            projection(&d)
            // A NaN anywhere (from NaN pixels or weights) makes a detection meaningless: drop it.
            guard d.score.isFinite, d.box.xMin.isFinite, d.box.yMin.isFinite, d.box.width.isFinite,
                  d.box.height.isFinite, d.keypoints.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else { continue }
            if let maxFaces, result.detections.count == maxFaces { break }
            result.detections.append(Detection(
                boundingBox: BoundingBox(d.box, imageWidth: imageWidth, imageHeight: imageHeight),
                relativeBoundingBox: d.box, score: d.score, keypoints: d.keypoints))
        }
    }
}
