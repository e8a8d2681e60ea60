import BlazeFace
import BlazeImage
import VisionTasks

// A still's edges searched mirrored (`FaceRedactorOptions.searchesMirroredEdges`): a face cut by
// the picture's edge (a group photo's last person, a crowd running off the frame) shows less
// than half of itself, and neither network finds a third of a face. Mirrored across the edge it
// meets its own reflection and, being about symmetric, is a whole face again.

/// Where padded column or row `i` of a side `n` long comes from: reflected about the edge (the
/// edge's own pixel first), not repeated; `i` is at most `n` outside it.
private func source(_ i: Int, _ n: Int) -> Int { i < 0 ? -i - 1 : i >= n ? 2 * n - i - 1 : i }

extension RGBImage {
    /// The picture with `margin` pixels added on each side, mirrored from inside it (the edge's
    /// own row or column first); `margin` is at most the shorter side.
    func mirrorPadded(by margin: Int) -> RGBImage {
        let m = max(0, min(margin, width, height))
        let (w, h) = (width + 2 * m, height + 2 * m)
        // The margins' columns, reflected; the row between them is copied whole.
        let margins = (0..<m).map { source($0 - m, width) * 3 } + (width..<(width + m)).map { source($0, width) * 3 }
        var out = [UInt8](repeating: 0, count: w * h * 3)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    let row = source(y - m, height) * width * 3, o = y * w * 3
                    for (k, x) in margins.enumerated() {
                        let at = o + (k < m ? k : k + width) * 3
                        (dst[at], dst[at + 1], dst[at + 2]) = (src[row + x], src[row + x + 1], src[row + x + 2])
                    }
                    UnsafeMutableRawPointer(dst.baseAddress! + o + m * 3)
                        .copyMemory(from: src.baseAddress! + row, byteCount: width * 3)
                }
            }
        }
        return RGBImage(unchecked: w, h, out)
    }
}

extension RGBImage {
    /// The part `part` (in the pixels of `pixels` padded by `margin` on each side, mirrored as
    /// `mirrorPadded` pads) of the padded picture, without padding the rest: a video frame's
    /// strip about an edge, or the square about a face across it. The same pixels as
    /// `mirrorPadded` gives there, read through the frame's own sampler (no RGB copy of the frame).
    static func mirrorPadded<P: SampledPixels>(_ pixels: P, margin: Int, part: PixelRect) -> RGBImage {
        pixels.withSampler(MirroredPart(margin: margin, part: part))
    }

    /// A rectangle of whole pixels: its top left and size.
    struct PixelRect: Equatable {
        var x: Int, y: Int, width: Int, height: Int

        init(x: Int, y: Int, width: Int, height: Int) { (self.x, self.y, self.width, self.height) = (x, y, width, height) }

        /// The whole pixels `region` (normalized to a `width` x `height` picture) covers, cut to the picture.
        init(covering region: NormalizedRect, width: Int, height: Int) {
            let (w, h) = (Float(width), Float(height))
            let x0 = max(0, min(width, Int((region.xMin * w).rounded(.down)))), y0 = max(0, min(height, Int((region.yMin * h).rounded(.down))))
            let x1 = max(x0, min(width, Int(((region.xMin + region.width) * w).rounded(.up))))
            let y1 = max(y0, min(height, Int(((region.yMin + region.height) * h).rounded(.up))))
            (x, y, self.width, self.height) = (x0, y0, x1 - x0, y1 - y0)
        }
    }
}

/// Builds `RGBImage.mirrorPadded(_:margin:part:)` with the pixels' own sampler.
private struct MirroredPart: PixelSamplerVisitor {
    let margin: Int, part: RGBImage.PixelRect

    func visit<S: PixelSampler>(_ sampler: S) -> RGBImage {
        let (w, h) = (sampler.width, sampler.height)
        let m = max(0, min(margin, w, h))
        let columns = (0..<part.width).map { source(part.x + $0 - m, w) }
        var out = [UInt8](repeating: 0, count: part.width * part.height * 3)
        guard w > 0, h > 0 else { return RGBImage(unchecked: part.width, part.height, out) }
        for row in 0..<part.height {
            let y = source(part.y + row - m, h), o = row * part.width * 3
            for (k, x) in columns.enumerated() {
                let v = sampler.rgb(x, y), i = o + 3 * k
                out[i] = UInt8(truncatingIfNeeded: v[0])
                out[i + 1] = UInt8(truncatingIfNeeded: v[1])
                out[i + 2] = UInt8(truncatingIfNeeded: v[2])
            }
        }
        return RGBImage(unchecked: part.width, part.height, out)
    }
}

extension RawDetection {
    /// This detection, found in `part` of a picture padded by `margin` pixels on each side
    /// (`RGBImage.mirrorPadded(_:margin:part:)`, or all of `mirrorPadded(by:)`), in the unpadded
    /// `width` x `height` picture's normalized coordinates (it may reach past them).
    func unpadded(fromPart part: RGBImage.PixelRect, margin: Int, width: Int, height: Int) -> RawDetection {
        let (pw, ph, px, py) = (Float(part.width), Float(part.height), Float(part.x), Float(part.y))
        let (w, h, m) = (Float(width), Float(height), Float(margin))
        var out = self
        out.box = NormalizedRect(xMin: (px + box.xMin * pw - m) / w, yMin: (py + box.yMin * ph - m) / h,
                                 width: box.width * pw / w, height: box.height * ph / h)
        for i in out.keypoints.indices {
            let p = out.keypoints[i]
            out.keypoints[i] = (x: (px + p.x * pw - m) / w, y: (py + p.y * ph - m) / h)
        }
        return out
    }

    /// Whether the box is cut by the picture's edge (normalized 0...1) with a quarter of its
    /// area or more inside: a face and its reflection make one box about the edge, half in.
    var isCutByEdge: Bool {
        let inside = NormalizedRect(xMin: 0, yMin: 0, width: 1, height: 1)
        let area = box.width * box.height
        guard area > 0, box.crossesEdge else { return false }
        return box.intersectionArea(inside) >= area / 4
    }
}

extension NormalizedRect {
    /// Whether the box reaches past the picture's edge (normalized 0...1).
    var crossesEdge: Bool { xMin < 0 || yMin < 0 || xMin + width > 1 || yMin + height > 1 }

    /// This box (normalized to a `width` x `height` picture) normalized to `part` of it.
    func within(_ part: RGBImage.PixelRect, width: Int, height: Int) -> NormalizedRect {
        let (w, h, pw, ph) = (Float(width), Float(height), Float(part.width), Float(part.height))
        return NormalizedRect(xMin: (xMin * w - Float(part.x)) / pw, yMin: (yMin * h - Float(part.y)) / ph,
                              width: self.width * w / pw, height: self.height * h / ph)
    }

    /// This box of a `width` x `height` picture in the picture padded by `margin` pixels on
    /// each side (the inverse of `RawDetection.unpadded`).
    func padded(margin: Int, width: Int, height: Int) -> NormalizedRect {
        let (pw, ph) = (Float(width + 2 * margin), Float(height + 2 * margin))
        let (w, h, m) = (Float(width), Float(height), Float(margin))
        return NormalizedRect(xMin: (xMin * w + m) / pw, yMin: (yMin * h + m) / ph, width: self.width * w / pw, height: self.height * h / ph)
    }
}

extension WideSearch.Region {
    /// Whether this region of a picture padded by `margin` pixels on each side (`width` x
    /// `height` padded) reaches into the padding: the others see only what the upright search saw.
    func reachesMargin(_ margin: Int, width: Int, height: Int) -> Bool {
        let (mx, my) = (Float(margin) / Float(width), Float(margin) / Float(height))
        return region.xMin < mx || region.yMin < my || region.xMin + region.width > 1 - mx || region.yMin + region.height > 1 - my
    }
}

extension WideSearch {
    /// The regions of a `width` x `height` picture, padded by `margin` pixels on each side
    /// (`mirrorPadded`), that a video frame's mirrored edges are searched in: a strip twice the
    /// margin wide about each edge, at `scale`, cut along its length into pieces of at most
    /// `maxInputPixels` input pixels that overlap by the strip's width (a face across the edge
    /// lies whole in one). Regions are normalized to the padded picture.
    func edgeRegions(width: Int, height: Int, margin: Int, scale: Float) -> [Region] {
        let (pw, ph) = (Float(width + 2 * margin), Float(height + 2 * margin))
        let across = Float(2 * margin)
        guard margin > 0, scale > 0 else { return [] }
        // Pieces of a strip `length` long: (start, length) along it, in padded pixels.
        func pieces(_ length: Float) -> [(Float, Float)] {
            let longest = max(1.5 * across, Float(maxInputPixels) / (across * scale * scale))
            guard length > longest else { return [(0, length)] }
            let count = Int(((length - across) / (longest - across)).rounded(.up))
            let step = (length - longest) / Float(count - 1)
            return (0..<count).map { (Float($0) * step, longest) }
        }
        var out: [Region] = []
        for (start, length) in pieces(ph) {
            for x in [0, pw - across] {
                out.append(Region(region: NormalizedRect(xMin: x / pw, yMin: start / ph, width: across / pw, height: length / ph), scale: scale))
            }
        }
        for (start, length) in pieces(pw) {
            for y in [0, ph - across] {
                out.append(Region(region: NormalizedRect(xMin: start / pw, yMin: y / ph, width: length / pw, height: across / ph), scale: scale))
            }
        }
        return out
    }
}
