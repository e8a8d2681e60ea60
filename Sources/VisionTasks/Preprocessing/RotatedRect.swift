/// A rectangle in pixels, centred at (`centerX`, `centerY`) and turned by `rotation` radians:
/// MediaPipe's `RotatedRect`, the region an input tensor is cut from.
public struct RotatedRect: Sendable, Equatable {
    /// The centre, in pixels.
    public var centerX: Float, centerY: Float
    /// The side lengths in pixels, along the rect's own axes.
    public var width: Float, height: Float
    /// The rotation in radians, clockwise as displayed (image y points down).
    public var rotation: Float

    /// A rect from its centre and size in pixels, upright unless `rotation` is given.
    public init(centerX: Float, centerY: Float, width: Float, height: Float, rotation: Float = 0) {
        (self.centerX, self.centerY, self.width, self.height, self.rotation) = (centerX, centerY, width, height, rotation)
    }

    /// The whole image (image_to_tensor_utils.cc, `GetRoi` without a rect).
    public static func wholeImage(width: Int, height: Int) -> RotatedRect {
        RotatedRect(centerX: 0.5 * Float(width), centerY: 0.5 * Float(height),
                    width: Float(width), height: Float(height))
    }

    /// Grows the shorter side so the rect has the tensor's aspect ratio (`PadRoi` with
    /// keep_aspect_ratio): the letterbox. Float arithmetic in MediaPipe's order.
    public func paddedToAspect(tensorWidth: Int, tensorHeight: Int) -> RotatedRect {
        let tensorAspect = Float(tensorHeight) / Float(tensorWidth)
        let roiAspect = height / width
        var r = self
        if tensorAspect > roiAspect {
            r.height = width * tensorAspect
        } else {
            r.width = height / tensorAspect
        }
        return r
    }

    /// The four corners in OpenCV's `RotatedRect::points` order (bottom-left, top-left,
    /// top-right, bottom-right for rotation 0), computed in float as OpenCV does, as
    /// x0, y0, x1, y1, x2, y2, x3, y3.
    func corners() -> SIMD8<Float> {
        // MediaPipe: `roi.rotation * 180.f / M_PI`, a float product divided by the double pi.
        let degrees = Float(Double(rotation * 180) / Double.pi)
        let radians = Double(degrees) * Double.pi / 180
        let b = Float(cos(radians)) * 0.5, a = Float(sin(radians)) * 0.5
        let p0 = (x: centerX - a * height - b * width, y: centerY + b * height - a * width)
        let p1 = (x: centerX + a * height - b * width, y: centerY - b * height - a * width)
        return SIMD8(p0.x, p0.y, p1.x, p1.y, 2 * centerX - p0.x, 2 * centerY - p0.y, 2 * centerX - p1.x, 2 * centerY - p1.y)
    }

    /// The 4x4 row-major matrix that maps normalized tensor coordinates back to normalized
    /// image coordinates (`GetRotatedSubRectToRectTransformMatrix`, no flip).
    public func projectionMatrix(imageWidth: Int, imageHeight: Int) -> SIMD16<Float> {
        let a = width, b = height
        let c = cos(rotation), d = sin(rotation)
        let e = centerX, f = centerY
        let g = 1 / Float(imageWidth), h = 1 / Float(imageHeight)
        return SIMD16(
            a * c * g, -b * d * g, 0, (-0.5 * a * c + 0.5 * b * d + e) * g,
            a * d * h, b * c * h, 0, (-0.5 * b * c - 0.5 * a * d + f) * h,
            0, 0, a * g, 0,
            0, 0, 0, 1)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Darwin
#endif
