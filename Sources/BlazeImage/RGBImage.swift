/// An 8-bit RGB image, rows top to bottom, pixels interleaved R,G,B, no row padding.
public struct RGBImage: Sendable, Equatable {
    /// The width in pixels, at least 1.
    public let width: Int
    /// The height in pixels, at least 1.
    public let height: Int
    /// `width * height * 3` bytes; code that changes its count makes drawing a no-op
    /// and encoding fail, rather than trap.
    public var pixels: [UInt8]

    /// Wraps existing pixels; throws if a side is not positive or the count is not `width * height * 3`.
    public init(width: Int, height: Int, pixels: [UInt8]) throws(ImageError) {
        let count = try Self.byteCount(width: width, height: height)
        guard pixels.count == count else {
            throw .pixelCountMismatch(expected: count, actual: pixels.count)
        }
        self.init(unchecked: width, height, pixels)
    }

    /// An image of one colour (black by default).
    public init(width: Int, height: Int, fill: (r: UInt8, g: UInt8, b: UInt8) = (0, 0, 0)) throws(ImageError) {
        let count = try Self.byteCount(width: width, height: height)
        var pixels = [UInt8](repeating: fill.r, count: count)
        if fill.g != fill.r || fill.b != fill.r {
            for i in stride(from: 0, to: count, by: 3) {
                pixels[i + 1] = fill.g
                pixels[i + 2] = fill.b
            }
        }
        self.init(unchecked: width, height, pixels)
    }

    /// For callers that have already validated the sizes (the decoder).
    package init(unchecked width: Int, _ height: Int, _ pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// `width * height * 3`, or `.invalidSize` if a side is not positive or the product overflows.
    package static func byteCount(width: Int, height: Int) throws(ImageError) -> Int {
        guard width > 0, height > 0 else { throw .invalidSize(width: width, height: height) }
        let (area, overflow1) = width.multipliedReportingOverflow(by: height)
        let (count, overflow2) = area.multipliedReportingOverflow(by: 3)
        guard !overflow1, !overflow2 else { throw .invalidSize(width: width, height: height) }
        return count
    }

    /// The pixel at column `x`, row `y` (0-based from the top left). Only debug builds
    /// check that the coordinates are inside the image.
    public subscript(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8) {
        get {
            assert(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)x\(height)")
            let i = (y * width + x) * 3
            return (pixels[i], pixels[i + 1], pixels[i + 2])
        }
        set {
            assert(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)x\(height)")
            let i = (y * width + x) * 3
            pixels[i] = newValue.r
            pixels[i + 1] = newValue.g
            pixels[i + 2] = newValue.b
        }
    }
}

/// Size limits a decoder checks against the PNG header before allocating anything.
public struct ImageLimits: Sendable, Equatable {
    /// The widest image accepted, in pixels.
    public var maxWidth: Int
    /// The tallest image accepted, in pixels.
    public var maxHeight: Int
    /// The most pixels (width times height) accepted.
    public var maxPixels: Int

    /// Limits on width, height and pixel count.
    public init(maxWidth: Int, maxHeight: Int, maxPixels: Int) {
        self.maxWidth = maxWidth
        self.maxHeight = maxHeight
        self.maxPixels = maxPixels
    }

    /// 16384 x 16384 and 100 million pixels (300 MB of RGB).
    public static let `default` = ImageLimits(maxWidth: 16384, maxHeight: 16384, maxPixels: 100_000_000)
}

extension RGBImage {
    /// The picture as a viewer shows it for EXIF orientation `value` (1...8: turned and/or
    /// mirrored, 5 to 8 swapping width and height; Pillow's `ImageOps.exif_transpose`); any other
    /// value gives it as it is. The one kernel behind BlazeImageIO's `applying(_:)` and the
    /// redactor's turned searches of a still.
    package func reoriented(exif value: Int) -> RGBImage {
        let (w, h) = (width, height)
        let (ow, oh) = value >= 5 ? (h, w) : (w, h)
        guard (2...8).contains(value), pixels.count == w * h * 3 else { return self }
        var out = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<oh {
                    for x in 0..<ow {
                        // The source pixel that lands on (x, y).
                        let (sx, sy): (Int, Int)
                        switch value {
                        case 2: (sx, sy) = (w - 1 - x, y)               // mirrored
                        case 3: (sx, sy) = (w - 1 - x, h - 1 - y)       // turned a half
                        case 4: (sx, sy) = (x, h - 1 - y)               // flipped vertically
                        case 5: (sx, sy) = (y, x)                       // transposed
                        case 6: (sx, sy) = (y, h - 1 - x)               // turned a quarter clockwise
                        case 7: (sx, sy) = (w - 1 - y, h - 1 - x)       // transversed
                        default: (sx, sy) = (w - 1 - y, x)              // 8: a quarter counter-clockwise
                        }
                        let s = 3 * (sy * w + sx), d = 3 * (y * ow + x)
                        dst[d] = src[s]; dst[d + 1] = src[s + 1]; dst[d + 2] = src[s + 2]
                    }
                }
            }
        }
        return RGBImage(unchecked: ow, oh, out)
    }
}
