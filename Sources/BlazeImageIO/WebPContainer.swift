/// WebP's RIFF container (Google's WebP Container Specification), read without decoding: which
/// chunks a file holds, its colour profile and its EXIF block. The picture itself is decoded by
/// MediaFiles (`Pictures`, through FFmpeg's decoder), so that BlazeImageIO links no codec for it.
public enum WebPContainer {
    /// Whether the data opens with a RIFF header of form `WEBP`.
    public static func isWebP(_ bytes: some Collection<UInt8>) -> Bool {
        let head = Array(bytes.prefix(12))
        return head.count == 12 && head[0..<4].elementsEqual("RIFF".utf8) && head[8..<12].elementsEqual("WEBP".utf8)
    }

    /// Whether the file is an animation: the extended header's animation flag, or an `ANIM` chunk.
    public static func isAnimated(_ bytes: [UInt8]) -> Bool {
        if let header = chunk("VP8X", in: bytes), let flags = header.first, flags & 0x02 != 0 { return true }
        return chunk("ANIM", in: bytes) != nil
    }

    /// The ICC colour profile (the `ICCP` chunk), or nil.
    public static func iccProfile(_ bytes: [UInt8]) -> [UInt8]? {
        chunk("ICCP", in: bytes).map(Array.init)
    }

    /// The EXIF block (the `EXIF` chunk's TIFF data; some writers put JPEG's `Exif\0\0` before
    /// it), or nil when there is none or it is not TIFF data.
    public static func exif(_ bytes: [UInt8]) -> EXIFBlock? {
        guard var tiff = chunk("EXIF", in: bytes) else { return nil }
        if tiff.starts(with: Array("Exif".utf8) + [0, 0]) { tiff = tiff.dropFirst(6) }
        return EXIFBlock(tiff: Array(tiff))
    }

    /// The payload of the first chunk of type `fourCC` after the RIFF header, or nil (also for a
    /// chunk that runs past the data: a cut file yields what it holds whole).
    static func chunk(_ fourCC: String, in bytes: [UInt8]) -> ArraySlice<UInt8>? {
        guard isWebP(bytes) else { return nil }
        let wanted = Array(fourCC.utf8)
        var at = 12
        while at + 8 <= bytes.count {
            let size = Int(bytes[at + 4]) | Int(bytes[at + 5]) << 8 | Int(bytes[at + 6]) << 16 | Int(bytes[at + 7]) << 24
            let start = at + 8
            guard size <= bytes.count - start else { return nil }
            if bytes[at..<(at + 4)].elementsEqual(wanted) { return bytes[start..<(start + size)] }
            at = start + size + (size & 1)   // chunks are padded to an even size
        }
        return nil
    }
}
