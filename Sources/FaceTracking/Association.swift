/// Pairs tracks with detections, greedily by cost: every gated (track, detection) pair is sorted
/// by cost, and pairs are taken lowest first while both are free. With the handful of faces a
/// frame holds, this gives the Hungarian assignment's answer in all but contrived ties, in a
/// few lines and O(n log n).
enum Association {
    /// Cost of continuing `track` (predicted) with `detection`: (1 - IoU) plus `keypointWeight`
    /// times the mean keypoint distance in face widths; nil when gated out (no overlap and the
    /// keypoints farther than `maxKeypointDistance`).
    static func cost(_ predicted: TrackedBox, _ detection: TrackedBox, options: FaceTrackingOptions) -> Float? {
        let iou = predicted.iou(detection)
        let distance = predicted.keypointDistance(detection)
        guard iou > 0 || distance <= options.maxKeypointDistance else { return nil }
        guard distance <= 2 * options.maxKeypointDistance else { return nil }
        return (1 - iou) + options.keypointWeight * distance
    }

    /// (track index, detection index) pairs.
    static func greedy(tracks: [TrackedBox], detections: [TrackedBox], options: FaceTrackingOptions) -> [(Int, Int)] {
        var candidates: [(cost: Float, track: Int, detection: Int)] = []
        for (t, track) in tracks.enumerated() {
            for (d, detection) in detections.enumerated() {
                if let c = cost(track, detection, options: options) { candidates.append((c, t, d)) }
            }
        }
        candidates.sort { ($0.cost, $0.track, $0.detection) < ($1.cost, $1.track, $1.detection) }
        var trackTaken = [Bool](repeating: false, count: tracks.count)
        var detectionTaken = [Bool](repeating: false, count: detections.count)
        var pairs: [(Int, Int)] = []
        for c in candidates where !trackTaken[c.track] && !detectionTaken[c.detection] {
            trackTaken[c.track] = true
            detectionTaken[c.detection] = true
            pairs.append((c.track, c.detection))
        }
        return pairs
    }
}
