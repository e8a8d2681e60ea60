/// A view of pixels in caller-owned memory, with row strides, in any `PixelFormat`: no copy.
/// The memory must stay valid and unchanged while the buffer is used (for the length of a
/// `detect` call); the initialisers check that every plane's rows fit in its bytes.
/// `@unchecked Sendable` so it can be handed to a detector on another thread: keeping the
/// memory alive and unchanged there is the caller's part.
public struct PixelBuffer: @unchecked Sendable {
    /// One plane: its first byte, bytes from one row to the next, and its readable size.
    public struct Plane: @unchecked Sendable {
        /// The plane's first byte.
        public let base: UnsafeRawPointer
        /// Bytes from the start of one row to the start of the next.
        public let rowStride: Int
        /// Bytes readable from `base`.
        public let byteCount: Int
    }

    /// The layout of the pixels: packed RGB, RGBA, BGRA or gray, or a YUV 4:2:0 format.
    public let format: PixelFormat
    /// Image size in pixels (the Y plane's for YUV).
    public let width: Int, height: Int
    /// Luma or packed pixels; for YUV, `chroma` (NV12/NV21) or `u` and `v` (I420) follow.
    public let plane0: Plane
    /// U (I420) or the interleaved chroma plane (NV12, NV21); nil for packed formats.
    public let plane1: Plane?
    /// V (I420); nil otherwise.
    public let plane2: Plane?

    /// A packed format (rgb, rgba, bgra, gray): `rowStride` bytes from row to row
    /// (default `width * bytesPerPixel`, no padding).
    public init(format: PixelFormat, width: Int, height: Int, bytes: UnsafeRawBufferPointer,
                rowStride: Int? = nil) throws(ImageError) {
        guard !format.isYUV else {
            throw .invalidPixelBuffer("\(format) has several planes: use init(yuv:...) or init(i420:...)")
        }
        try Self.checkSize(width, height)
        plane0 = try Self.plane(bytes, rowStride ?? width * format.bytesPerPixel, rowBytes: width * format.bytesPerPixel, rows: height, "pixels")
        (self.format, self.width, self.height, plane1, plane2) = (format, width, height, nil, nil)
    }

    /// I420 (YUV 4:2:0 planar): Y at full size, U and V at `(width + 1) / 2` x `(height + 1) / 2`.
    public init(i420 y: UnsafeRawBufferPointer, yStride: Int, u: UnsafeRawBufferPointer, uStride: Int,
                v: UnsafeRawBufferPointer, vStride: Int, width: Int, height: Int) throws(ImageError) {
        try Self.checkSize(width, height)
        let (cw, ch) = ((width + 1) / 2, (height + 1) / 2)
        plane0 = try Self.plane(y, yStride, rowBytes: width, rows: height, "Y plane")
        plane1 = try Self.plane(u, uStride, rowBytes: cw, rows: ch, "U plane")
        plane2 = try Self.plane(v, vStride, rowBytes: cw, rows: ch, "V plane")
        (format, self.width, self.height) = (.i420, width, height)
    }

    /// NV12 or NV21 (YUV 4:2:0 bi-planar): Y at full size, then `(height + 1) / 2` rows of
    /// `(width + 1) / 2` chroma pairs (U, V for NV12; V, U for NV21).
    public init(biPlanar format: PixelFormat, y: UnsafeRawBufferPointer, yStride: Int,
                chroma: UnsafeRawBufferPointer, chromaStride: Int, width: Int, height: Int) throws(ImageError) {
        guard format == .nv12 || format == .nv21 else {
            throw .invalidPixelBuffer("\(format) is not bi-planar (nv12 or nv21)")
        }
        try Self.checkSize(width, height)
        plane0 = try Self.plane(y, yStride, rowBytes: width, rows: height, "Y plane")
        plane1 = try Self.plane(chroma, chromaStride, rowBytes: 2 * ((width + 1) / 2), rows: (height + 1) / 2, "chroma plane")
        plane2 = nil
        (self.format, self.width, self.height) = (format, width, height)
    }

    /// Sides positive and small enough that no byte offset can overflow.
    private static func checkSize(_ width: Int, _ height: Int) throws(ImageError) {
        guard width > 0, height > 0, width <= 1 << 20, height <= 1 << 20 else {
            throw .invalidSize(width: width, height: height)
        }
    }

    /// A checked plane: a base address, a stride of at least one row, and enough bytes for
    /// `rows - 1` strides plus one row.
    private static func plane(_ bytes: UnsafeRawBufferPointer, _ stride: Int, rowBytes: Int, rows: Int,
                              _ name: String) throws(ImageError) -> Plane {
        guard let base = bytes.baseAddress else { throw .invalidPixelBuffer("\(name) has no memory") }
        guard stride >= rowBytes, stride <= 1 << 28 else {
            throw .invalidPixelBuffer("\(name) row stride \(stride) is below the row's \(rowBytes) bytes (or absurdly large)")
        }
        let needed = (rows - 1) * stride + rowBytes
        guard bytes.count >= needed else {
            throw .invalidPixelBuffer("\(name) has \(bytes.count) bytes, \(rows) rows of stride \(stride) need \(needed)")
        }
        return Plane(base: base, rowStride: stride, byteCount: bytes.count)
    }
}

extension RGBImage {
    /// A copy of the buffer's pixels as RGB (YUV through `YUVToRGB`): what pre-processing
    /// sees, for tests and for writing frames out. Detection does not need it: it samples
    /// the buffer directly.
    public init(_ buffer: PixelBuffer) {
        self = buffer.withSampler(CopyToRGB())
    }
}

/// Reads every pixel through a sampler into a new image.
private struct CopyToRGB: PixelSamplerVisitor {
    func visit<S: PixelSampler>(_ sampler: S) -> RGBImage { RGBImage(sampling: sampler) }
}

extension RGBImage {
    /// Every pixel `sampler` gives, as a new image of its size (for the package's own samplers,
    /// such as a buffer seen upright).
    package init(sampling sampler: some PixelSampler) {
        let (width, height) = (sampler.width, sampler.height)
        var pixels = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            for x in 0..<width {
                let v = sampler.rgb(x, y), i = 3 * (y * width + x)
                pixels[i] = UInt8(truncatingIfNeeded: v[0])
                pixels[i + 1] = UInt8(truncatingIfNeeded: v[1])
                pixels[i + 2] = UInt8(truncatingIfNeeded: v[2])
            }
        }
        self.init(unchecked: width, height, pixels)
    }
}
