/// The encoded image formats BlazeImageIO reads, told apart by their first bytes
/// (`ImageFormat(sniffing:)`, in BlazeImageIO), never by a file name.
public enum ImageFormat: String, Sendable, Equatable, CustomStringConvertible {
    /// PNG, JPEG, and Netpbm (PPM and PGM); the raw value is the name.
    case png = "PNG", jpeg = "JPEG", pnm = "PNM"
    /// HEIC/HEIF and AVIF photos (an ISO BMFF `ftyp` box with a HEIF brand, or AVIF's `avif`):
    /// recognised by BlazeImageIO, decoded only by BlazeImageHEIF (libheif), so that
    /// BlazeImageIO links no libheif.
    case heif = "HEIF"
    /// WebP (a RIFF container of VP8 or VP8L data): recognised, and its container read, by
    /// BlazeImageIO; decoded by MediaFiles through FFmpeg's decoder, so that BlazeImageIO links
    /// no codec for it.
    case webp = "WebP"
    /// TIFF (one page, as scanners and photo tools save it) and BMP: recognised, and TIFF's
    /// directories read, by BlazeImageIO; decoded by MediaFiles through FFmpeg's decoders.
    case tiff = "TIFF", bmp = "BMP"

    /// The format's name: `PNG`, `JPEG`, `PNM`, `HEIF`, `WebP`, `TIFF` or `BMP`.
    public var description: String { rawValue }
}
