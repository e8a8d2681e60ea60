/// MediaPipe's NonMaxSuppressionCalculator with `algorithm: WEIGHTED` and
/// `overlap_type: INTERSECTION_OVER_UNION`, single class, no limit on the count.
public struct WeightedNonMaxSuppression: Sendable {
    /// IoU over which a detection merges into the best one (MediaPipe's min_suppression_threshold).
    public var minSuppressionThreshold: Float

    /// A suppressor merging detections that overlap by more than `minSuppressionThreshold`.
    public init(minSuppressionThreshold: Float) { self.minSuppressionThreshold = minSuppressionThreshold }

    /// Index lists reused from call to call, so that suppression allocates nothing once warm.
    public struct Scratch: Sendable {
        var order: [Int] = [], candidates: [Int] = [], rest: [Int] = []
        /// Empty lists; they grow on first use and keep their storage afterwards.
        public init() {}
    }

    /// Repeatedly takes the best remaining detection and every detection overlapping it by more
    /// than the threshold (itself included), and replaces them by their score-weighted mean box
    /// and keypoints, keeping the best one's score.
    public func callAsFunction(_ detections: [RawDetection]) -> [RawDetection] {
        var scratch = Scratch(), output: [RawDetection] = []
        callAsFunction(detections, scratch: &scratch, into: &output)
        return output
    }

    /// The same into `output` (emptied first), with reusable scratch space.
    public func callAsFunction(_ detections: [RawDetection], scratch: inout Scratch, into output: inout [RawDetection]) {
        output.removeAll(keepingCapacity: true)
        // Descending by score, ties in anchor order: an insertion sort, in place (Swift's sort
        // may allocate; the list is short).
        // Take the scratch lists out (leaving them uniquely referenced, so that emptying them
        // keeps their storage instead of copying it) and put them back at the end.
        var remaining: [Int] = [], candidates: [Int] = [], rest: [Int] = []
        swap(&remaining, &scratch.order); swap(&candidates, &scratch.candidates); swap(&rest, &scratch.rest)
        defer { swap(&remaining, &scratch.order); swap(&candidates, &scratch.candidates); swap(&rest, &scratch.rest) }
        remaining.removeAll(keepingCapacity: true)
        for i in detections.indices {
            var j = remaining.count
            remaining.append(i)
            while j > 0, detections[remaining[j - 1]].score < detections[i].score {
                remaining[j] = remaining[j - 1]
                j -= 1
            }
            remaining[j] = i
        }
        while let first = remaining.first {
            let best = detections[first]
            candidates.removeAll(keepingCapacity: true)
            rest.removeAll(keepingCapacity: true)
            for i in remaining {
                if detections[i].box.intersectionOverUnion(best.box) > minSuppressionThreshold { candidates.append(i) } else { rest.append(i) }
            }
            var merged = best
            if !candidates.isEmpty {
                var xMin: Float = 0, yMin: Float = 0, xMax: Float = 0, yMax: Float = 0, total: Float = 0
                var keypoints = KeypointList(count: best.keypoints.count)
                for c in candidates {
                    let d = detections[c], s = d.score
                    total += s
                    xMin += d.box.xMin * s
                    yMin += d.box.yMin * s
                    xMax += (d.box.xMin + d.box.width) * s
                    yMax += (d.box.yMin + d.box.height) * s
                    for k in keypoints.indices {
                        keypoints[k] = (keypoints[k].x + d.keypoints[k].x * s, keypoints[k].y + d.keypoints[k].y * s)
                    }
                }
                merged.box.xMin = xMin / total
                merged.box.yMin = yMin / total
                merged.box.width = xMax / total - merged.box.xMin
                merged.box.height = yMax / total - merged.box.yMin
                for k in keypoints.indices { keypoints[k] = (keypoints[k].x / total, keypoints[k].y / total) }
                merged.keypoints = keypoints
            }
            output.append(merged)
            // A box that does not even overlap itself (zero area) ends the loop, as in MediaPipe.
            if rest.count == remaining.count { break }
            swap(&remaining, &rest)
        }
    }
}

extension NormalizedRect {
    /// Intersection over union with another box, in MediaPipe's `Rectangle_f` arithmetic (float):
    /// what NMS suppresses by, and what the tracker and the CLI's comparison match by.
    public func intersectionOverUnion(_ other: NormalizedRect) -> Float {
        boxIntersectionOverUnion(xMin, yMin, width, height, other.xMin, other.yMin, other.width, other.height)
    }
}
