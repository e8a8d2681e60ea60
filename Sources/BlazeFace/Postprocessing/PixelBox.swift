/// An axis-aligned box in pixels (or any unit but image fractions, which `NormalizedRect`
/// holds): what the trackers and the landmarker's region association compare.
package struct PixelBox: Sendable, Equatable {
    /// Top-left corner and size.
    package var xMin: Float, yMin: Float, width: Float, height: Float

    package init(xMin: Float, yMin: Float, width: Float, height: Float) {
        (self.xMin, self.yMin, self.width, self.height) = (xMin, yMin, width, height)
    }

    /// Intersection over union, in MediaPipe's `Rectangle_f` arithmetic: the same bits as
    /// `NormalizedRect.intersectionOverUnion` on the same numbers.
    package func intersectionOverUnion(_ other: PixelBox) -> Float {
        boxIntersectionOverUnion(xMin, yMin, width, height, other.xMin, other.yMin, other.width, other.height)
    }

    /// The area the two boxes share (0 when they do not overlap).
    package func intersectionArea(_ other: PixelBox) -> Float {
        let w = min(xMin + width, other.xMin + other.width) - max(xMin, other.xMin)
        let h = min(yMin + height, other.yMin + other.height) - max(yMin, other.yMin)
        return w > 0 && h > 0 ? w * h : 0
    }
}

/// Intersection over union of two boxes given by corner and size, in MediaPipe's `Rectangle_f`
/// arithmetic (float): one body for `NormalizedRect` and `PixelBox`.
@inline(__always)
func boxIntersectionOverUnion(_ xMin: Float, _ yMin: Float, _ width: Float, _ height: Float,
                              _ oxMin: Float, _ oyMin: Float, _ owidth: Float, _ oheight: Float) -> Float {
    let (ax1, ay1) = (xMin + width, yMin + height)
    let (bx1, by1) = (oxMin + owidth, oyMin + oheight)
    let aEmpty = xMin > ax1 || yMin > ay1, bEmpty = oxMin > bx1 || oyMin > by1
    if aEmpty || bEmpty || bx1 < xMin || ax1 < oxMin || by1 < yMin || ay1 < oyMin { return 0 }
    let ix0 = max(xMin, oxMin), iy0 = max(yMin, oyMin)
    let ix1 = min(ax1, bx1), iy1 = min(ay1, by1)
    let intersection = (ix1 - ix0) * (iy1 - iy0)
    let areaA = (ax1 - xMin) * (ay1 - yMin), areaB = (bx1 - oxMin) * (by1 - oyMin)
    let union = areaA + areaB - intersection
    return union > 0 ? intersection / union : 0
}
