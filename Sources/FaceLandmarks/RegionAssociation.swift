/// Merges the regions tracked from the previous frame with newly detected ones, as
/// AssociationNormRectCalculator does in the landmarker's video mode: each region is added in
/// turn (tracked first, then detected) and removes every region already kept whose overlap with
/// it (IoU of the unrotated rectangles) exceeds `minSimilarity`.
enum RegionAssociation {
    static func merge(tracked: [FaceRegion], detected: [FaceRegion], minSimilarity: Float) -> [FaceRegion] {
        var kept: [FaceRegion] = []
        for region in tracked + detected {
            kept.removeAll { iou($0, region) > minSimilarity }
            kept.append(region)
        }
        return kept
    }

    /// Intersection over union of two regions as axis-aligned rectangles (rotation ignored).
    static func iou(_ a: FaceRegion, _ b: FaceRegion) -> Float {
        let ax0 = a.xCenter - a.width / 2, ay0 = a.yCenter - a.height / 2
        let bx0 = b.xCenter - b.width / 2, by0 = b.yCenter - b.height / 2
        let ix = min(ax0 + a.width, bx0 + b.width) - max(ax0, bx0)
        let iy = min(ay0 + a.height, by0 + b.height) - max(ay0, by0)
        guard ix > 0, iy > 0 else { return 0 }
        let intersection = ix * iy
        let union = a.width * a.height + b.width * b.height - intersection
        return union > 0 ? intersection / union : 0
    }
}
