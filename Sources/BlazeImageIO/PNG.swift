@_exported import BlazeImage
import CPNGSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// PNG decoding and encoding through libpng, to and from 8-bit RGB.
public enum PNG {
    /// Decodes any PNG (1-16 bit gray, gray+alpha, RGB, RGBA, palette, interlaced or not)
    /// to 8-bit RGB the way MediaPipe sees it: samples as stored (no gamma or colour
    /// profile), alpha and tRNS dropped without compositing, gray replicated to R=G=B,
    /// 16-bit scaled with rounding. The header's size is checked against `limits` first.
    public static func decode(_ bytes: [UInt8], limits: ImageLimits = .default) throws(ImageError) -> RGBImage {
        let (w, h, pixels) = try decodePixels(bytes, limits: limits, channels: 3)
        return RGBImage(unchecked: w, h, pixels)
    }

    /// The header checked against `limits`, then the pixels as 8-bit RGB (3 `channels`) or
    /// RGBA (4: `bpng_decode_rgba8`), row after row.
    private static func decodePixels(_ bytes: [UInt8], limits: ImageLimits, channels: Int) throws(ImageError) -> (Int, Int, [UInt8]) {
        let cLimits = BPNGLimits(
            max_width: UInt32(clamping: limits.maxWidth),
            max_height: UInt32(clamping: limits.maxHeight),
            max_pixels: UInt64(clamping: limits.maxPixels))
        var message = [CChar](repeating: 0, count: 256)
        var width: UInt32 = 0
        var height: UInt32 = 0
        let headerStatus = bytes.withUnsafeBufferPointer { data in
            message.withUnsafeMutableBufferPointer { text in
                bpng_read_header(data.baseAddress, data.count, cLimits, &width, &height,
                                 text.baseAddress, text.count)
            }
        }
        let (w, h) = (Int(width), Int(height))
        if let error = decodeError(headerStatus, message, width: w, height: h, limits: limits) { throw error }

        let count = try RGBImage.byteCount(width: w, height: h) / 3 * channels
        var status = BPNG_OK
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initializedCount in
            status = bytes.withUnsafeBufferPointer { data in
                message.withUnsafeMutableBufferPointer { text in
                    channels == 4
                        ? bpng_decode_rgba8(data.baseAddress, data.count, cLimits, buffer.baseAddress, count, text.baseAddress, text.count)
                        : bpng_decode_rgb8(data.baseAddress, data.count, cLimits, buffer.baseAddress, count, text.baseAddress, text.count)
                }
            }
            initializedCount = status == BPNG_OK ? count : 0
        }
        if let error = decodeError(status, message, width: w, height: h, limits: limits) { throw error }
        return (w, h, pixels)
    }

    /// Reads and decodes the PNG file at `path`. A file that cannot be read gives `.io`,
    /// one that does not decode gives `.file(path:_:)` around the decoding error.
    public static func read(contentsOf path: String, limits: ImageLimits = .default) throws(ImageError) -> RGBImage {
        let bytes = try readFile(path)
        do {
            return try decode(bytes, limits: limits)
        } catch {
            throw .file(path: path, error)
        }
    }

    /// The image's sides as libpng takes them, once its pixels are checked to fill them.
    private static func sides(_ image: RGBImage) throws(ImageError) -> (UInt32, UInt32) {
        let expected = try RGBImage.byteCount(width: image.width, height: image.height)
        guard image.pixels.count == expected else {
            throw .pixelCountMismatch(expected: expected, actual: image.pixels.count)
        }
        guard let width = UInt32(exactly: image.width), let height = UInt32(exactly: image.height) else {
            throw .encodingFailed("\(image.width)x\(image.height) is beyond the PNG format's size limit")
        }
        return (width, height)
    }

    /// Encodes the image as an 8-bit RGB, non-interlaced PNG.
    public static func encode(_ image: RGBImage) throws(ImageError) -> [UInt8] {
        let (width, height) = try sides(image)
        var message = [CChar](repeating: 0, count: 256)
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize = 0
        let status = image.pixels.withUnsafeBufferPointer { pixels in
            message.withUnsafeMutableBufferPointer { text in
                bpng_encode_rgb8(pixels.baseAddress, width, height, &output, &outputSize,
                                 text.baseAddress, text.count)
            }
        }
        defer { bpng_free(output) }
        guard status == BPNG_OK, let output else { throw .encodingFailed(string(message)) }
        return Array(UnsafeBufferPointer(start: output, count: outputSize))
    }

    /// Encodes the image with an ICC profile in an iCCP chunk (zlib-compressed by libpng) and
    /// an EXIF block in an eXIf chunk after the header; with neither, the bytes of `encode(_:)`.
    /// A profile libpng judges malformed is refused with its reason.
    public static func encode(_ image: RGBImage, exif: EXIFBlock?, iccProfile: [UInt8]?) throws(ImageError) -> [UInt8] {
        try encode(image, alpha: nil, grayscale: false, exif: exif, iccProfile: iccProfile)
    }

    /// `encode(_:exif:iccProfile:)` with an alpha channel (one byte a pixel: an RGBA or gray
    /// and alpha PNG) and, with `grayscale`, one gray channel (the pixels' luma, exactly the
    /// gray of a picture whose R = G = B).
    public static func encode(_ image: RGBImage, alpha: [UInt8]?, grayscale: Bool, exif: EXIFBlock?,
                              iccProfile: [UInt8]?) throws(ImageError) -> [UInt8] {
        let (width, height) = try sides(image)
        if let alpha, alpha.count != image.width * image.height {
            throw .pixelCountMismatch(expected: image.width * image.height, actual: alpha.count)
        }
        let channels = (grayscale ? 1 : 3) + (alpha == nil ? 0 : 1)
        let rows = channels == 3 ? image.pixels : interleaved(image, alpha: alpha, grayscale: grayscale)
        let icc = iccProfile ?? []
        var message = [CChar](repeating: 0, count: 256)
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize = 0
        let status = rows.withUnsafeBufferPointer { pixels in
            icc.withUnsafeBufferPointer { icc in
                message.withUnsafeMutableBufferPointer { text in
                    bpng_encode8(pixels.baseAddress, width, height, Int32(channels), icc.baseAddress, icc.count,
                                 &output, &outputSize, text.baseAddress, text.count)
                }
            }
        }
        defer { bpng_free(output) }
        if status == BPNG_BAD_PROFILE { throw .cannotEncode(.png, "its colour profile: \(string(message))") }
        guard status == BPNG_OK, let output else { throw .encodingFailed(string(message)) }
        var png = Array(UnsafeBufferPointer(start: output, count: outputSize))
        if let exif {
            // The signature (8 bytes), then IHDR: length, type, 13 bytes, CRC.
            png.insert(contentsOf: chunkBytes("eXIf", exif.tiff), at: 8 + 12 + 13)
        }
        return png
    }

    /// The pixels as gray (luma, rounded: v for R = G = B = v) or RGB, each followed by its alpha byte when given.
    static func interleaved(_ image: RGBImage, alpha: [UInt8]?, grayscale: Bool) -> [UInt8] {
        let count = image.width * image.height, channels = (grayscale ? 1 : 3) + (alpha == nil ? 0 : 1)
        var out = [UInt8](repeating: 0, count: count * channels)
        image.pixels.withUnsafeBufferPointer { rgb in
            out.withUnsafeMutableBufferPointer { out in
                for i in 0..<count {
                    let o = i * channels
                    if grayscale {
                        out[o] = gray(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2])
                    } else {
                        (out[o], out[o + 1], out[o + 2]) = (rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2])
                    }
                    if let alpha { out[o + channels - 1] = alpha[i] }
                }
            }
        }
        return out
    }

    /// Rec. 601 luma in 8 bits, (77 R + 150 G + 29 B + 128) / 256: v when R = G = B = v.
    @inline(__always) static func gray(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt8 {
        let sum: Int = 77 * Int(r) + 150 * Int(g) + 29 * Int(b) + 128
        return UInt8(truncatingIfNeeded: sum >> 8)
    }

    /// What a PNG's header says it stores: gray (no colour channels, no palette) and alpha (an
    /// alpha channel or a tRNS chunk); nil when the data has no readable IHDR.
    public static func layout(_ bytes: [UInt8]) -> (isGray: Bool, hasAlpha: Bool)? {
        guard let header = chunk("IHDR", in: bytes), header.count == 13 else { return nil }
        let colorType = header[9]
        return (colorType & 2 == 0, colorType & 4 != 0 || chunk("tRNS", in: bytes) != nil)
    }

    /// Decodes as `decode(_:limits:)` and keeps the alpha (tRNS made alpha; 255 where the
    /// file has none): the RGB picture and one alpha byte a pixel.
    public static func decodeWithAlpha(_ bytes: [UInt8], limits: ImageLimits = .default) throws(ImageError) -> (RGBImage, [UInt8]) {
        let (w, h, rgba) = try decodePixels(bytes, limits: limits, channels: 4)
        var rgb = [UInt8](repeating: 0, count: w * h * 3), alpha = [UInt8](repeating: 0, count: w * h)
        for i in 0..<(w * h) {
            (rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2], alpha[i]) = (rgba[4 * i], rgba[4 * i + 1], rgba[4 * i + 2], rgba[4 * i + 3])
        }
        return (RGBImage(unchecked: w, h, rgb), alpha)
    }

    /// The ICC profile of the PNG's iCCP chunk, inflated by libpng; nil when there is none or
    /// libpng finds it unusable. Throws only when the PNG itself does not read up to its pixels.
    public static func iccProfile(_ bytes: [UInt8]) throws(ImageError) -> [UInt8]? {
        var message = [CChar](repeating: 0, count: 256)
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize = 0
        let status = bytes.withUnsafeBufferPointer { data in
            message.withUnsafeMutableBufferPointer { text in
                bpng_read_icc(data.baseAddress, data.count, &output, &outputSize, text.baseAddress, text.count)
            }
        }
        defer { bpng_free(output) }
        if let error = decodeError(status, message, width: 0, height: 0, limits: .default) { throw error }
        guard let output, outputSize > 0 else { return nil }
        return Array(UnsafeBufferPointer(start: output, count: outputSize))
    }

    /// Encodes the image and writes it to `path` through a temporary file in the same
    /// folder that is then renamed, so an error never leaves a partial file behind.
    public static func write(_ image: RGBImage, to path: String) throws(ImageError) {
        try AtomicFile.write(try encode(image), to: path)
    }

    /// `write(_:to:)` with an EXIF block, stored as an eXIf chunk after the header.
    public static func write(_ image: RGBImage, to path: String, exif: EXIFBlock) throws(ImageError) {
        try AtomicFile.write(try encode(image, exif: exif, iccProfile: nil), to: path)
    }

    /// `write(_:to:)` with an EXIF block (eXIf) and an ICC profile (iCCP), either optional.
    public static func write(_ image: RGBImage, to path: String, exif: EXIFBlock?, iccProfile: [UInt8]?) throws(ImageError) {
        try AtomicFile.write(try encode(image, exif: exif, iccProfile: iccProfile), to: path)
    }

    /// The data of the first chunk of `type` in PNG bytes, before or after the image data
    /// (lengths bounds-checked; CRCs not).
    static func chunk(_ type: String, in bytes: [UInt8]) -> [UInt8]? {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.starts(with: signature) else { return nil }
        let wanted = Array(type.utf8)
        var i = 8
        while i + 12 <= bytes.count {
            let length = Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            guard length <= bytes.count - i - 12 else { return nil }
            if Array(bytes[(i + 4)..<(i + 8)]) == wanted { return Array(bytes[(i + 8)..<(i + 8 + length)]) }
            i += 12 + length
        }
        return nil
    }

    /// A whole chunk: length, type, data and the CRC-32 of type and data.
    static func chunkBytes(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in body {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        crc ^= 0xFFFF_FFFF
        func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        return be(UInt32(data.count)) + body + be(crc)
    }

    /// Maps a C status to the Swift error, or nil for success.
    private static func decodeError(_ status: BPNGStatus, _ message: [CChar], width: Int, height: Int,
                                    limits: ImageLimits) -> ImageError? {
        switch status {
        case BPNG_OK: nil
        case BPNG_NOT_PNG: .notPNG
        case BPNG_TRUNCATED: .truncated(string(message))
        case BPNG_TOO_LARGE: .tooLarge(width: width, height: height, limits: limits)
        case BPNG_INVALID_SIZE: .invalidSize(width: width, height: height)
        default: .corrupt(string(message))
        }
    }
}

/// A NUL-terminated C message buffer as a String.
private func string(_ message: [CChar]) -> String {
    String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

// MARK: - Files (POSIX, so the module does not need Foundation)

/// The last system error as text.
func systemError() -> String {
    String(cString: strerror(errno))
}

/// Larger inputs are refused rather than read until memory runs out (e.g. a device file).
private let maxFileSize = 1 << 31

/// The whole content of the file at `path`.
func readFile(_ path: String) throws(ImageError) -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw .io(path: path, reason: "cannot open: \(systemError())") }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            throw .io(path: path, reason: "cannot read: \(systemError())")
        }
        if n == 0 { return bytes }
        bytes.append(contentsOf: chunk[..<n])
        guard bytes.count <= maxFileSize else {
            throw .io(path: path, reason: "larger than \(maxFileSize) bytes, not read")
        }
    }
}
