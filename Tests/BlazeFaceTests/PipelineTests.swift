import BlazeFace
import BlazeImage
import BlazeModel
import BlazeTensor
import Foundation
import Testing

/// The detection stages on hand-made inputs whose answers follow from MediaPipe's definitions.
@Suite struct PipelineTests {
    @Test func anchorsFollowSsdAnchorsCalculator() {
        let anchors = AnchorOptions.shortRange.generate()
        #expect(anchors.count == 896)
        // 16x16 cells x 2 anchors at stride 8, then 8x8 cells x 6 anchors (three stride-16 layers merged).
        #expect(anchors[0] == Anchor(xCenter: 0.5 / 16, yCenter: 0.5 / 16, width: 1, height: 1))
        #expect(anchors[1] == anchors[0])
        #expect(anchors[2].xCenter == 1.5 / 16)
        #expect(anchors[511] == Anchor(xCenter: 15.5 / 16, yCenter: 15.5 / 16, width: 1, height: 1))
        #expect(anchors[512] == Anchor(xCenter: 0.5 / 8, yCenter: 0.5 / 8, width: 1, height: 1))
        #expect(anchors[517] == anchors[512])
        #expect(anchors[518].xCenter == 1.5 / 8)
    }

    @Test func decoderAppliesAnchorsScaleAndThreshold() {
        let anchors = [Anchor(xCenter: 0.25, yCenter: 0.5, width: 1, height: 1), Anchor(xCenter: 0.75, yCenter: 0.5, width: 1, height: 1)]
        let decoder = DetectionDecoder(anchors: anchors, minScore: 0.5)
        var regressors = [Float](repeating: 0, count: 32)
        regressors[0...3] = [12.8, -6.4, 32, 64]          // dx, dy, w, h in pixels of 128
        regressors[4...5] = [1.28, 1.28]                   // first keypoint
        let logits: [Float] = [2, -2]                      // sigmoid 0.881, 0.119
        let out = regressors.withUnsafeBufferPointer { r in logits.withUnsafeBufferPointer { decoder.decode(regressors: r, logits: $0) } }
        #expect(out.count == 1)
        #expect(abs(out[0].score - 1 / (1 + expf(-2))) < 1e-7)
        #expect(abs(out[0].box.xMin - (0.35 - 0.125)) < 1e-6)
        #expect(abs(out[0].box.yMin - (0.45 - 0.25)) < 1e-6)
        #expect(abs(out[0].box.width - 0.25) < 1e-6 && abs(out[0].box.height - 0.5) < 1e-6)
        #expect(abs(out[0].keypoints[0].x - 0.26) < 1e-6 && abs(out[0].keypoints[0].y - 0.51) < 1e-6)
    }

    @Test func decoderClipsLogitsAndDropsNegativeSizes() {
        let anchors = [Anchor(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1)]
        let decoder = DetectionDecoder(anchors: anchors, minScore: 0)
        var regressors = [Float](repeating: 0, count: 16)
        regressors[2] = -1                                   // negative width: dropped
        let dropped = regressors.withUnsafeBufferPointer { r in [Float(500)].withUnsafeBufferPointer { decoder.decode(regressors: r, logits: $0) } }
        #expect(dropped.isEmpty)
        regressors[2] = 1
        let kept = regressors.withUnsafeBufferPointer { r in [Float(-500)].withUnsafeBufferPointer { decoder.decode(regressors: r, logits: $0) } }
        #expect(kept.count == 1 && kept[0].score == 1 / (1 + expf(100)))   // clipped at -100
    }

    func raw(_ score: Float, _ x: Float, _ y: Float, _ size: Float) -> RawDetection {
        RawDetection(score: score, box: NormalizedRect(xMin: x, yMin: y, width: size, height: size),
                     keypoints: KeypointList([(x + size / 2, y + size / 2)]))
    }

    @Test func weightedSuppressionAveragesOverlapsByScore() {
        let nms = WeightedNonMaxSuppression(minSuppressionThreshold: 0.3)
        let out = nms([raw(0.6, 0.1, 0.1, 0.2), raw(0.9, 0.12, 0.1, 0.2), raw(0.8, 0.6, 0.6, 0.2)])
        #expect(out.count == 2)
        #expect(out[0].score == 0.9 && out[1].score == 0.8)
        // x: (0.12 * 0.9 + 0.1 * 0.6) / 1.5 = 0.112
        #expect(abs(out[0].box.xMin - 0.112) < 1e-6)
        #expect(abs(out[0].keypoints[0].x - 0.212) < 1e-6)
        // A lone box is still re-averaged (over itself), so only its rounding may move.
        #expect(abs(out[1].box.width - 0.2) < 1e-6 && out[1].box.xMin == 0.6)
    }

    @Test func suppressionKeepsBoxesBelowTheOverlapThreshold() {
        // IoU of two 0.2 boxes offset by 0.1: 0.02 / 0.06 = 1/3.
        let a = raw(0.9, 0, 0, 0.2), b = raw(0.8, 0.1, 0, 0.2)
        #expect(WeightedNonMaxSuppression(minSuppressionThreshold: 0.3)([a, b]).count == 1)
        #expect(WeightedNonMaxSuppression(minSuppressionThreshold: 0.34)([a, b]).count == 2)
    }

    @Test func zeroAreaBoxEndsSuppressionAsMediaPipeDoes() {
        let out = WeightedNonMaxSuppression(minSuppressionThreshold: 0.3)([raw(0.9, 0.5, 0.5, 0), raw(0.8, 0.1, 0.1, 0.2)])
        #expect(out.count == 1 && out[0].score == 0.9)
    }

    @Test func letterboxPadsTheShortSide() {
        let wide = RotatedRect.wholeImage(width: 1200, height: 300).paddedToAspect(tensorWidth: 128, tensorHeight: 128)
        #expect(wide == RotatedRect(centerX: 600, centerY: 150, width: 1200, height: 1200))
        let tall = RotatedRect.wholeImage(width: 300, height: 1000).paddedToAspect(tensorWidth: 128, tensorHeight: 128)
        #expect(tall.width == 1000 && tall.height == 1000)
        // Tensor (0.5, 0.5) is the image centre; tensor x 0 is image x 0 for the wide image.
        let m = wide.projectionMatrix(imageWidth: 1200, imageHeight: 300)
        #expect(m[0] * 0.5 + m[1] * 0.5 + m[3] == 0.5 && m[4] * 0.5 + m[5] * 0.5 + m[7] == 0.5)
        #expect(m[3] == 0 && m[7] == -1.5)
    }

    @Test func imageToTensorMapsPixelsToMinusOneOne() throws {
        let white = try RGBImage(width: 4, height: 4, fill: (255, 255, 255))
        let convert = ImageToTensor(width: 8, height: 8, valueRange: -1...1, keepAspectRatio: true)
        var tensor = [Float](repeating: 9, count: 8 * 8 * 3)
        _ = try tensor.withUnsafeMutableBufferPointer { try convert.convert(white, into: $0) }
        // 255 maps to fma(255, 2/255, -1) = 1.0000001 in float, as in MediaPipe's tensor.
        let top = Float(-1).addingProduct(255, Float(2) / 255)
        #expect(tensor[0] == top)
        // Samples past the last row or column blend with OpenCV's zero border (-1).
        #expect(tensor.allSatisfy { $0 >= -1 && $0 <= top })
        #expect(tensor.contains { $0 < 0 })
    }

    @Test func pixelBoxesTruncateAndClampPerField() throws {
        let detector = try FaceDetector(options: FaceDetectorOptions(weightsPath: Goldens.weights))
        // A face cut by the image corner: origin clamps to 0, width keeps its own truncation.
        let image = try Goldens.image("face_off_edge_320x240")
        let d = try #require(try detector.detect(image: image).detections.first)
        #expect(d.boundingBox.originX == 0 && d.boundingBox.originY == 0)
        #expect(d.relativeBoundingBox.xMin < 0)
        #expect(d.boundingBox.width == Int((d.relativeBoundingBox.width * 320).rounded(.towardZero)))
    }

    @Test(arguments: [
        FaceDetectorOptions(minDetectionConfidence: -0.1), FaceDetectorOptions(minDetectionConfidence: .nan),
        FaceDetectorOptions(minDetectionConfidence: 1.5), FaceDetectorOptions(minSuppressionThreshold: .infinity),
        FaceDetectorOptions(minSuppressionThreshold: -1), FaceDetectorOptions(maxFaces: 0),
    ])
    func refusesInvalidOptions(_ options: FaceDetectorOptions) {
        var options = options
        options.weightsPath = Goldens.weights
        #expect(throws: DetectorError.self) { try FaceDetector(options: options) }
    }

    @Test func maxFacesKeepsTheBest() throws {
        let all = try FaceDetector(options: FaceDetectorOptions(weightsPath: Goldens.weights)).detect(image: try Goldens.image("multi_face"))
        let one = try FaceDetector(options: FaceDetectorOptions(weightsPath: Goldens.weights, maxFaces: 1)).detect(image: try Goldens.image("multi_face"))
        #expect(all.detections.count == 3)
        #expect(one.detections == [all.detections[0]])
    }

    @Test func refusesWeightsThatAreNotBlazeFace() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("not-weights-\(UUID()).bin").path
        try Data("hello".utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(throws: DetectorError.self) { try FaceDetector(options: FaceDetectorOptions(weightsPath: path)) }
        #expect(throws: DetectorError.self) { try FaceDetector(options: FaceDetectorOptions(weightsPath: path + ".missing")) }
    }

    /// Weights poisoned with NaN or infinity (every value, or one bias) give no detections and
    /// no NaN in the result: never a crash.
    @Test(arguments: [(Float.nan, true), (.infinity, true), (.nan, false), (-.infinity, false)])
    func nonFiniteWeightsGiveNoDetections(_ value: Float, _ everyWeight: Bool) throws {
        var model = try WeightsFormat.read(contentsOf: Goldens.weights)
        for i in model.tensors.indices where everyWeight || i == 1 {
            let t = model.tensors[i].tensor
            model.tensors[i].tensor = try Tensor(shape: t.shape, scalars: [Float](repeating: value, count: t.shape.count))
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("poisoned-\(UUID()).bin").path
        try WeightsFormat.write(model, to: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try FaceDetector(options: FaceDetectorOptions(weightsPath: path)).detect(image: try Goldens.image("astronaut"))
        #expect(result.detections.allSatisfy { d in d.score.isFinite && d.keypoints.allSatisfy { $0.x.isFinite && $0.y.isFinite } })
        if everyWeight { #expect(result.detections.isEmpty) }
    }

    @Test func refusesInconsistentImages() throws {
        let detector = try FaceDetector(options: FaceDetectorOptions(weightsPath: Goldens.weights))
        var image = try RGBImage(width: 4, height: 4)
        image.pixels.removeLast()
        #expect(throws: DetectorError.self) { try detector.detect(image: image) }
    }

    @Test func jsonLineFollowsTheContract() throws {
        let detector = try FaceDetector(options: FaceDetectorOptions(weightsPath: Goldens.weights))
        let result = try detector.detect(image: try Goldens.image("astronaut"))
        let line = DetectionJSON.line(image: "a \"b\".png", width: 512, height: 512, result: result)
        #expect(!line.contains("\n"))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(json["image"] as? String == "a \"b\".png")
        #expect(json["width"] as? Int == 512 && json["height"] as? Int == 512)
        let detections = try #require(json["detections"] as? [[String: Any]])
        #expect(detections.count == 1)
        let box = try #require(detections[0]["boundingBox"] as? [String: Int])
        #expect(Set(box.keys) == ["originX", "originY", "width", "height"])
        let categories = try #require(detections[0]["categories"] as? [[String: Any]])
        #expect(categories[0]["index"] as? Int == 0)
        let keypoints = try #require(detections[0]["keypoints"] as? [[String: Any]])
        #expect(keypoints.map { $0["label"] as? String } == FaceKeypoint.allCases.map(\.label))
        #expect(line.hasPrefix("{\"image\":"))
        #expect(DetectionJSON.line(image: "x", width: 1, height: 1, result: FaceDetectorResult(detections: []))
                == "{\"image\":\"x\",\"width\":1,\"height\":1,\"detections\":[],\"coordinates\":\"boundingBox in pixels, keypoints normalized to the picture's width and height\"}")
    }
}

/// Mobile Vision's and ML Kit's `minFaceSize` on the detector (issue 24): small faces are dropped
/// before the `maxFaces` cap, so they never take a larger face's place.
@Suite struct MinFaceSizeTests {
    @Test func smallFacesGoBeforeTheCap() throws {
        let image = try Goldens.image("multi_face")   // 640 wide: faces of 118 (best score), 189 and 90 px
        let all = try FaceDetector(options: FaceDetectorOptions(weightsPath: Goldens.weights)).detect(image: image)
        #expect(all.detections.map(\.boundingBox.width) == [118, 189, 90])
        let capped = try FaceDetector(options: FaceDetectorOptions(weightsPath: Goldens.weights, maxFaces: 1, minFaceSize: 0.25))
            .detect(image: image)
        #expect(capped.detections.map(\.boundingBox) == [all.detections[1].boundingBox])
        let some = try FaceDetector(options: FaceDetectorOptions(weightsPath: Goldens.weights, minFaceSize: 0.15)).detect(image: image)
        #expect(some.detections == Array(all.detections.prefix(2)))
    }

    @Test(arguments: [-0.1, 1.5, Float.nan])
    func outOfRangeIsRefused(_ size: Float) {
        #expect(throws: DetectorError.self) {
            _ = try FaceDetector(options: FaceDetectorOptions(weightsPath: Goldens.weights, minFaceSize: size))
        }
    }
}
