import BlazeFace
import BlazeImage
import BlazeImageIO
import Foundation
import Testing

/// Tiled detection (issue 26): small faces in a large picture. A 960x540 composite of the
/// fixtures' faces at 20 to 90 pixels (face box width) on the coffee photo, with ground truth
/// (a quarter of the 1920x1080 composite the defaults were chosen on, to keep the debug-build
/// test short).
@Suite struct TiledDetectionTests {
    /// A face crop: centre and side in its photo, 1.5x the face box MediaPipe finds there.
    static let sources: [(file: String, x: Float, y: Float, side: Float)] = [
        ("astronaut", 224.5, 129.5, 142), ("two_faces_1280x853", 334, 529, 537), ("two_faces_1280x853", 1050, 304, 312),
    ]

    /// Bilinear resampling of the square (centre, side) of `image` to `size` x `size`.
    static func crop(_ image: RGBImage, _ cx: Float, _ cy: Float, _ side: Float, size: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: size * size * 3)
        let step = side / Float(size)
        for y in 0..<size {
            for x in 0..<size {
                let sx = cx - side / 2 + (Float(x) + 0.5) * step - 0.5, sy = cy - side / 2 + (Float(y) + 0.5) * step - 0.5
                let x0 = min(max(Int(sx.rounded(.down)), 0), image.width - 2), y0 = min(max(Int(sy.rounded(.down)), 0), image.height - 2)
                let fx = min(max(sx - Float(x0), 0), 1), fy = min(max(sy - Float(y0), 0), 1)
                for c in 0..<3 {
                    func p(_ x: Int, _ y: Int) -> Float { Float(image.pixels[3 * (y * image.width + x) + c]) }
                    let top = p(x0, y0) * (1 - fx) + p(x0 + 1, y0) * fx, bottom = p(x0, y0 + 1) * (1 - fx) + p(x0 + 1, y0 + 1) * fx
                    out[3 * (y * size + x) + c] = UInt8((top * (1 - fy) + bottom * fy).rounded())
                }
            }
        }
        return out
    }

    /// The composite and its faces' boxes (pixels: x, y, side).
    static func composite() throws -> (RGBImage, [(x: Int, y: Int, side: Int)]) {
        let coffee = try Goldens.image("no_face_coffee")
        var pixels = crop(coffee, Float(coffee.width) / 2, Float(coffee.height) / 2, Float(min(coffee.width, coffee.height)), size: 960)
        pixels = Array(pixels[(210 * 960 * 3)..<((210 + 540) * 960 * 3)])   // 960x540 from the middle
        var truth: [(x: Int, y: Int, side: Int)] = []
        let photos = try Dictionary(uniqueKeysWithValues: Set(sources.map(\.file)).map { ($0, try Goldens.image($0)) })
        // Three rows of five faces, face widths from 20 to 90 pixels, sources in turn.
        for row in 0..<3 {
            for column in 0..<5 {
                let i = row * 5 + column
                let face = 20 + (i * 70) / 14, sprite = face * 3 / 2
                let (x, y) = (20 + column * 185 + (row % 2) * 40, 15 + row * 175)
                let s = sources[i % sources.count]
                let tile = crop(photos[s.file]!, s.x, s.y, s.side, size: sprite)
                for sy in 0..<sprite where y + sy < 540 {
                    for sx in 0..<sprite where x + sx < 960 {
                        for c in 0..<3 { pixels[3 * ((y + sy) * 960 + x + sx) + c] = tile[3 * (sy * sprite + sx) + c] }
                    }
                }
                truth.append((x + (sprite - face) / 2, y + (sprite - face) / 2, face))
            }
        }
        return (try RGBImage(width: 960, height: 540, pixels: pixels), truth)
    }

    /// Recall and precision at IoU 0.4, each face matched once.
    static func score(_ found: [Detection], _ truth: [(x: Int, y: Int, side: Int)]) -> (recall: Double, precision: Double) {
        var unmatched = Array(truth.indices), hits = 0
        for d in found {
            let b = d.boundingBox
            let box = NormalizedRect(xMin: Float(b.originX), yMin: Float(b.originY), width: Float(b.width), height: Float(b.height))
            if let k = unmatched.firstIndex(where: { i in
                box.intersectionOverUnion(NormalizedRect(xMin: Float(truth[i].x), yMin: Float(truth[i].y),
                                                         width: Float(truth[i].side), height: Float(truth[i].side))) >= 0.4 }) {
                unmatched.remove(at: k)
                hits += 1
            }
        }
        return (Double(hits) / Double(truth.count), found.isEmpty ? 1 : Double(hits) / Double(found.count))
    }

    @Test func tilesFindTheSmallFacesTheWholeFrameMisses() throws {
        let (image, truth) = try Self.composite()
        let detector = try FaceDetector(options: FaceDetectorOptions(weightsPath: Goldens.weights))
        let whole = Self.score(try detector.detect(image: image).detections, truth)
        let tiling = try #require(TilingOptions.automatic(width: image.width, height: image.height, model: .shortRange))
        let tiled = Self.score(try detector.detect(image: image, searchArea: .tiles(tiling)).detections, truth)
        // The bars: recall and precision at least 0.95 at IoU 0.4.
        #expect(whole.recall < 0.5)
        #expect(tiled.recall >= 0.95, "recall \(tiled.recall), precision \(tiled.precision)")
        #expect(tiled.precision >= 0.95, "recall \(tiled.recall), precision \(tiled.precision)")
    }

    /// On a real photo the tiles add no false face: the two-face photo's two faces, no more, the
    /// same faces the whole frame finds (matched at IoU above 0.5, the usual detection match;
    /// the merged boxes are averaged with the tiles', measured 0.87 and up).
    @Test func tilesAddNoFalseFacesOnThePhoto() throws {
        let image = try Goldens.image("two_faces_1280x853")
        let detector = try FaceDetector(options: FaceDetectorOptions(weightsPath: Goldens.weights))
        let whole = try detector.detect(image: image).detections
        let tiling = try #require(TilingOptions.automatic(width: image.width, height: image.height, model: .shortRange))
        let tiled = try detector.detect(image: image, searchArea: .tiles(tiling)).detections
        #expect(tiled.count == 2 && whole.count == 2)
        for (t, w) in zip(tiled, whole) {
            #expect(t.relativeBoundingBox.intersectionOverUnion(w.relativeBoundingBox) > 0.5)
        }
    }

    @Test func tilesCoverThePictureAndOptionsAreChecked() throws {
        let tiles = TilingOptions(tileSizes: [400], overlap: 0.25).tiles(width: 1000, height: 500)
        // Steps of 300 (a quarter shared); the last row moved up to end flush with the border.
        #expect(tiles.map { [$0.x, $0.y, $0.side] } == [[0, 0, 400], [300, 0, 400], [600, 0, 400],
                                                         [0, 100, 400], [300, 100, 400], [600, 100, 400]])
        // No tiles for a picture no larger than the input; tiles of the input's side (faces 1:1)
        // for one up to three times it; and grids of two and three times it above.
        #expect(TilingOptions.automatic(width: 128, height: 96, model: .shortRange) == nil)
        #expect(TilingOptions.automatic(width: 257, height: 257, model: .shortRange)?.tileSizes == [128])
        #expect(TilingOptions.automatic(width: 1280, height: 720, model: .shortRange)?.tileSizes == [128, 256, 384])
        let detector = try FaceDetector(options: FaceDetectorOptions(weightsPath: Goldens.weights))
        let image = try RGBImage(width: 64, height: 64)
        #expect(throws: DetectorError.self) { try detector.detect(image: image, searchArea: .tiles(TilingOptions(tileSizes: [8]))) }
        #expect(throws: DetectorError.self) { try detector.detect(image: image, searchArea: .tiles(TilingOptions(tileSizes: [32], overlap: 1))) }
    }

    /// Faces of 19, 20 and 22 pixels on the coffee photo (768x240), twelve of each in a row,
    /// downscaled without smoothing (bilinear, two taps): harder for the model than the composites
    /// of `small_faces.py`, as a low-resolution camera's faces are.
    static func tinyFaces() throws -> (RGBImage, [(x: Int, y: Int, side: Int)]) {
        let coffee = try Goldens.image("no_face_coffee")
        var pixels = crop(coffee, Float(coffee.width) / 2, Float(coffee.height) / 2, Float(min(coffee.width, coffee.height)), size: 768)
        pixels = Array(pixels[(264 * 768 * 3)..<((264 + 240) * 768 * 3)])
        let photos = try Dictionary(uniqueKeysWithValues: Set(sources.map(\.file)).map { ($0, try Goldens.image($0)) })
        var truth: [(x: Int, y: Int, side: Int)] = []
        for (row, face) in [19, 20, 22].enumerated() {
            for column in 0..<12 {
                let sprite = face * 3 / 2, s = sources[(row + column) % sources.count]
                let (x, y) = (10 + column * 62 + (row % 2) * 20, 12 + row * 75)
                let tile = crop(photos[s.file]!, s.x, s.y, s.side, size: sprite)
                for sy in 0..<sprite { for sx in 0..<sprite { for c in 0..<3 {
                    pixels[3 * ((y + sy) * 768 + x + sx) + c] = tile[3 * (sy * sprite + sx) + c]
                } } }
                truth.append((x + (sprite - face) / 2, y + (sprite - face) / 2, face))
            }
        }
        return (try RGBImage(width: 768, height: 240, pixels: pixels), truth)
    }

    /// A second look (`TilingOptions.secondLookScore`) at the tiles' faces scoring 0.5 to 0.75:
    /// a close-up finds faces of 19 to 22 pixels that their tiles score too low, and no false face.
    @Test func aSecondLookFindsTheSmallFacesTilesScoreLow() throws {
        let (image, truth) = try Self.tinyFaces()
        let detector = try FaceDetector(options: FaceDetectorOptions(weightsPath: Goldens.weights))
        let tiling = try #require(TilingOptions.automatic(width: image.width, height: image.height, model: .shortRange))
        #expect(tiling.secondLookScore == 0.5)
        var without = tiling
        without.secondLookScore = nil
        let found = try detector.detect(image: image, searchArea: .tiles(tiling)).detections
        let missed = try detector.detect(image: image, searchArea: .tiles(without)).detections
        let (a, b) = (Self.score(found, truth), Self.score(missed, truth))
        print("second look: recall \(a.recall), precision \(a.precision); none: recall \(b.recall), precision \(b.precision)")
        #expect(a.precision == 1 && b.precision == 1)
        #expect(a.recall >= b.recall + 0.2)
        // Every face of 20 and 22 pixels.
        #expect(Self.score(found, truth.filter { $0.side >= 20 }).recall == 1)
        // Candidates from below the detector's threshold (0.5): tiles decode them for the
        // second look, and the detector's own threshold is as it was after.
        let whole = try detector.detect(image: image).detections
        var lower = tiling
        lower.secondLookScore = 0.35
        let more = Self.score(try detector.detect(image: image, searchArea: .tiles(lower)).detections, truth)
        #expect(more.recall >= a.recall && more.precision == 1, "from 0.35: recall \(more.recall), precision \(more.precision)")
        #expect(try detector.detect(image: image).detections == whole)
    }

    /// `FaceSearch`, the redactor's search made public (issue 43): two lanes sharing one copy of
    /// the weights find what one detector's tiled detection finds, faces and order, second looks
    /// included; the whole frame alone is one inference, a mosaic another.
    @Test func aSearchOnLanesFindsWhatOneDetectorFinds() throws {
        let (image, _) = try Self.tinyFaces()
        let options = FaceDetectorOptions(weightsPath: Goldens.weights)
        let tiling = try #require(TilingOptions.automatic(width: image.width, height: image.height, model: .shortRange))
        let expected = try FaceDetector(options: options).detect(image: image, searchArea: .tiles(tiling))
        let search = try FaceSearch(detectorOptions: options, threadPool: ThreadPool(threads: 2))
        let searches = tiling.searches(width: image.width, height: image.height)
        let found = try search.faces(in: image, searches: searches, secondLookMinScore: tiling.minTileConfidence)
        #expect(found.inferences > searches.count)   // some second looks
        #expect(search.merge(found.faces, width: image.width, height: image.height) == expected)
        #expect(expected.detections.count >= 4)

        let whole = try search.faces(in: image, searches: [.region(nil, minScore: 0)], secondLookMinScore: 1)
        #expect(whole.inferences == 1)
        #expect(search.merge(whole.faces, width: image.width, height: image.height) == (try FaceDetector(options: options).detect(image: image)))
        let box = expected.detections[0].boundingBox
        let around = RotatedRect(centerX: Float(box.originX) + Float(box.width) / 2, centerY: Float(box.originY) + Float(box.height) / 2,
                                 width: 1.5 * Float(box.width), height: 1.5 * Float(box.width))
        let mosaic = try search.faces(in: image, searches: [.mosaic([around])], secondLookMinScore: 1)
        #expect(mosaic.inferences == 1)
        #expect(mosaic.faces.map(\.box) == (try FaceDetector(options: options).detect(image: image, searchArea: .regions([around]))).perRegion[0]
            .detections.map(\.relativeBoundingBox))
    }

    /// The second look's bookkeeping: a candidate mostly inside a face found already gets none;
    /// two candidates of one face get one close-up (1.5 times the box, about its centre); a
    /// close-up's face counts only at the tile threshold and over its candidate.
    @Test func secondLooksAreDedupedAndChecked() {
        func raw(_ score: Float, _ x: Float, _ y: Float, _ side: Float) -> RawDetection {
            RawDetection(score: score, box: NormalizedRect(xMin: x, yMin: y, width: side, height: side), keypoints: KeypointList(count: 6))
        }
        let face = raw(0.9, 0.1, 0.1, 0.1)
        let candidates = [raw(0.6, 0.12, 0.12, 0.05), raw(0.6, 0.5, 0.5, 0.02), raw(0.55, 0.501, 0.5, 0.02)]
        let looks = FaceDetector.secondLooks(at: candidates, besides: [face], width: 1000, height: 1000, minSuppressionThreshold: 0.3)
        #expect(looks.count == 1)
        if let look = looks.first {
            #expect(abs(look.region.width - 30) < 0.1 && abs(look.region.height - 30) < 0.1)
            #expect(abs(look.region.centerX - 510) < 1 && abs(look.region.centerY - 510) < 1)
        }
        func result(_ d: RawDetection) -> FaceDetectorResult {
            var r = FaceDetectorResult()
            r.detections = [Detection(boundingBox: BoundingBox(d.box, imageWidth: 1000, imageHeight: 1000),
                                      relativeBoundingBox: d.box, score: d.score, keypoints: d.keypoints)]
            return r
        }
        let c = candidates[1]
        #expect(FaceDetector.secondLookFaces([result(raw(0.8, 0.5, 0.5, 0.021))], candidates: [c], minScore: 0.75).count == 1)
        #expect(FaceDetector.secondLookFaces([result(raw(0.7, 0.5, 0.5, 0.021))], candidates: [c], minScore: 0.75).isEmpty)
        #expect(FaceDetector.secondLookFaces([result(raw(0.9, 0.3, 0.3, 0.02))], candidates: [c], minScore: 0.75).isEmpty)
        #expect(throws: DetectorError.self) {
            var bad = TilingOptions(tileSizes: [128])
            bad.secondLookScore = 2
            _ = try FaceDetector(options: FaceDetectorOptions(weightsPath: Goldens.weights))
                .detect(image: try RGBImage(width: 256, height: 256), searchArea: .tiles(bad))
        }
    }
}
