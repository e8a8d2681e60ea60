/// Why an image could not be made, decoded, encoded, read or written.
public enum ImageError: Error, Equatable, CustomStringConvertible {
    /// The data does not start with the PNG signature.
    case notPNG
    /// The data ends before the image does; the message says where.
    case truncated(String)
    /// libpng refused the data (bad CRC, missing PLTE, bad zlib stream...); its message.
    case corrupt(String)
    /// The header's size is over the decoder's limits; refused before allocating.
    case tooLarge(width: Int, height: Int, limits: ImageLimits)
    /// A side is zero or negative, or the byte count would overflow.
    case invalidSize(width: Int, height: Int)
    /// A pixel buffer whose byte count is not `width * height * 3`.
    case pixelCountMismatch(expected: Int, actual: Int)
    /// libpng could not encode the image; its message.
    case encodingFailed(String)
    /// A file could not be opened, read, written or renamed.
    case io(path: String, reason: String)
    /// A decoding error in the file at `path`, from `PNG.read(contentsOf:)`.
    indirect case file(path: String, ImageError)
    /// The bytes are none of the formats read here (PNG, JPEG, PPM, PGM); the first bytes, in hex.
    case unknownFormat(firstBytes: String)
    /// The data of a JPEG, PPM or PGM ends before the image does; where.
    case truncatedData(ImageFormat, String)
    /// A JPEG, PPM or PGM whose data is malformed; what is wrong (libjpeg's message for JPEG).
    case corruptData(ImageFormat, String)
    /// Well-formed data this library does not decode (CMYK JPEG, a PAM file...); what.
    case unsupported(ImageFormat, String)
    /// A pixel buffer whose planes, strides or sizes do not fit its format; what.
    case invalidPixelBuffer(String)
    /// An image could not be encoded in `format` (JPEG, HEIF...); why.
    case cannotEncode(ImageFormat, String)
    /// A YUV4MPEG2 stream that is malformed, truncated or unsupported; the message says where.
    case y4m(String)

    /// A readable message saying what is wrong (and with which format or file, where known).
    public var description: String {
        switch self {
        case .notPNG:
            "not a PNG: the data does not start with the PNG signature"
        case .truncated(let detail):
            "truncated PNG: \(detail)"
        case .corrupt(let detail):
            "corrupt PNG: \(detail)"
        case let .tooLarge(width, height, limits):
            "image too large: \(width)x\(height) pixels, the limit is \(limits.maxWidth)x\(limits.maxHeight)"
                + " and \(limits.maxPixels) pixels"
        case let .invalidSize(width, height):
            "invalid image size \(width)x\(height): both sides must be positive and the byte count must fit in an Int"
        case let .pixelCountMismatch(expected, actual):
            "pixel buffer has \(actual) bytes, expected width x height x 3 = \(expected)"
        case .encodingFailed(let detail):
            "cannot encode PNG: \(detail)"
        case let .io(path, reason):
            "\(path): \(reason)"
        case let .file(path, error):
            "\(path): \(error)"
        case .unknownFormat(let firstBytes):
            "unknown image format: not PNG, JPEG, PPM or PGM (the data starts with \(firstBytes.isEmpty ? "nothing" : firstBytes))"
        case let .truncatedData(format, detail):
            "truncated \(format): \(detail)"
        case let .corruptData(format, detail):
            "corrupt \(format): \(detail)"
        case let .unsupported(format, detail):
            "unsupported \(format): \(detail)"
        case .invalidPixelBuffer(let detail):
            "invalid pixel buffer: \(detail)"
        case let .cannotEncode(format, detail):
            "cannot encode \(format): \(detail)"
        case .y4m(let detail):
            "YUV4MPEG2: \(detail)"
        }
    }
}
