/// A detection in normalized tensor or image coordinates, before pixel rounding: what
/// MediaPipe passes between its post-processing calculators.
public struct RawDetection: Sendable, Equatable {
    /// The detection's score, 0...1: the sigmoid of the model's clipped logit.
    public var score: Float
    /// The box, in the same normalized coordinates as the keypoints.
    public var box: NormalizedRect
    /// The keypoints, normalized like the box.
    public var keypoints: KeypointList

    /// A detection from its score, box and keypoints.
    public init(score: Float, box: NormalizedRect, keypoints: KeypointList) {
        (self.score, self.box, self.keypoints) = (score, box, keypoints)
    }
}

/// MediaPipe's TensorsToDetectionsCalculator (CPU path) for an SSD model whose raw boxes are
/// XYWH (`reverse_output_order`) followed by keypoint (x, y) pairs, decoded against anchors.
public struct DetectionDecoder: Sendable {
    /// The SSD anchors, one per row of the model's outputs, in order.
    public let anchors: [Anchor]
    /// Values per anchor in `regressors`, keypoints per anchor, and where a row's keypoints start:
    /// the calculator's num_coords, num_keypoints and keypoint_coord_offset.
    public var coordinateCount = 16, keypointCount = 6, keypointOffset = 4
    /// Regressor scale: the model's input size in pixels.
    public var xScale: Float = 128, yScale: Float = 128, wScale: Float = 128, hScale: Float = 128
    /// Logits are clipped to this magnitude before the sigmoid (score_clipping_thresh).
    public var scoreClippingThreshold: Float = 100
    /// The lowest score kept (the calculator's min_score_thresh).
    public var minScore: Float

    /// A decoder over `anchors` keeping scores from `minScore` up; the other settings default
    /// to the short-range model's.
    public init(anchors: [Anchor], minScore: Float) {
        self.anchors = anchors
        self.minScore = minScore
    }

    /// Sigmoid of the clipped logit, in float, as the calculator computes it.
    @inline(__always) func score(_ logit: Float) -> Float {
        let x = min(max(logit, -scoreClippingThreshold), scoreClippingThreshold)
        return 1 / (1 + expf(-x))
    }

    /// The detections whose score reaches `minScore`, in anchor order. Boxes with a negative or
    /// NaN size are dropped, as MediaPipe drops them.
    public func decode(regressors: UnsafeBufferPointer<Float>, logits: UnsafeBufferPointer<Float>) -> [RawDetection] {
        var out: [RawDetection] = []
        decode(regressors: regressors, logits: logits, into: &out)
        return out
    }

    /// The same into `out` (emptied first, its capacity kept: no allocation once it has grown).
    public func decode(regressors: UnsafeBufferPointer<Float>, logits: UnsafeBufferPointer<Float>,
                       into out: inout [RawDetection]) {
        decode(regressors: regressors, logits: logits, minScore: minScore, into: &out)
    }

    /// The same from a threshold of this call's own (a search that also wants candidates
    /// below the detector's threshold).
    package func decode(regressors: UnsafeBufferPointer<Float>, logits: UnsafeBufferPointer<Float>, minScore: Float,
                        into out: inout [RawDetection]) {
        out.removeAll(keepingCapacity: true)
        for (i, anchor) in anchors.enumerated() {
            let s = score(logits[i])
            guard s >= minScore else { continue }
            let r = regressors.baseAddress! + i * coordinateCount
            let xCenter = r[0] / xScale * anchor.width + anchor.xCenter
            let yCenter = r[1] / yScale * anchor.height + anchor.yCenter
            let w = r[2] / wScale * anchor.width
            let h = r[3] / hScale * anchor.height
            let yMin = yCenter - h / 2, xMin = xCenter - w / 2
            let yMax = yCenter + h / 2, xMax = xCenter + w / 2
            let box = NormalizedRect(xMin: xMin, yMin: yMin, width: xMax - xMin, height: yMax - yMin)
            guard box.width >= 0, box.height >= 0 else { continue }   // also false for NaN
            var keypoints = KeypointList(count: keypointCount)
            for k in 0..<keypointCount {
                let p = r + keypointOffset + 2 * k
                keypoints[k] = (p[0] / xScale * anchor.width + anchor.xCenter,
                                p[1] / yScale * anchor.height + anchor.yCenter)
            }
            out.append(RawDetection(score: s, box: box, keypoints: keypoints))
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Darwin
#endif
