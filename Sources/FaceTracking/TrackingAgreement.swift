import BlazeFace

/// How far the faces of one tracking run agree with a reference run's over the same frames:
/// what `track --compare` reports of a run that skips detection (`every` K) against one that
/// detects on every frame. Faces are matched frame by frame, each reference face to the
/// unmatched face overlapping it most, at an IoU of at least 0.5.
///
/// ```swift
/// let agreement = TrackingAgreement(reference: everyFrame, other: skipping, widths: widths, heights: heights)
/// print(agreement.recall, agreement.meanKeypointError)
/// ```
public struct TrackingAgreement: Sendable, Equatable {
    /// The reference run's faces, and how many of them the other run matches.
    public var referenceFaces = 0, matchedFaces = 0
    /// The other run's faces that match none.
    public var extraFaces = 0
    /// The matched faces' mean IoU.
    public var meanIoU: Double = 0
    /// The matched faces' keypoints' mean and largest distance, in pixels.
    public var meanKeypointError: Double = 0, maxKeypointError: Double = 0
    /// The share of the reference faces matched (0 with none).
    public var recall: Double { Double(matchedFaces) / Double(max(referenceFaces, 1)) }

    /// Compares `other` with `reference`, frame for frame (pictures of `widths[i]` x `heights[i]`).
    public init(reference: [TrackingFrame], other: [TrackingFrame], widths: [Int], heights: [Int]) {
        var iouSum: Double = 0, keypointSum: Double = 0
        for i in reference.indices where i < other.count && i < widths.count && i < heights.count {
            let a = reference[i].faces.map(\.detection), b = other[i].faces.map(\.detection)
            referenceFaces += a.count
            var used = Set<Int>()
            for d in a {
                guard let (j, iou) = Self.bestMatch(d, in: b, excluding: used), iou >= 0.5 else { continue }
                used.insert(j)
                matchedFaces += 1
                iouSum += Double(iou)
                for (p, q) in zip(d.keypointList, b[j].keypointList) {
                    let dx = Double(p.x - q.x) * Double(widths[i]), dy = Double(p.y - q.y) * Double(heights[i])
                    let distance = (dx * dx + dy * dy).squareRoot()
                    keypointSum += distance
                    maxKeypointError = max(maxKeypointError, distance)
                }
            }
            extraFaces += b.count - used.count
        }
        meanIoU = iouSum / Double(max(matchedFaces, 1))
        meanKeypointError = keypointSum / Double(max(matchedFaces * 6, 1))
    }

    /// The face of `candidates` (not in `used`) overlapping `d` most, with the IoU.
    private static func bestMatch(_ d: Detection, in candidates: [Detection], excluding used: Set<Int>) -> (Int, Float)? {
        var best: (Int, Float)?
        for j in candidates.indices where !used.contains(j) {
            let v = d.relativeBoundingBox.intersectionOverUnion(candidates[j].relativeBoundingBox)
            if best == nil || v > best!.1 { best = (j, v) }
        }
        return best
    }
}
