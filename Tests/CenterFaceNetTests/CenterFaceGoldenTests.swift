import BlazeFace
import BlazeImage
import BlazeImageIO
import BlazeModel
import BlazeTensor
import CenterFaceNet
import Foundation
import Testing
import VisionTasks

/// onnxruntime's goldens for the CenterFace port (Tools/reference/make_goldens_centerface.py).
enum CenterFaceGoldens {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
    static let weights = fixtures.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Weights/centerface.bin").path
    static let stems = ["astronaut_223x231", "face_off_edge_320x240", "multi_face"]
    /// Intermediate values checked (after the first convolution, stride 16, the backbone's
    /// output, the first upsampling), then the four outputs.
    static let intermediate = ["365", "474", "507", "514"]
    static let outputs = ["537", "538", "539", "540"]

    static func meta(_ stem: String) throws -> [String: Any] {
        let data = try Data(contentsOf: fixtures.appendingPathComponent("goldens/centerface/\(stem)/meta.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func floats(_ stem: String, _ value: String) throws -> [Float] {
        let data = try Data(contentsOf: fixtures.appendingPathComponent("goldens/centerface/\(stem)/\(value).f32"))
        return data.withUnsafeBytes { raw in
            (0..<data.count / 4).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self))) }
        }
    }

    /// The golden's input: the PNG's pixels at the top left of a zero canvas (sides rounded up to 32).
    static func input(_ stem: String) throws -> (image: RGBImage, tensor: Tensor) {
        let image = try PNG.read(contentsOf: fixtures.appendingPathComponent("images/\(stem).png").path)
        let (h, w) = ((image.height + 31) / 32 * 32, (image.width + 31) / 32 * 32)
        var scalars = [Float](repeating: 0, count: h * w * 3)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image[x, y]
                scalars[(y * w + x) * 3] = Float(p.r)
                scalars[(y * w + x) * 3 + 1] = Float(p.g)
                scalars[(y * w + x) * 3 + 2] = Float(p.b)
            }
        }
        return (image, try Tensor(shape: Shape([1, h, w, 3]), scalars: scalars))
    }

    /// The model with the intermediate values as extra outputs, after the four outputs.
    static func modelWithIntermediates() throws -> ModelFile {
        var model = try WeightsFormat.read(contentsOf: weights)
        let last = model.nodes.count - 1
        #expect(model.nodes[last].op == "OUTPUT" && model.nodes[last].inputs == outputs)
        model.nodes[last].inputs += intermediate
        return model
    }

    /// Largest error of `ours` against the golden slices of `value`, in units of the tensor's
    /// largest magnitude, and of the whole-tensor sum in units of the sum of magnitudes.
    static func compare(_ stem: String, _ value: String, _ ours: Tensor, meta: [String: Any]) throws
        -> (slice: Double, sum: Double) {
        let tensors = try #require(meta["tensors"] as? [String: Any])
        let info = try #require(tensors[value] as? [String: Any])
        let shape = try #require(info["shape"] as? [Int])
        #expect(ours.shape.dims == shape, "\(value): shape \(ours.shape) vs golden \(shape)")
        guard ours.shape.dims == shape else { return (.infinity, .infinity) }
        let (w, c) = (shape[2], shape[3])
        let golden = try floats(stem, value)
        let maxAbs = try #require(info["max_abs"] as? Double)
        var k = 0, worst = 0.0
        for s in try #require(info["slices"] as? [[Int]]) {
            for y in s[0]..<(s[0] + s[2]) {
                for x in s[1]..<(s[1] + s[3]) {
                    for ch in 0..<c {
                        worst = max(worst, Double(abs(ours.scalars[(y * w + x) * c + ch] - golden[k])) / maxAbs)
                        k += 1
                    }
                }
            }
        }
        #expect(k == golden.count)
        let sum = ours.scalars.reduce(0.0) { $0 + Double($1) }
        let absSum = try #require(info["abs_sum"] as? Double)
        return (worst, abs(sum - (try #require(info["sum"] as? Double))) / absSum)
    }
}

/// Our network against onnxruntime, stage by stage, on three fixture images (one non-square,
/// two padded). Errors are in units of each tensor's largest magnitude (slices) and of its sum
/// of magnitudes (whole-tensor sums): float32 sums in another order differ by a few ulps per
/// layer, which grow to around 1e-6 of the tensor's scale by the outputs.
@Suite struct CenterFaceGoldenTests {
    /// The tolerance on a slice value, relative to the tensor's largest magnitude (measured: at most 3.3e-6).
    static let sliceTolerance = 1e-5
    /// The tolerance on a whole-tensor sum, relative to its sum of magnitudes (measured: at most 6e-7).
    static let sumTolerance = 3e-6

    @Test(arguments: CenterFaceGoldens.stems)
    func stagesMatchOnnxruntime(_ stem: String) throws {
        let meta = try CenterFaceGoldens.meta(stem)
        let (_, input) = try CenterFaceGoldens.input(stem)
        let base = try Network(model: try CenterFaceGoldens.modelWithIntermediates())
        let network = try base.planned(inputShapes: [input.shape])
        let results = try network([input])
        let names = CenterFaceGoldens.outputs + CenterFaceGoldens.intermediate
        for (name, tensor) in zip(names, results) {
            let (slice, sum) = try CenterFaceGoldens.compare(stem, name, tensor, meta: meta)
            print("centerface \(stem) \(name): slice error \(slice), sum error \(sum)")
            #expect(slice <= Self.sliceTolerance, "\(stem) \(name): slice error \(slice)")
            #expect(sum <= Self.sumTolerance, "\(stem) \(name): sum error \(sum)")
        }
    }

    /// The reference kernels without fusion (the graph as the file lists it, PAD nodes and
    /// all) agree with onnxruntime too, on the smallest fixture.
    @Test func referenceKernelsMatchOnnxruntime() throws {
        let stem = "astronaut_223x231"
        let meta = try CenterFaceGoldens.meta(stem)
        let (_, input) = try CenterFaceGoldens.input(stem)
        let base = try Network(model: try CenterFaceGoldens.modelWithIntermediates(), options: .reference)
        let results = try base.planned(inputShapes: [input.shape])([input])
        for (name, tensor) in zip(CenterFaceGoldens.outputs + CenterFaceGoldens.intermediate, results) {
            let (slice, sum) = try CenterFaceGoldens.compare(stem, name, tensor, meta: meta)
            #expect(slice <= Self.sliceTolerance, "\(name): slice error \(slice)")
            #expect(sum <= Self.sumTolerance, "\(name): sum error \(sum)")
        }
    }

    /// Decoding our outputs (boxes clipped to the padded input, as deface's decode does) gives
    /// onnxruntime's decoded detections.
    @Test(arguments: CenterFaceGoldens.stems)
    func decodedDetectionsMatch(_ stem: String) throws {
        let meta = try CenterFaceGoldens.meta(stem)
        let (_, input) = try CenterFaceGoldens.input(stem)
        let network = try Network(model: try WeightsFormat.read(contentsOf: CenterFaceGoldens.weights)).planned(inputShapes: [input.shape])
        _ = try network([input])
        let (h, w) = (input.shape[1], input.shape[2])
        for threshold in ["0.2", "0.5"] {
            var found: [CenterFaceCandidate] = []
            CenterFaceDecoder(scoreThreshold: Float(threshold)!, iouThreshold: 0.3)
                .decode(heatmap: network.output(0), scale: network.output(1), offset: network.output(2),
                        landmarks: network.output(3), width: w / 4, height: h / 4,
                        clipWidth: Float(w), clipHeight: Float(h), into: &found)
            let golden = try #require((meta["detections"] as? [String: Any])?[threshold] as? [[String: Any]])
            try #require(found.count == golden.count, "\(stem) at \(threshold): \(found.count) vs \(golden.count) detections")
            var worst: Float = 0
            for (f, g) in zip(found, golden) {
                let box = try #require(g["box"] as? [Double]).map(Float.init)
                let lm = try #require(g["landmarks"] as? [Double]).map(Float.init)
                #expect(abs(f.score - Float(try #require(g["score"] as? Double))) <= 1e-5)
                let ours = [f.x1, f.y1, f.x2, f.y2] + f.landmarks.flatMap { [$0.x, $0.y] }
                for (a, b) in zip(ours, box + lm) { worst = max(worst, abs(a - b)) }
            }
            print("centerface \(stem) decode \(threshold): \(found.count) faces, largest coordinate error \(worst) px")
            #expect(worst <= 0.01, "\(stem): coordinates differ by up to \(worst) px")
        }
    }

    /// The detector end to end at scale 1 (the picture's own pixels, padded like the goldens):
    /// onnxruntime's detections normalized to the picture, boxes clipped to it.
    @Test(arguments: CenterFaceGoldens.stems)
    func detectorMatchesGoldens(_ stem: String) throws {
        let meta = try CenterFaceGoldens.meta(stem)
        let (image, _) = try CenterFaceGoldens.input(stem)
        let detector = try CenterFaceDetector(modelPath: CenterFaceGoldens.weights,
                                              options: .init(scoreThreshold: 0.5, iouThreshold: 0.3))
        let found = try detector.detect(image)
        let golden = try #require((meta["detections"] as? [String: Any])?["0.5"] as? [[String: Any]])
        try #require(found.count == golden.count)
        let (pw, ph) = (Float(image.width), Float(image.height))
        for (f, g) in zip(found, golden) {
            let box = try #require(g["box"] as? [Double]).map(Float.init)
            let expected = [box[0] / pw, box[1] / ph, min(box[2], pw) / pw, min(box[3], ph) / ph]
            let ours = [f.box.xMin, f.box.yMin, f.box.xMin + f.box.width, f.box.yMin + f.box.height]
            for (a, b) in zip(ours, expected) { #expect(abs(a - b) <= 1e-4, "\(stem): box \(ours) vs \(expected)") }
            let lm = try #require(g["landmarks"] as? [Double]).map(Float.init)
            for j in 0..<5 {
                #expect(abs(f.keypoints[j].x - lm[2 * j] / pw) <= 1e-4 && abs(f.keypoints[j].y - lm[2 * j + 1] / ph) <= 1e-4)
            }
        }
        // A second call reuses the planned network and gives the same detections.
        #expect(try detector.detect(image) == found)
    }
}

/// The fused network with the fastest kernels equals the graph as the file lists it through
/// the reference loops, bit for bit (fusion and kernel choice change no sum's order).
@Test func centerFaceFusedEqualsReferenceGraph() throws {
    let model = try WeightsFormat.read(contentsOf: CenterFaceGoldens.weights)
    let shape = Shape([1, 64, 96, 3])
    let fast = try Network(model: model).planned(inputShapes: [shape])
    let reference = try Network(model: model, options: .reference).planned(inputShapes: [shape])
    #expect(fast.layers.count < reference.layers.count)
    // Every inverted residual block but the first (which has no expand convolution) is one operator.
    #expect(fast.layers.filter { $0.node.op == "EXPAND_DEPTHWISE_POINTWISE" }.count == 16)
    let x = try Tensor(shape: shape, scalars: (0..<shape.count).map { Float(($0 * 7919) % 256) })
    #expect(try fast([x]) == reference([x]))
}

/// At a reduced scale the detector finds the same face (the golden's at full size), in the
/// picture's coordinates: a sanity check of the resampling and the mapping back, not agreement.
@Test func reducedScaleFindsTheSameFace() throws {
    let stem = "astronaut_223x231"
    let meta = try CenterFaceGoldens.meta(stem)
    let (image, _) = try CenterFaceGoldens.input(stem)
    let detector = try CenterFaceDetector(modelPath: CenterFaceGoldens.weights, options: .init(scoreThreshold: 0.5))
    let golden = try #require(((meta["detections"] as? [String: Any])?["0.5"] as? [[String: Any]])?.first?["box"] as? [Double])
    let (pw, ph) = (Double(image.width), Double(image.height))
    let g = (golden[0] / pw, golden[1] / ph, min(golden[2], pw) / pw, min(golden[3], ph) / ph)
    for scale: Float in [0.5, 0.75] {
        let found = try detector.detect(image, scale: scale)
        let f = try #require(found.first)
        let b = (Double(f.box.xMin), Double(f.box.yMin), Double(f.box.xMin + f.box.width), Double(f.box.yMin + f.box.height))
        let inter = max(0, min(b.2, g.2) - max(b.0, g.0)) * max(0, min(b.3, g.3) - max(b.1, g.1))
        let iou = inter / ((b.2 - b.0) * (b.3 - b.1) + (g.2 - g.0) * (g.3 - g.1) - inter)
        #expect(iou > 0.8, "scale \(scale): IoU \(iou) with the full-size face")
        #expect(found.count == 1)
    }
    // A region: the face's top-left quarter of the picture still holds most of the face.
    let region = NormalizedRect(xMin: 0.25, yMin: 0, width: 0.75, height: 0.75)
    let inRegion = try detector.detect(image, region: region)
    #expect(inRegion.contains { $0.box.xMin >= 0.25 - 1e-6 && $0.box.yMin >= 0 })
}

/// A detector on another's weights (`init(sharingWeightsOf:)`, the redactor's close-ups beside
/// its regions) finds what a detector loading its own finds, and the two keep their own
/// activations: used in turn at different sizes, neither disturbs the other's results.
@Test func aDetectorSharingWeightsFindsWhatItsOwnWouldFind() throws {
    let image = try CenterFaceGoldens.input("multi_face").image
    let own = try CenterFaceDetector(modelPath: CenterFaceGoldens.weights, options: .init(scoreThreshold: 0.5))
    let first = try CenterFaceDetector(modelPath: CenterFaceGoldens.weights, options: .init(scoreThreshold: 0.5))
    let shared = try CenterFaceDetector(sharingWeightsOf: first, options: .init(scoreThreshold: 0.5), cachedInputSizes: 1)
    let whole = try own.detect(image), half = try own.detect(image, scale: 0.5)
    try #require(!whole.isEmpty && !half.isEmpty)
    #expect(try first.detect(image) == whole)
    #expect(try shared.detect(image, scale: 0.5) == half)
    #expect(try first.detect(image) == whole)
    #expect(try shared.detect(image) == whole)
    #expect(try shared.detect(image, scale: 0.5) == half)
    #expect(throws: VisionTaskError.self) { try CenterFaceDetector(sharingWeightsOf: first, cachedInputSizes: 0) }
}

/// Close-ups side by side in one input (`detect(_:closeUps:side:)`): a close-up alone is the
/// region search of the same square; in a mosaic each cell finds its own face, mapped back to
/// the picture, and a cell past the picture's edges (zeros) finds nothing.
@Suite struct CloseUpMosaicTests {
    let detector: CenterFaceDetector
    let image: RGBImage

    init() throws {
        detector = try CenterFaceDetector(modelPath: CenterFaceGoldens.weights, options: .init(scoreThreshold: 0.5))
        image = try CenterFaceGoldens.input("multi_face").image
    }

    static func iou(_ a: NormalizedRect, _ b: NormalizedRect) -> Float {
        let inter = a.intersectionArea(b)
        return inter / (a.width * a.height + b.width * b.height - inter)
    }

    /// The close-up of a face as the redactor makes it: its centre, the face shown at 48 pixels.
    func closeUp(_ box: NormalizedRect) -> CenterFaceDetector.CloseUp {
        let (w, h) = (Float(image.width), Float(image.height))
        let side = max(box.width * w, box.height * h)
        return .init(centerX: (box.xMin + box.width / 2) * w, centerY: (box.yMin + box.height / 2) * h, scale: 48 / side)
    }

    @Test func aCloseUpAloneIsTheRegionSearchOfItsSquare() throws {
        let faces = try detector.detect(image)
        try #require(!faces.isEmpty)
        let (w, h) = (Float(image.width), Float(image.height))
        // A face whose square (96 input pixels at the close-up's scale: twice, one and a half or
        // one and a quarter times the face's side) lies inside the picture.
        let candidates = faces.flatMap { face in
            [2, 1.5, 1.25].map { (f: Float) -> CenterFaceDetector.CloseUp in
                let c = closeUp(face.box)
                return .init(centerX: c.centerX, centerY: c.centerY, scale: c.scale * 2 / f)
            }
        }
        let c = try #require(candidates.first { c in
            let half = 48 / c.scale
            return c.centerX - half >= 0 && c.centerY - half >= 0 && c.centerX + half <= w && c.centerY + half <= h
        })
        let half = 48 / c.scale
        let square = NormalizedRect(xMin: (c.centerX - half) / w, yMin: (c.centerY - half) / h, width: 2 * half / w, height: 2 * half / h)
        let alone = try detector.detect(image, closeUps: [c], side: 96)[0]
        let region = try detector.detect(image, region: square, scale: c.scale)
        try #require(alone.count == region.count && !alone.isEmpty)
        for (a, b) in zip(alone, region) {
            // The same samples but for float rounding of the square's corner (normalized and back).
            #expect(abs(a.score - b.score) <= 1e-3)
            for (p, q) in zip([a.box.xMin, a.box.yMin, a.box.width, a.box.height], [b.box.xMin, b.box.yMin, b.box.width, b.box.height]) {
                #expect(abs(p - q) <= 1e-3)
            }
        }
    }

    @Test func eachCellOfAMosaicFindsItsOwnFace() throws {
        let faces = try detector.detect(image)
        try #require(faces.count >= 2)
        // The faces' close-ups, with one far outside the picture (all zeros) second.
        var closeUps = faces.map { closeUp($0.box) }
        closeUps.insert(.init(centerX: -1000, centerY: -1000, scale: 1), at: 1)
        let found = try detector.detect(image, closeUps: closeUps, side: 96)
        #expect(found.count == closeUps.count)
        #expect(found[1].isEmpty)
        for (face, cell) in zip(faces, found.enumerated().filter { $0.offset != 1 }.map(\.element)) {
            let best = cell.map { Self.iou($0.box, face.box) }.max() ?? 0
            #expect(best > 0.7, "a face at \(face.box): best IoU \(best) in its cell")
            for d in cell {
                #expect(d.box.xMin >= 0 && d.box.yMin >= 0 && d.box.xMin + d.box.width <= 1 + 1e-6 && d.box.yMin + d.box.height <= 1 + 1e-6)
            }
        }
        // More close-ups than one inference takes: the same cells, in the same order.
        let many = try detector.detect(image, closeUps: Array(repeating: closeUps[0], count: CenterFaceDetector.closeUpsPerInference + 1), side: 96)
        #expect(many.count == CenterFaceDetector.closeUpsPerInference + 1)
        #expect(many.allSatisfy { !$0.isEmpty })
        // A close-up that is not finite is an error, not a trap.
        #expect(throws: VisionTaskError.self) { try detector.detect(image, closeUps: [.init(centerX: .nan, centerY: 0, scale: 1)], side: 96) }
        #expect(throws: VisionTaskError.self) { try detector.detect(image, closeUps: [closeUps[0]], side: 100) }
    }
}

/// `Precision.bfloat16` (the redactor's default: `WideSearch.precision`) against onnxruntime's
/// goldens: the pointwise convolutions' operands rounded to bfloat16's 8 significant bits move
/// the heatmap by thousandths, not the faces. At 0.5 it finds each golden face and no other, at
/// the same place (IoU with the golden's box at least 0.98; measured 0.998 and up) with a score
/// within 0.01 of the golden's (measured: 0.0025 at most); the bits are the kernels'
/// definition on every CPU (`BFloat16Tests`).
@Test(arguments: CenterFaceGoldens.stems)
func bfloat16FindsOnnxRuntimesFaces(_ stem: String) throws {
    let meta = try CenterFaceGoldens.meta(stem)
    let (image, _) = try CenterFaceGoldens.input(stem)
    let detector = try CenterFaceDetector(modelPath: CenterFaceGoldens.weights, options: .init(scoreThreshold: 0.5, iouThreshold: 0.3),
                                          precision: .bfloat16)
    let found = try detector.detect(image)
    let golden = try #require((meta["detections"] as? [String: Any])?["0.5"] as? [[String: Any]])
    #expect(found.count == golden.count, "\(stem): \(found.count) faces vs \(golden.count)")
    let (pw, ph) = (Float(image.width), Float(image.height))
    for g in golden {
        let box = try #require(g["box"] as? [Double]).map(Float.init)
        let expected = NormalizedRect(xMin: box[0] / pw, yMin: box[1] / ph, width: (min(box[2], pw) - box[0]) / pw,
                                      height: (min(box[3], ph) - box[1]) / ph)
        let score = Float(try #require(g["score"] as? Double))
        let best = try #require(found.max { CloseUpMosaicTests.iou($0.box, expected) < CloseUpMosaicTests.iou($1.box, expected) })
        let iou = CloseUpMosaicTests.iou(best.box, expected)
        print("centerface bfloat16 \(stem): score \(best.score) vs \(score), IoU \(iou)")
        #expect(iou >= 0.98, "\(stem): IoU \(iou) with the golden face at \(expected)")
        #expect(abs(best.score - score) <= 0.01, "\(stem): score \(best.score) vs \(score)")
    }
}
