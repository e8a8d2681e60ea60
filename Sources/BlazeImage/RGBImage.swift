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
