/// The encoded image formats BlazeImageIO reads, told apart by their first bytes
/// (`ImageFormat(sniffing:)`, in BlazeImageIO), never by a file name.
public enum ImageFormat: String, Sendable, Equatable, CustomStringConvertible {
    /// PNG, JPEG, and Netpbm (PPM and PGM); the raw value is the name.
    case png = "PNG", jpeg = "JPEG", pnm = "PNM"

    /// The format's name: `PNG`, `JPEG` or `PNM`.
    public var description: String { rawValue }
}
