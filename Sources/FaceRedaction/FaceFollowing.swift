import BlazeFace
import BlazeImage

/// Follows a face from one frame to the next or the one before by its look, not by a detector:
/// the place in the other frame whose luma best matches the face's patch (the box grown by a
/// quarter, to take in the head's outline). What `LookBehind` falls back on where the detector
/// no longer finds a face found late in the frames before it (a 10-pixel face walking towards a
/// dash camera is found only once it is 15 pixels tall; before, its mask was a guess that stayed
/// where it was found while the face moved away from it), or a confirmed face in the frames
/// after it lost it.
///
/// A match must be close (a mean difference of at most `maxDifference` levels) and the patch
/// must have texture (a mean deviation of at least `minTexture` levels: a flat patch matches
/// anywhere); the search reaches half the box's larger side each way, the most a face moves
/// between two frames in practice.
enum FaceFollowing {
    /// Samples a side of the patch at most; a larger box is sampled sparser.
    static let samples = 24
    /// The largest mean absolute luma difference of a match (0...255).
    static let maxDifference: Float = 10
    /// The least mean absolute deviation of the patch's luma from its mean (0...255).
    static let minTexture: Float = 4

    /// Where the face in `box` of `source` lies in `target` (a neighbouring frame of the same
    /// size), or nil when no place there looks like it.
    static func follow(_ box: NormalizedRect, from source: VideoFrame, into target: VideoFrame) -> NormalizedRect? {
        guard source.width == target.width, source.height == target.height else { return nil }
        let (w, h) = (source.width, source.height)
        let patch = box.scaled(by: 1.25)
        let (x0, y0) = (patch.xMin * Float(w), patch.yMin * Float(h))
        let (pw, ph) = (patch.width * Float(w), patch.height * Float(h))
        guard pw >= 4, ph >= 4, pw.isFinite, ph.isFinite, x0.isFinite, y0.isFinite else { return nil }
        let n = min(samples, Int(max(pw, ph)))
        let step = max(pw, ph) / Float(n)
        let (nx, ny) = (max(2, Int(pw / step)), max(2, Int(ph / step)))
        let source = Luma(source), target = Luma(target)

        // The patch's samples (those inside the picture), and its texture.
        var template: [(x: Int, y: Int, value: Float)] = []
        template.reserveCapacity(nx * ny)
        for j in 0..<ny {
            for i in 0..<nx {
                let (x, y) = (Int(x0 + (Float(i) + 0.5) * step), Int(y0 + (Float(j) + 0.5) * step))
                guard x >= 0, y >= 0, x < w, y < h else { continue }
                template.append((x, y, source[x, y]))
            }
        }
        guard template.count * 2 >= nx * ny else { return nil }   // mostly off the picture
        let mean = template.reduce(0) { $0 + $1.value } / Float(template.count)
        guard template.reduce(0, { $0 + abs($1.value - mean) }) / Float(template.count) >= minTexture else { return nil }

        /// The mean difference with the patch shifted by (dx, dy) pixels; infinity when it leaves the picture.
        func difference(_ dx: Int, _ dy: Int, worst: Float) -> Float {
            var sum: Float = 0
            let limit = worst * Float(template.count)
            for t in template {
                let (x, y) = (t.x + dx, t.y + dy)
                guard x >= 0, y >= 0, x < w, y < h else { return .infinity }
                sum += abs(target[x, y] - t.value)
                if sum > limit { return .infinity }
            }
            return sum / Float(template.count)
        }
        // Coarse, in steps of a sample, then to the pixel about the best.
        let reach = Int((max(pw, ph) / 1.25 / 2).rounded(.up)) + 1
        let coarse = max(1, Int(step))
        var best = (dx: 0, dy: 0, d: difference(0, 0, worst: .infinity))
        for dy in stride(from: -reach, through: reach, by: coarse) {
            for dx in stride(from: -reach, through: reach, by: coarse) where dx != 0 || dy != 0 {
                let d = difference(dx, dy, worst: best.d)
                if d < best.d { best = (dx, dy, d) }
            }
        }
        if coarse > 1 {
            let (cx, cy) = (best.dx, best.dy)
            for dy in (cy - coarse + 1)...(cy + coarse - 1) {
                for dx in (cx - coarse + 1)...(cx + coarse - 1) where dx != cx || dy != cy {
                    let d = difference(dx, dy, worst: best.d)
                    if d < best.d { best = (dx, dy, d) }
                }
            }
        }
        guard best.d <= maxDifference else { return nil }
        return NormalizedRect(xMin: box.xMin + Float(best.dx) / Float(w), yMin: box.yMin + Float(best.dy) / Float(h),
                              width: box.width, height: box.height)
    }

    /// A frame's luma, 0...255, by pixel: the Y plane of a YUV or gray frame, or computed from RGB.
    private struct Luma {
        let bytes: [UInt8], width: Int, rgb: Bool
        init(_ frame: VideoFrame) { (bytes, width, rgb) = (frame.bytes, frame.width, frame.format == .rgb) }
        subscript(x: Int, y: Int) -> Float {
            guard rgb else { return Float(bytes[y * width + x]) }
            let i = 3 * (y * width + x)
            return 0.299 * Float(bytes[i]) + 0.587 * Float(bytes[i + 1]) + 0.114 * Float(bytes[i + 2])
        }
    }
}
