@_exported import BlazeImage

/// A decoded photo with what of its file is worth carrying to an edited copy: the upright
/// pixels, the EXIF block, the colour profile and, for JPEG, the quality it was saved at.
public struct Photo: Sendable, Equatable {
    /// The pixels, upright: any EXIF orientation (JPEG, PNG) or HEIF transformation applied.
    public var image: RGBImage
    /// The format of the file it was read from.
    public var format: ImageFormat
    /// The EXIF block, with its Orientation set to 1 since `image` is upright; GPS and all.
    /// Apply the metadata policy before writing it (`removingLocation()`).
    public var exif: EXIFBlock?
    /// The ICC colour profile (PNG iCCP, JPEG APP2, HEIF colr prof/rICC); not identifying.
    public var iccProfile: [UInt8]?
    /// The JPEG's estimated IJG quality (`JPEG.estimatedQuality`); nil for other formats.
    public var jpegQuality: Int?

    public init(image: RGBImage, format: ImageFormat, exif: EXIFBlock? = nil, iccProfile: [UInt8]? = nil,
                jpegQuality: Int? = nil) {
        (self.image, self.format, self.exif, self.iccProfile, self.jpegQuality) = (image, format, exif, iccProfile, jpegQuality)
    }
}

extension ImageFile {
    /// The JPEG quality written when the input's is unknown (not a JPEG, or no tables).
    public static let defaultJPEGQuality = 90

    /// Decodes PNG, JPEG, PPM or PGM data into a `Photo`: upright pixels (EXIF orientation
    /// applied, for JPEG and PNG's eXIf), EXIF, ICC profile and JPEG quality. HEIF data is
    /// refused with an error that points at BlazeImageHEIF (`HEIF.readPhoto`).
    public static func readPhoto(data: [UInt8], limits: ImageLimits = .default) throws(ImageError) -> Photo {
        switch ImageFormat(sniffing: data) {
        case .png:
            let exif = EXIFBlock(file: data)
            let image = try PNG.decode(data, limits: limits)
            let orientation = exif.flatMap { EXIFOrientation.orientationEntry($0.tiff) }.flatMap { entry in
                EXIFOrientation(rawValue: entry.little ? Int(exif!.tiff[entry.value]) | Int(exif!.tiff[entry.value + 1]) << 8
                                                      : Int(exif!.tiff[entry.value]) << 8 | Int(exif!.tiff[entry.value + 1]))
            }
            return Photo(image: orientation.map { image.applying($0) } ?? image, format: .png, exif: exif?.upright(),
                         iccProfile: try PNG.iccProfile(data))
        case .jpeg:
            let image = try JPEG.decode(data, limits: limits, applyingOrientation: true)
            return Photo(image: image, format: .jpeg, exif: EXIFBlock(file: data)?.upright(), iccProfile: JPEG.iccProfile(data),
                         jpegQuality: JPEG.estimatedQuality(data))
        case .pnm:
            return Photo(image: try PNM.decode(data, limits: limits), format: .pnm)
        case .heif:
            throw heifNeedsItsModule
        case nil:
            throw unknownFormat(data)
        }
    }

    /// Reads the file at `path` into a `Photo` (see `readPhoto(data:limits:)`); `.io` if it
    /// cannot be read, `.file(path:_:)` around a decoding error.
    public static func readPhoto(contentsOf path: String, limits: ImageLimits = .default) throws(ImageError) -> Photo {
        let bytes = try readFile(path)
        do { return try readPhoto(data: bytes, limits: limits) } catch { throw .file(path: path, error) }
    }

    /// The whole content of the file at `path` (at most 2 GiB); `.io` naming it otherwise.
    public static func contents(of path: String) throws(ImageError) -> [UInt8] {
        try readFile(path)
    }

    /// Encodes `image` as `format` and writes it atomically (`AtomicFile`). JPEG gets `exif`
    /// (APP1), `iccProfile` (APP2) and `jpegQuality`; PNG gets `exif` (eXIf) and `iccProfile`
    /// (iCCP), and the same bytes as `PNG.write(_:to:)` with neither; PNM carries no metadata
    /// and is PGM when `path` ends in .pgm, PPM otherwise. HEIF is not written.
    /// The EXIF block is written as given: apply `upright()` and the location policy first.
    public static func write(_ image: RGBImage, to path: String, format: ImageFormat, exif: EXIFBlock? = nil,
                             iccProfile: [UInt8]? = nil, jpegQuality: Int = defaultJPEGQuality) throws(ImageError) {
        let bytes: [UInt8]
        switch format {
        case .png: bytes = try PNG.encode(image, exif: exif, iccProfile: iccProfile)
        case .jpeg: bytes = try JPEG.encode(image, quality: jpegQuality, exif: exif, iccProfile: iccProfile)
        case .pnm: bytes = try PNM.encode(image, as: path.lowercased().hasSuffix(".pgm") ? .pgm : .ppm)
        case .heif: throw .cannotEncode(.heif, "HEIF is not written here; write JPEG or PNG")
        }
        try AtomicFile.write(bytes, to: path)
    }

    /// What reading HEIF through BlazeImageIO says.
    static let heifNeedsItsModule = ImageError.unsupported(.heif, "a HEIC/HEIF photo: read it with BlazeImageHEIF (HEIF.readPhoto)")

    /// The error for data in none of the formats read here.
    static func unknownFormat(_ data: [UInt8]) -> ImageError {
        .unknownFormat(firstBytes: data.prefix(8).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined(separator: " "))
    }
}
