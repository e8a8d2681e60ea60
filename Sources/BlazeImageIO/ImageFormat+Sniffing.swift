@_exported import BlazeImage

extension ImageFormat {
    /// The format whose signature `bytes` start with: PNG's 8-byte signature, JPEG's SOI
    /// marker (FF D8 FF), a Netpbm magic number P1...P6 followed by white space, an ISO BMFF
    /// `ftyp` box with a HEIF or AVIF brand (`isHEIF`), a RIFF header of form `WEBP`, a TIFF
    /// header ("II" or "MM" and 42, or BigTIFF's 43), or BMP's "BM" followed by a DIB header of
    /// a size BMP uses; nil otherwise.
    public init?(sniffing bytes: some Collection<UInt8>) {
        let head = Array(bytes.prefix(64))
        if head.starts(with: [137, 80, 78, 71, 13, 10, 26, 10]) {
            self = .png
        } else if head.count >= 3, head[0] == 0xFF, head[1] == 0xD8, head[2] == 0xFF {
            self = .jpeg
        } else if head.count >= 3, head[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "6")).contains(head[1]),
                  PNM.isWhitespace(head[2]) {
            self = .pnm
        } else if Self.isHEIF(head) {
            self = .heif
        } else if WebPContainer.isWebP(head) {
            self = .webp
        } else if TIFFContainer.isTIFF(head) {
            self = .tiff
        } else if Self.isBMP(head) {
            self = .bmp
        } else {
            return nil
        }
    }

    /// Whether the data opens with BMP's file header ("BM") and a DIB header of one of the
    /// sizes BMP's versions use (12 for OS/2's, 40 to 124 for Windows').
    static func isBMP(_ head: [UInt8]) -> Bool {
        guard head.count >= 18, head[0] == UInt8(ascii: "B"), head[1] == UInt8(ascii: "M") else { return false }
        let dib = Int(head[14]) | Int(head[15]) << 8 | Int(head[16]) << 16 | Int(head[17]) << 24
        return [12, 16, 40, 52, 56, 64, 108, 124].contains(dib)
    }

    /// The HEIF brands: HEVC images and sequences, and the generic image and sequence brands.
    static let heifBrands: Set<String> = ["heic", "heix", "hevc", "heim", "heis", "hevm", "hevs", "mif1", "msf1"]

    /// Whether the data opens with an `ftyp` box whose major brand, or one of whose compatible
    /// brands, is a HEIF brand. An AVIF photo (major brand avif: HEIF's container around an AV1
    /// picture) is HEIF here, read by libheif as a HEIC is; an AVIF sequence (avis, an
    /// animation) is not: FFmpeg reads it as a video.
    static func isHEIF(_ head: [UInt8]) -> Bool {
        guard head.count >= 16, Array(head[4..<8]) == Array("ftyp".utf8) else { return false }
        let size = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
        guard size >= 16 else { return false }
        func brand(_ at: Int) -> String { String(decoding: head[at..<(at + 4)], as: UTF8.self) }
        let major = brand(8)
        if heifBrands.contains(major) || major == "avif" { return true }
        if major == "avis" { return false }
        var at = 16
        while at + 4 <= min(size, head.count) {
            if heifBrands.contains(brand(at)) { return true }
            at += 4
        }
        return false
    }

    /// The format to write for an output path, from its extension (any case): .jpg and .jpeg
    /// give JPEG, .png PNG, .ppm and .pgm PNM; nil for anything else (the caller refuses it,
    /// listing `outputExtensions`).
    public static func forOutput(path: String) -> ImageFormat? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        switch name[name.index(after: dot)...].lowercased() {
        case "jpg", "jpeg": return .jpeg
        case "png": return .png
        case "ppm", "pgm": return .pnm
        default: return nil
        }
    }

    /// The output extensions `forOutput(path:)` knows.
    public static let outputExtensions = [".jpg", ".jpeg", ".png", ".ppm", ".pgm"]
}
