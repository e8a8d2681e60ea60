/// The encoded image formats BlazeImageIO reads, told apart by their first bytes
/// (`ImageFormat(sniffing:)`, in BlazeImageIO), never by a file name.
public enum ImageFormat: String, Sendable, Equatable, CustomStringConvertible {
    case png = "PNG", jpeg = "JPEG", pnm = "PNM"

    public var description: String { rawValue }
}
