@_exported import BlazeImage
/// One entry point for every encoded image format read here: the format is sniffed from the
/// first bytes (`ImageFormat(sniffing:)`), never taken from a file name.
public enum ImageFile {
    /// Decodes PNG, JPEG, PPM or PGM data to 8-bit RGB. `applyingOrientation` applies a JPEG's
    /// EXIF orientation (other formats carry none here).
    public static func read(data: [UInt8], limits: ImageLimits = .default,
                            applyingOrientation: Bool = false) throws(ImageError) -> RGBImage {
        switch ImageFormat(sniffing: data) {
        case .png: try PNG.decode(data, limits: limits)
        case .jpeg: try JPEG.decode(data, limits: limits, applyingOrientation: applyingOrientation)
        case .pnm: try PNM.decode(data, limits: limits)
        case nil: throw .unknownFormat(firstBytes: data.prefix(8).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined(separator: " "))
        }
    }

    /// Reads and decodes the file at `path`; `.io` if it cannot be read, `.file(path:_:)`
    /// around a decoding error.
    public static func read(contentsOf path: String, limits: ImageLimits = .default,
                            applyingOrientation: Bool = false) throws(ImageError) -> RGBImage {
        let bytes = try readFile(path)
        do { return try read(data: bytes, limits: limits, applyingOrientation: applyingOrientation) } catch {
            throw .file(path: path, error)
        }
    }
}
