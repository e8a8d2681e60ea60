import BlazeImage
import VisionTasks

/// How a large picture is cut into tiles for detection (SAHI, "slicing aided hyper inference"):
/// square tiles of each of `tileSizes` pixels (one grid per size: small tiles for small faces,
/// large ones for the faces small tiles cut) overlapping by `overlap` of their side, plus the
/// whole frame, each letterboxed to the model's input on its own. A face 20 pixels wide in a 1920x1080
/// photo is 2 pixels of the short-range model's 128x128 input, too small to find; in a 200-pixel
/// tile it is 13. Off by default (`detect(image:)` is MediaPipe's, untiled).
public struct TilingOptions: Sendable, Equatable {
    /// Sides of the square tiles, in image pixels (each at least 16), one grid per side.
    public var tileSizes: [Int]
    /// Fraction of a tile's side that neighbouring tiles share (0..<1; default 0.25), so that a
    /// face cut by one tile's border lies whole in the next.
    public var overlap: Float
    /// Whether the whole frame is detected too (the large faces no tile holds whole).
    public var includeFullFrame: Bool
    /// The score a tile's face needs (0...1, default 0.75), above the detector's own threshold
    /// (0.5 for short range), which is set for one look at the whole frame: with a hundred tiles
    /// a photo's texture gives weak false faces (scores 0.51 to 0.58 on the two-face photo,
    /// whose faces score 0.93 and 0.96; the 20-pixel faces of the composite score 0.88 and up).
    public var minTileConfidence: Float = 0.75
    /// A tile's face scoring from this up to `minTileConfidence` gets a second look (nil: none;
    /// default 0.5): the model searches a square of one and a half times its box about it,
    /// four such squares to an inference (`detect(image:searchArea: .regions(...))`), and the face counts
    /// if that close-up finds it at `minTileConfidence`. A face of 20 pixels cut or at the edge
    /// of the scale a tile sees scores 0.6 to 0.7 there and 0.85 in a close-up, where a tile's
    /// texture taken for a face mostly does not (`Tools/redaction/small_faces.py`). Below the
    /// detector's own threshold, tiles decode candidates down to this score. Measured on 1920x1080
    /// composites (`small_faces.py --composites 2 --faces 72`, seeds 1 to 3, `--sizes 14,30`):
    /// faces under 20 pixels found 73 of 200 without a second look, 144 from 0.5, 172 from 0.35
    /// (precision 1.0 each; CenterFace 100); but from 0.35 video redaction was 9% slower than
    /// without and the close-ups confirmed false faces in a face-free clip (7.5% of it masked),
    /// 3% slower and none from 0.5.
    public var secondLookScore: Float? = 0.5

    /// Tiles of each of `tileSizes` pixels, sharing `overlap` of their side, and the whole frame.
    public init(tileSizes: [Int], overlap: Float = 0.25, includeFullFrame: Bool = true) {
        (self.tileSizes, self.overlap, self.includeFullFrame) = (tileSizes, overlap, includeFullFrame)
    }

    /// The defaults for a `width` x `height` picture, for the model's input side S: tiles of S
    /// (seen at full resolution: a face of 20 pixels stays 20 pixels of the input, about the
    /// smallest the models find), of 2 S and of 3 S (each grid finds faces from about 20 pixels
    /// of the input up to its overlap, a quarter of its side, whole in a tile: S finds 20 to 32
    /// pixels, 2 S 40 to 64, 3 S 60 to 96; larger faces, cut by tiles, are found cut or by the
    /// whole frame), each grid where the picture's shorter side exceeds it, and the whole frame.
    /// Measured by
    /// `Tools/redaction/small_faces.py` on 1920x1080 composites of faces 20 to 120 pixels wide
    /// (Docs/tiling.md): without the 2 S grid, faces of about 55 pixels were missed when a small
    /// tile cut them (recall 0.995 on one seed); with it, recall 1.0 on every seed tried.
    ///
    /// A smaller picture, larger than S, is searched in tiles of S (the faces 1:1): the whole
    /// frame of a 370x334 photo shows the model its faces at a third of their size, and missed
    /// both faces of a couple 30 pixels wide (`Tools/redaction/small_photos.py`: 39 of 69 faces
    /// of 24 to 170 pixels in pictures of 257 to 400 pixels found untiled, 69 with tiles of S;
    /// no new false face on 53 pictures without one). Nil (no tiling) when the picture is no
    /// larger than S.
    public static func automatic(width: Int, height: Int, model: FaceDetectorModel) -> TilingOptions? {
        let input = model.inputSize
        guard max(width, height) > input else { return nil }
        guard max(width, height) > 3 * input else { return TilingOptions(tileSizes: [input]) }
        return TilingOptions(tileSizes: [input] + [2 * input, 3 * input].filter { min(width, height) > $0 })
    }

    /// The tiles of a `width` x `height` picture, as pixel rectangles (x, y, side), grid by grid,
    /// left to right then top to bottom; the last tile of a row or column is flush with the border.
    public func tiles(width: Int, height: Int) -> [(x: Int, y: Int, side: Int)] {
        tileSizes.flatMap { grid(side: min($0, width, height), width: width, height: height) }
    }

    /// The tiles of a `width` x `height` picture as regions of interest (normalized).
    public func regions(width: Int, height: Int) -> [RegionOfInterest] {
        let (w, h) = (Float(width), Float(height))
        return tiles(width: width, height: height).map {
            RegionOfInterest(left: Float($0.x) / w, top: Float($0.y) / h, right: Float($0.x + $0.side) / w, bottom: Float($0.y + $0.side) / h)
        }
    }

    /// What tiled detection searches in a `width` x `height` picture (`FaceSearch`): the whole
    /// frame (if `includeFullFrame`) at the detector's threshold, and every tile at `minTileConfidence`.
    public func searches(width: Int, height: Int) -> [FaceSearch.Search] {
        (includeFullFrame ? [.region(nil, minScore: 0)] : []) + regions(width: width, height: height).map { tileSearch($0) }
    }

    /// The search of one tile: its faces at `minTileConfidence`, its candidates for a second
    /// look from `secondLookScore`.
    public func tileSearch(_ region: RegionOfInterest) -> FaceSearch.Search {
        .region(region, minScore: minTileConfidence, candidateScore: secondLookScore.map { min($0, minTileConfidence) })
    }

    private func grid(side: Int, width: Int, height: Int) -> [(x: Int, y: Int, side: Int)] {
        let step = max(1, Int((Float(side) * (1 - overlap)).rounded(.down)))
        func starts(_ length: Int) -> [Int] {
            var s = Array(stride(from: 0, through: length - side, by: step))
            if let last = s.last, last + side < length { s.append(length - side) }
            return s
        }
        return starts(height).flatMap { y in starts(width).map { x in (x: x, y: y, side: side) } }
    }

    /// The options, or the first one out of range as `.invalidOption`.
    public func validated() throws(DetectorError) -> TilingOptions {
        guard !tileSizes.isEmpty, tileSizes.allSatisfy({ $0 >= 16 }) else {
            throw .invalidOption(name: "tileSizes", value: "\(tileSizes)", allowed: "one or more sides of at least 16 pixels")
        }
        guard minTileConfidence.isFinite, (0...1).contains(minTileConfidence) else {
            throw .invalidOption(name: "minTileConfidence", value: "\(minTileConfidence)", allowed: "in 0...1")
        }
        if let secondLookScore, !(secondLookScore.isFinite && (0...1).contains(secondLookScore)) {
            throw .invalidOption(name: "secondLookScore", value: "\(secondLookScore)", allowed: "in 0...1, or nil")
        }
        guard overlap.isFinite, overlap >= 0, overlap < 1 else {
            throw .invalidOption(name: "overlap", value: "\(overlap)", allowed: "in 0..<1")
        }
        return self
    }
}

extension FaceDetector {
    /// Faces by tiled detection (`detect(image:searchArea: .tiles(tiling))`): each tile, and the
    /// whole frame if asked, detected as a region of interest (the same letterbox and network as
    /// `detect(image:options:)`), the detections of all of them merged by the detector's own
    /// weighted non-maximum suppression, best first; `maxFaces` and `minFaceSize` apply to the
    /// merged faces. Image mode only.
    func detect<P: SampledPixels & Sendable>(sampled pixels: P, tiling: TilingOptions) throws(DetectorError) -> FaceDetectorResult {
        let tiling = try tiling.validated()
        try requireMode(.image, for: "detect(image:searchArea:)")
        let found = try FaceSearch(detector: self).faces(in: pixels, searches: tiling.searches(width: pixels.width, height: pixels.height),
                                                         secondLookMinScore: tiling.minTileConfidence)
        return merge(found.faces, width: pixels.width, height: pixels.height)
    }

    /// The close-ups of a second look: a square of one and a half times the box about each
    /// candidate (as a tracked face's search region: a quadrant of the mosaic sees the face at
    /// about 43 pixels), best first, after suppressing candidates that overlap a better one or
    /// lie mostly inside a face found already.
    package static func secondLooks(at candidates: [RawDetection], besides faces: [RawDetection], width: Int, height: Int,
                                    minSuppressionThreshold: Float) -> [(candidate: RawDetection, region: RotatedRect)] {
        guard !candidates.isEmpty else { return [] }
        let fresh = candidates.filter { c in !faces.contains { c.box.overlapOfSmaller($0.box) > 0.5 } }
        let (w, h) = (Float(width), Float(height))
        return WeightedNonMaxSuppression(minSuppressionThreshold: minSuppressionThreshold)(fresh).compactMap { c in
            let (cx, cy, side) = c.box.square(times: 1.5, width: w, height: h)
            guard side.isFinite, cx.isFinite, cy.isFinite, side >= 4 else { return nil }
            return (c, RotatedRect(centerX: cx, centerY: cy, width: side, height: side))
        }
    }

    /// The faces a second look confirms: in each close-up, the best face scoring `minScore` or
    /// more that lies mostly over its candidate (`results` and `candidates` in the same order).
    package static func secondLookFaces(_ results: [FaceDetectorResult], candidates: [RawDetection], minScore: Float) -> [RawDetection] {
        zip(results, candidates).compactMap { result, candidate in
            result.detections.filter { $0.score >= minScore && $0.relativeBoundingBox.overlapOfSmaller(candidate.box) > 0.5 }
                .max { $0.score < $1.score }
                .map { RawDetection(score: $0.score, box: $0.relativeBoundingBox, keypoints: $0.keypointList) }
        }
    }

    /// The faces in `region` (nil: the whole frame) scoring at least `minScore`, and its
    /// candidates for a second look (from `candidateScore` up to `minScore`; nil: none),
    /// unmerged and uncapped, in the picture's normalized coordinates. Candidates below the
    /// detector's own threshold are decoded for this search only.
    func searchDetections<P: SampledPixels & Sendable>(sampled pixels: P, region: RegionOfInterest?, minScore: Float, candidateScore: Float?)
        throws(DetectorError) -> (faces: [RawDetection], candidates: [RawDetection]) {
        var (raw, candidates): ([RawDetection], [RawDetection]) = ([], [])
        var result = FaceDetectorResult()
        try state.withLock { pipeline throws(DetectorError) in
            let threshold = pipeline.decoder.minScore
            let pass = DetectorState.Pass(minScore: min(threshold, candidateScore ?? threshold), capsFaces: false)
            try pipeline.detect(sampled: pixels, options: ImageProcessingOptions(regionOfInterest: region), pass: pass, into: &result)
        }
        for d in result.detections {
            let face = RawDetection(score: d.score, box: d.relativeBoundingBox, keypoints: d.keypointList)
            if d.score >= minScore {
                raw.append(face)
            } else if let candidateScore, d.score >= candidateScore {
                candidates.append(face)
            }
        }
        return (raw, candidates)
    }

    /// The faces of all regions as one result for a `width` x `height` picture: the detector's
    /// weighted suppression, then SAHI's containment merge; the detector's last step
    /// (`FaceFilter`: NaN check, `minFaceSize`, `maxFaces`) on the merged faces.
    func merge(_ raw: [RawDetection], width: Int, height: Int) -> FaceDetectorResult {
        var merged: [RawDetection] = []
        for d in WeightedNonMaxSuppression(minSuppressionThreshold: options.minSuppressionThreshold)(raw)
        where !merged.contains(where: { d.box.overlapOfSmaller($0.box) > 0.5 }) {
            merged.append(d)
        }
        var result = FaceDetectorResult()
        let faces = FaceFilter(options)
        for d in merged {
            guard faces.add(d, to: &result, width: width, height: height) else { break }
        }
        return result
    }
}

extension NormalizedRect {
    /// The area this box and `other` share (0 when they do not overlap).
    public func intersectionArea(_ other: NormalizedRect) -> Float {
        let w = min(xMin + width, other.xMin + other.width) - max(xMin, other.xMin)
        let h = min(yMin + height, other.yMin + other.height) - max(yMin, other.yMin)
        return w > 0 && h > 0 ? w * h : 0
    }

    /// The square `k` times this box's larger side about its centre, in the pixels of a
    /// `width` x `height` picture: where a face is looked at again (second looks, tracked faces'
    /// search regions, the redactor's close-ups and second opinions).
    public func square(times k: Float, width: Float, height: Float) -> (centerX: Float, centerY: Float, side: Float) {
        (centerX: (xMin + self.width / 2) * width, centerY: (yMin + self.height / 2) * height,
         side: k * max(self.width * width, self.height * height))
    }

    /// The area this box and `other` share over the smaller one's area (0 if either is empty):
    /// how much of the smaller box lies in the larger, for merging and matching faces.
    public func overlapOfSmaller(_ other: NormalizedRect) -> Float {
        let smaller = min(width * height, other.width * other.height)
        return smaller > 0 ? intersectionArea(other) / smaller : 0
    }
}
