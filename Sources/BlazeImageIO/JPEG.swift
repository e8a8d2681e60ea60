@_exported import BlazeImage
import CJPEGSupport

/// JPEG decoding through the system libjpeg-turbo, to 8-bit RGB.
public enum JPEG {
    /// Decodes a baseline or progressive JPEG (gray, YCbCr, RGB, CMYK or YCCK) to 8-bit RGB
    /// with the pixels Pillow gives (`Image.open(f).convert("RGB")`: accurate integer IDCT,
    /// fancy upsampling, gray replicated, CMYK in Adobe's polarity converted without colour
    /// management). The frame size is checked against `limits` before
    /// anything is allocated. With `applyingOrientation`, the EXIF orientation (if any) is
    /// applied, as Pillow's `ImageOps.exif_transpose` does, so the result is upright.
    public static func decode(_ bytes: [UInt8], limits: ImageLimits = .default,
                              applyingOrientation: Bool = false) throws(ImageError) -> RGBImage {
        let cLimits = BJPGLimits(max_width: UInt32(clamping: limits.maxWidth), max_height: UInt32(clamping: limits.maxHeight),
                                 max_pixels: UInt64(clamping: limits.maxPixels))
        var message = [CChar](repeating: 0, count: 256)
        var width: UInt32 = 0, height: UInt32 = 0
        var components: Int32 = 0
        let headerStatus = bytes.withUnsafeBufferPointer { data in
            message.withUnsafeMutableBufferPointer { text in
                bjpg_read_header(data.baseAddress, data.count, cLimits, &width, &height, &components, text.baseAddress, text.count)
            }
        }
        let (w, h) = (Int(width), Int(height))
        if let error = decodeError(headerStatus, message, width: w, height: h, limits: limits) { throw error }

        let count = try RGBImage.byteCount(width: w, height: h)
        var status = BJPG_OK
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initializedCount in
            status = bytes.withUnsafeBufferPointer { data in
                message.withUnsafeMutableBufferPointer { text in
                    bjpg_decode_rgb8(data.baseAddress, data.count, cLimits, buffer.baseAddress, count, text.baseAddress, text.count)
                }
            }
            initializedCount = status == BJPG_OK ? count : 0
        }
        if let error = decodeError(status, message, width: w, height: h, limits: limits) { throw error }
        let image = RGBImage(unchecked: w, h, pixels)
        guard applyingOrientation, let orientation = EXIFOrientation(jpeg: bytes) else { return image }
        return image.applying(orientation)
    }

    /// Reads and decodes the JPEG file at `path`. A file that cannot be read gives `.io`,
    /// one that does not decode gives `.file(path:_:)` around the decoding error.
    public static func read(contentsOf path: String, limits: ImageLimits = .default,
                            applyingOrientation: Bool = false) throws(ImageError) -> RGBImage {
        let bytes = try readFile(path)
        do {
            return try decode(bytes, limits: limits, applyingOrientation: applyingOrientation)
        } catch {
            throw .file(path: path, error)
        }
    }

    /// Maps a C status to the Swift error, or nil for success.
    private static func decodeError(_ status: BJPGStatus, _ message: [CChar], width: Int, height: Int,
                                    limits: ImageLimits) -> ImageError? {
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        switch status {
        case BJPG_OK: return nil
        case BJPG_NOT_JPEG: return .corruptData(.jpeg, "the data does not start with a JPEG SOI marker (FF D8 FF)")
        case BJPG_TRUNCATED: return .truncatedData(.jpeg, text)
        case BJPG_TOO_LARGE: return .tooLarge(width: width, height: height, limits: limits)
        case BJPG_INVALID_SIZE: return .invalidSize(width: width, height: height)
        case BJPG_UNSUPPORTED: return .unsupported(.jpeg, text)
        case BJPG_FAILED: return .corruptData(.jpeg, "the decoder's output does not match its header")
        default: return .corruptData(.jpeg, text)
        }
    }
}
