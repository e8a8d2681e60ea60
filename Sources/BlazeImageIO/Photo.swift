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
    /// The alpha channel, one byte a pixel in `image`'s order (upright like it), when the file
    /// has one (a PNG with alpha or tRNS); `ImageFile.write` keeps it in a PNG.
    public var alpha: [UInt8]?
    /// Whether the file stores one gray channel (gray PNG, grayscale JPEG, PGM); `image` holds
    /// it as R = G = B, and `ImageFile.write` writes gray again.
    public var isGrayscale: Bool

    public init(image: RGBImage, format: ImageFormat, exif: EXIFBlock? = nil, iccProfile: [UInt8]? = nil,
                jpegQuality: Int? = nil, alpha: [UInt8]? = nil, isGrayscale: Bool = false) {
        (self.image, self.format, self.exif, self.iccProfile, self.jpegQuality) = (image, format, exif, iccProfile, jpegQuality)
        (self.alpha, self.isGrayscale) = (alpha, isGrayscale)
    }
}

extension ImageFile {
    /// The JPEG quality written when the input's is unknown (not a JPEG, or no tables).
    public static let defaultJPEGQuality = 90

    /// Decodes PNG, JPEG, PPM or PGM data into a `Photo`: upright pixels (EXIF orientation
    /// applied, for JPEG and PNG's eXIf), EXIF, ICC profile, JPEG quality, a PNG's alpha and
    /// whether the file is gray. HEIF, WebP, TIFF and BMP data are refused with an error that points at
    /// the module that decodes them (`HEIF.readPhoto`, `Pictures.readPhoto`).
    public static func readPhoto(data: [UInt8], limits: ImageLimits = .default) throws(ImageError) -> Photo {
        switch ImageFormat(sniffing: data) {
        case .png:
            let exif = EXIFBlock(file: data)
            let layout = PNG.layout(data)
            var image: RGBImage, alpha: RGBImage?
            if layout?.hasAlpha == true {
                let (rgb, a) = try PNG.decodeWithAlpha(data, limits: limits)
                // Turned as the pixels are below: held as a gray picture.
                (image, alpha) = (rgb, RGBImage(unchecked: rgb.width, rgb.height, a.flatMap { [$0, $0, $0] }))
            } else {
                image = try PNG.decode(data, limits: limits)
            }
            let orientation = exif.flatMap { EXIFOrientation.orientationEntry($0.tiff) }.flatMap { entry in
                EXIFOrientation(rawValue: entry.little ? Int(exif!.tiff[entry.value]) | Int(exif!.tiff[entry.value + 1]) << 8
                                                      : Int(exif!.tiff[entry.value]) << 8 | Int(exif!.tiff[entry.value + 1]))
            }
            if let orientation {
                image = image.applying(orientation)
                alpha = alpha?.applying(orientation)
            }
            return Photo(image: image, format: .png, exif: exif?.upright(), iccProfile: try PNG.iccProfile(data),
                         alpha: alpha.map { a in stride(from: 0, to: a.pixels.count, by: 3).map { a.pixels[$0] } },
                         isGrayscale: layout?.isGray ?? false)
        case .jpeg:
            let image = try JPEG.decode(data, limits: limits, applyingOrientation: true)
            return Photo(image: image, format: .jpeg, exif: EXIFBlock(file: data)?.upright(), iccProfile: JPEG.iccProfile(data),
                         jpegQuality: JPEG.estimatedQuality(data), isGrayscale: JPEG.isGrayscale(data))
        case .pnm:
            return Photo(image: try PNM.decode(data, limits: limits), format: .pnm, isGrayscale: data.count > 1 && (data[1] == 0x32 || data[1] == 0x35))
        case .heif:
            throw heifNeedsItsModule
        case let other?:
            throw needsMediaFiles(other)
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
    /// `alpha` (one byte a pixel) is kept in a PNG; `grayscale` writes a gray PNG or a
    /// one-component JPEG (luma of the pixels: exactly the gray of a gray picture).
    /// The EXIF block is written as given: apply `upright()` and the location policy first.
    public static func write(_ image: RGBImage, to path: String, format: ImageFormat, exif: EXIFBlock? = nil,
                             iccProfile: [UInt8]? = nil, jpegQuality: Int = defaultJPEGQuality,
                             alpha: [UInt8]? = nil, grayscale: Bool = false) throws(ImageError) {
        let bytes: [UInt8]
        switch format {
        case .png: bytes = try PNG.encode(image, alpha: alpha, grayscale: grayscale, exif: exif, iccProfile: iccProfile)
        case .jpeg: bytes = try JPEG.encode(image, quality: jpegQuality, grayscale: grayscale, exif: exif, iccProfile: iccProfile)
        case .pnm: bytes = try PNM.encode(image, as: path.lowercased().hasSuffix(".pgm") ? .pgm : .ppm)
        case .heif, .webp, .tiff, .bmp: throw .cannotEncode(format, "\(format) is not written here; write JPEG or PNG")
        }
        try AtomicFile.write(bytes, to: path)
    }

    /// Writes an edited `photo` to `path` as `format` (atomically), as a tool that anonymises
    /// should: its pixels, alpha and grayness and its colour profile (not identifying) kept; its
    /// EXIF block only as `metadata` says (none by default; GPS only with `.keep(location:
    /// true)`; never its thumbnail or maker note, pictures of the unedited photo:
    /// `EXIFBlock.removingPreviews()`); a JPEG at `jpegQuality`, else the input JPEG's own, else `defaultJPEGQuality`.
    /// PNM holds no metadata: keeping it there is refused. Returns what could not be kept, as
    /// sentences: a colour profile the encoder refuses as malformed costs the profile, not the
    /// photo.
    @discardableResult
    public static func write(_ photo: Photo, to path: String, format: ImageFormat, metadata: MetadataPolicy = .strip,
                             jpegQuality: Int? = nil) throws(ImageError) -> [String] {
        let exif: EXIFBlock?
        switch metadata {
        case .strip: exif = nil
        case let .keep(location):
            if format == .pnm { throw .cannotEncode(.pnm, "\(path): PPM holds no metadata; keeping it needs JPEG or PNG") }
            exif = (location ? photo.exif : photo.exif?.removingLocation())?.removingPreviews()
        }
        let quality = jpegQuality ?? photo.jpegQuality ?? defaultJPEGQuality
        // A TIFF's metadata are tags of its own directory, not an EXIF block: none is carried.
        var notes = metadata != .strip && photo.format == .tiff
            ? ["written without the TIFF's own tags (camera, dates, location): only EXIF blocks are kept, and a TIFF holds its metadata otherwise"] : []
        // A profile of other channels than those written (a CMYK JPEG's, now RGB) would make
        // viewers misread the colours: it goes, and the note says so.
        var profile = photo.iccProfile
        if let space = profile.flatMap(iccColourSpace), space != (photo.isGrayscale ? "GRAY" : "RGB") {
            profile = nil
            notes.append("written without its \(space) colour profile: the pixels are \(photo.isGrayscale ? "gray" : "RGB") now")
        }
        do {
            try write(photo.image, to: path, format: format, exif: exif, iccProfile: profile, jpegQuality: quality,
                      alpha: photo.alpha, grayscale: photo.isGrayscale)
            return notes
        } catch {
            guard profile != nil, case .cannotEncode = error else { throw error }
            try write(photo.image, to: path, format: format, exif: exif, iccProfile: nil, jpegQuality: quality,
                      alpha: photo.alpha, grayscale: photo.isGrayscale)
            return notes + ["written without its colour profile, which the encoder refused (\(error))"]
        }
    }

    /// The colour space an ICC profile describes (its header's data colour space: "RGB", "GRAY",
    /// "CMYK", "Lab"...), or nil when the header is too short to say.
    static func iccColourSpace(_ profile: [UInt8]) -> String? {
        guard profile.count >= 128 else { return nil }
        return String(decoding: profile[16..<20].reversed().drop { $0 == 0x20 }.reversed(), as: UTF8.self)
    }

    /// What reading HEIF through BlazeImageIO says.
    static let heifNeedsItsModule = ImageError.unsupported(.heif, "a HEIC/HEIF photo: read it with BlazeImageHEIF (HEIF.readPhoto)")

    /// What reading WebP, TIFF or BMP through BlazeImageIO says.
    static func needsMediaFiles(_ format: ImageFormat) -> ImageError {
        .unsupported(format, "a \(format) picture: read it with MediaFiles (Pictures.readPhoto)")
    }

    /// The error for data in none of the formats read here.
    static func unknownFormat(_ data: [UInt8]) -> ImageError {
        .unknownFormat(firstBytes: data.prefix(8).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined(separator: " "))
    }
}
