/// Simple raster drawing for annotations. Coordinates are continuous: pixel (x, y)
/// covers [x, x+1) x [y, y+1). Everything is clipped to the image; out-of-range,
/// NaN or infinite input draws nothing where it lands outside and never traps.
extension RGBImage {
    /// Outlines the rectangle of pixels [x, x+width) x [y, y+height) with a border
    /// `thickness` pixels wide, drawn inside it. Non-positive sizes draw nothing.
    public mutating func strokeRectangle(x: Int, y: Int, width: Int, height: Int,
                                         color: (r: UInt8, g: UInt8, b: UInt8), thickness: Int) {
        guard width > 0, height > 0, thickness > 0 else { return }
        let t = min(thickness, width, height)
        let right = x.addingClamped(width), bottom = y.addingClamped(height)
        fillRectangle(x0: x, y0: y, x1: right, y1: y.addingClamped(t), color: color)
        fillRectangle(x0: x, y0: bottom.addingClamped(-t), x1: right, y1: bottom, color: color)
        fillRectangle(x0: x, y0: y, x1: x.addingClamped(t), y1: bottom, color: color)
        fillRectangle(x0: right.addingClamped(-t), y0: y, x1: right, y1: bottom, color: color)
    }

    /// Fills the pixels whose centres lie within `radius` of the centre; the pixel
    /// containing the centre is always filled, so tiny circles stay visible.
    public mutating func fillCircle(centerX: Double, centerY: Double, radius: Double,
                                    color: (r: UInt8, g: UInt8, b: UInt8)) {
        guard centerX.isFinite, centerY.isFinite, radius.isFinite, radius >= 0 else { return }
        let top = (centerY - radius - 0.5).rounded(.up), bottom = (centerY + radius - 0.5).rounded(.down)
        for row in clampedRange(top, bottom, count: height) {
            let dy = Double(row) + 0.5 - centerY
            let halfSpan = (radius * radius - dy * dy).squareRoot()
            let left = (centerX - halfSpan - 0.5).rounded(.up), right = (centerX + halfSpan - 0.5).rounded(.down)
            let columns = clampedRange(left, right, count: width)
            if !columns.isEmpty {
                fillRectangle(x0: columns.lowerBound, y0: row, x1: columns.upperBound, y1: row + 1, color: color)
            }
        }
        let x = centerX.rounded(.down), y = centerY.rounded(.down)
        if x >= 0, x < Double(width), y >= 0, y < Double(height) {
            fillRectangle(x0: Int(x), y0: Int(y), x1: Int(x) + 1, y1: Int(y) + 1, color: color)
        }
    }

    /// Draws a straight line by stamping `thickness` x `thickness` squares along it
    /// (each point's pixel for thickness 1). Lines with NaN or infinite ends are skipped.
    public mutating func drawLine(x0: Double, y0: Double, x1: Double, y1: Double,
                                  color: (r: UInt8, g: UInt8, b: UInt8), thickness: Int) {
        guard thickness > 0 else { return }
        let t = min(thickness, width + height)  // a thicker stamp covers no more of the image
        let margin = Double(t)
        guard let (ax, ay, bx, by) = clipSegment(
            x0, y0, x1, y1, minX: -margin, minY: -margin,
            maxX: Double(width) + margin, maxY: Double(height) + margin)
        else { return }
        let steps = Int(max(abs(bx - ax), abs(by - ay)).rounded(.up))  // at most ~2(w + h + 2t)
        let offset = 0.5 - Double(t) / 2
        for i in 0...steps {
            let f = steps == 0 ? 0 : Double(i) / Double(steps)
            let left = Int((ax + (bx - ax) * f + offset).rounded(.down))
            let top = Int((ay + (by - ay) * f + offset).rounded(.down))
            fillRectangle(x0: left, y0: top, x1: left + t, y1: top + t, color: color)
        }
    }

    /// Fills [x0, x1) x [y0, y1) clipped to the image; also a no-op when `pixels`
    /// no longer holds `width * height * 3` bytes.
    mutating func fillRectangle(x0: Int, y0: Int, x1: Int, y1: Int, color: (r: UInt8, g: UInt8, b: UInt8)) {
        let left = max(x0, 0), right = min(x1, width)
        let top = max(y0, 0), bottom = min(y1, height)
        guard left < right, top < bottom, pixels.count == width * height * 3 else { return }
        let rowBytes = width * 3
        pixels.withUnsafeMutableBufferPointer { p in
            for y in top..<bottom {
                for i in stride(from: y * rowBytes + left * 3, to: y * rowBytes + right * 3, by: 3) {
                    p[i] = color.r
                    p[i + 1] = color.g
                    p[i + 2] = color.b
                }
            }
        }
    }
}

/// The integers in [low, high] that are also in 0..<count, as a half-open range
/// (empty if none). Works for any finite or infinite bounds; NaN gives empty.
func clampedRange(_ low: Double, _ high: Double, count: Int) -> Range<Int> {
    let lower = max(low, 0), upper = min(high + 1, Double(count))
    guard lower < upper else { return 0..<0 }
    return Int(lower)..<Int(upper)
}

/// Liang-Barsky clipping of a segment to a rectangle; nil if it misses it or
/// a coordinate (or a difference of them) is not finite.
func clipSegment(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double,
                 minX: Double, minY: Double, maxX: Double, maxY: Double) -> (Double, Double, Double, Double)? {
    let dx = x1 - x0, dy = y1 - y0
    guard dx.isFinite, dy.isFinite else { return nil }  // also catches NaN and infinite ends
    var start = 0.0, end = 1.0
    for (p, q) in [(-dx, x0 - minX), (dx, maxX - x0), (-dy, y0 - minY), (dy, maxY - y0)] {
        if p == 0 {
            if q < 0 { return nil }
        } else if p < 0 {
            start = max(start, q / p)
        } else {
            end = min(end, q / p)
        }
    }
    guard start <= end else { return nil }
    // Clamp away rounding error so the ends convert to Int safely.
    func x(_ f: Double) -> Double { min(max(x0 + f * dx, minX), maxX) }
    func y(_ f: Double) -> Double { min(max(y0 + f * dy, minY), maxY) }
    return (x(start), y(start), x(end), y(end))
}

extension Int {
    /// `self + other`, saturating at `Int.min` / `Int.max` instead of trapping.
    func addingClamped(_ other: Int) -> Int {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }
}
