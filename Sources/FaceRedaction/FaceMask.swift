import BlazeFace
import BlazeImage

/// How faces are hidden: the mask's filling, its shape and its size (deface's options).
public struct RedactionOptions: Sendable, Equatable {
    /// What fills a face's mask.
    public enum Mode: String, Sendable, CaseIterable {
        /// A box blur run three times (close to a Gaussian) of radius a quarter of the mask's
        /// shorter side: no feature of the face survives it.
        case blur
        /// Blocks of an eighth of the mask's shorter side (at least 2 pixels), each its mean colour.
        case pixelate
        /// Black.
        case solid
    }

    /// The filling (default blur).
    public var mode: Mode
    /// Whether the mask is the ellipse inside the box (default) or the whole box.
    public var ellipse: Bool
    /// The mask's size over the face box's, about the same centre (default 1.3, as deface's).
    public var maskScale: Float

    /// Blurred ellipses 1.3 times the face box, by default.
    public init(mode: Mode = .blur, ellipse: Bool = true, maskScale: Float = 1.3) {
        (self.mode, self.ellipse, self.maskScale) = (mode, ellipse, maskScale)
    }

    func validated() throws(DetectorError) -> RedactionOptions {
        guard maskScale.isFinite, maskScale >= 1, maskScale <= 4 else {
            throw .invalidOption(name: "maskScale", value: "\(maskScale)", allowed: "in 1...4")
        }
        return self
    }
}

/// Masks regions of an image in place.
public enum FaceMask {
    /// Masks each of `boxes` (normalized to `image`), scaled by `options.maskScale` about its
    /// centre and clipped to the image, as `options` say.
    public static func apply(to image: inout RGBImage, boxes: [NormalizedRect], options: RedactionOptions) {
        for box in boxes {
            let (w, h) = (Float(image.width), Float(image.height))
            let cx = (box.xMin + box.width / 2) * w, cy = (box.yMin + box.height / 2) * h
            let mw = box.width * w * options.maskScale, mh = box.height * h * options.maskScale
            guard cx.isFinite, cy.isFinite, mw.isFinite, mh.isFinite, mw > 0, mh > 0 else { continue }
            mask(&image, cx: cx, cy: cy, width: mw, height: mh, options: options)
        }
    }

    private static func mask(_ image: inout RGBImage, cx: Float, cy: Float, width mw: Float, height mh: Float,
                             options: RedactionOptions) {
        let x0 = max(0, Int((cx - mw / 2).rounded(.down))), x1 = min(image.width, Int((cx + mw / 2).rounded(.up)))
        let y0 = max(0, Int((cy - mh / 2).rounded(.down))), y1 = min(image.height, Int((cy + mh / 2).rounded(.up)))
        guard x0 < x1, y0 < y1 else { return }
        let side = max(1, Int(min(mw, mh)))
        let filled = filling(image, x0: x0, y0: y0, x1: x1, y1: y1, side: side, mode: options.mode)
        let (rx, ry) = (mw / 2, mh / 2)
        image.pixels.withUnsafeMutableBufferPointer { dst in
            for y in y0..<y1 {
                for x in x0..<x1 {
                    if options.ellipse {
                        let dx = (Float(x) + 0.5 - cx) / rx, dy = (Float(y) + 0.5 - cy) / ry
                        guard dx * dx + dy * dy <= 1 else { continue }
                    }
                    let d = 3 * (y * image.width + x), s = 3 * ((y - y0) * (x1 - x0) + (x - x0))
                    dst[d] = filled[s]; dst[d + 1] = filled[s + 1]; dst[d + 2] = filled[s + 2]
                }
            }
        }
    }

    /// The mask's filling over the rectangle x0..<x1, y0..<y1 (row-major RGB).
    private static func filling(_ image: RGBImage, x0: Int, y0: Int, x1: Int, y1: Int, side: Int,
                                mode: RedactionOptions.Mode) -> [UInt8] {
        let (w, h) = (x1 - x0, y1 - y0)
        switch mode {
        case .solid:
            return [UInt8](repeating: 0, count: w * h * 3)
        case .pixelate:
            let block = max(2, side / 8)
            var out = [UInt8](repeating: 0, count: w * h * 3)
            for by in stride(from: 0, to: h, by: block) {
                for bx in stride(from: 0, to: w, by: block) {
                    var sum = SIMD3<Int>(), n = 0
                    for y in by..<min(by + block, h) {
                        for x in bx..<min(bx + block, w) {
                            let i = 3 * ((y0 + y) * image.width + x0 + x)
                            sum &+= SIMD3(Int(image.pixels[i]), Int(image.pixels[i + 1]), Int(image.pixels[i + 2]))
                            n += 1
                        }
                    }
                    let mean = sum / n
                    for y in by..<min(by + block, h) {
                        for x in bx..<min(bx + block, w) {
                            let o = 3 * (y * w + x)
                            (out[o], out[o + 1], out[o + 2]) = (UInt8(mean.x), UInt8(mean.y), UInt8(mean.z))
                        }
                    }
                }
            }
            return out
        case .blur:
            // Separable box blurs, three passes each way, edges clamped to the rectangle.
            let radius = max(1, side / 4)
            var plane = [Float](repeating: 0, count: w * h * 3)
            for y in 0..<h {
                for x in 0..<w {
                    let i = 3 * ((y0 + y) * image.width + x0 + x), o = 3 * (y * w + x)
                    plane[o] = Float(image.pixels[i]); plane[o + 1] = Float(image.pixels[i + 1]); plane[o + 2] = Float(image.pixels[i + 2])
                }
            }
            for _ in 0..<3 {
                boxBlur(&plane, count: h, length: w, stride: 3, step: 3 * w, radius: radius)   // along rows
                boxBlur(&plane, count: w, length: h, stride: 3 * w, step: 3, radius: radius)   // along columns
            }
            return plane.map { UInt8(min(max($0.rounded(), 0), 255)) }
        }
    }

    /// A running-mean blur of `count` lines of `length` pixels (`stride` floats apart within a
    /// line, lines `step` apart), each channel on its own, the line's ends repeated past them.
    private static func boxBlur(_ plane: inout [Float], count: Int, length: Int, stride: Int, step: Int, radius: Int) {
        var line = [Float](repeating: 0, count: length)
        let window = Float(2 * radius + 1)
        for l in 0..<count {
            for c in 0..<3 {
                let base = l * step + c
                for i in 0..<length { line[i] = plane[base + i * stride] }
                var sum: Float = 0
                for k in -radius...radius { sum += line[min(max(k, 0), length - 1)] }
                for i in 0..<length {
                    plane[base + i * stride] = sum / window
                    sum += line[min(i + radius + 1, length - 1)] - line[max(i - radius, 0)]
                }
            }
        }
    }
}
