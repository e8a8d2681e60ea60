import BlazeFace

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

    /// Intersection over union of two regions as axis-aligned rectangles (rotation ignored):
    /// MediaPipe's `Rectangle_f` arithmetic (`PixelBox`: the regions are in pixels).
    static func iou(_ a: FaceRegion, _ b: FaceRegion) -> Float {
        func rect(_ r: FaceRegion) -> PixelBox {
            PixelBox(xMin: r.xCenter - r.width / 2, yMin: r.yCenter - r.height / 2, width: r.width, height: r.height)
        }
        return rect(a).intersectionOverUnion(rect(b))
    }
}
