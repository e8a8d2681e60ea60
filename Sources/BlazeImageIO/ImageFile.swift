@_exported import BlazeImage
/// One entry point for every encoded image format read here: the format is sniffed from the
/// first bytes (`ImageFormat(sniffing:)`), never taken from a file name.
public enum ImageFile {
    /// Decodes PNG, JPEG, PPM or PGM data to 8-bit RGB. `applyingOrientation` applies a JPEG's
    /// EXIF orientation (other formats carry none here). HEIF, WebP, TIFF and BMP data are
    /// refused with an error that points at the module that decodes them (BlazeImageHEIF, MediaFiles).
    public static func read(data: [UInt8], limits: ImageLimits = .default,
                            applyingOrientation: Bool = false) throws(ImageError) -> RGBImage {
        switch ImageFormat(sniffing: data) {
        case .png: try PNG.decode(data, limits: limits)
        case .jpeg: try JPEG.decode(data, limits: limits, applyingOrientation: applyingOrientation)
        case .pnm: try PNM.decode(data, limits: limits)
        case .heif: throw heifNeedsItsModule
        case let other?: throw needsMediaFiles(other)
        case nil: throw unknownFormat(data)
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
