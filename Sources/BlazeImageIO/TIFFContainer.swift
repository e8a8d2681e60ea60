/// TIFF's header and directories (TIFF 6.0), read without decoding: whether a file is one
/// picture in a layout FFmpeg's decoder reads right, its orientation and its colour profile.
/// The picture itself is decoded by MediaFiles (`Pictures`, through FFmpeg's decoder), so that
/// BlazeImageIO links no codec for it. Every offset is bounds-checked.
public enum TIFFContainer {
    /// Whether the data opens with a TIFF header: "II" or "MM", then 42 (classic TIFF) or 43
    /// (BigTIFF, recognised so that it is refused by name).
    public static func isTIFF(_ bytes: some Collection<UInt8>) -> Bool {
        let head = Array(bytes.prefix(4))
        return head == [0x49, 0x49, 42, 0] || head == [0x4D, 0x4D, 0, 42] || head == [0x49, 0x49, 43, 0] || head == [0x4D, 0x4D, 0, 43]
    }

    /// Throws why the file is not read, or returns when it is a single picture (pages after it
    /// only as reduced-size previews), whole in the file, that FFmpeg's TIFF decoder reads right:
    /// strips (not tiles) of uncompressed, LZW, Deflate, PackBits or CCITT data of unsigned
    /// samples of 1 to 16 bits, as bilevel, gray, RGB, palette or 8-bit CMYK. Anything else is
    /// refused rather than decoded wrong: FFmpeg 5.1 decodes a JPEG-compressed or tiled TIFF as
    /// a black picture without a word (measured on Pillow's test images,
    /// `Tools/redaction/pictures_vs_pillow.py`).
    public static func checkReadable(_ bytes: [UInt8]) throws(ImageError) {
        guard isTIFF(bytes) else { throw .corruptData(.tiff, "no TIFF header") }
        if bytes[2] == 43 || bytes[3] == 43 { throw .unsupported(.tiff, "a BigTIFF file (only classic TIFF is read)") }
        let file = Reader(bytes: bytes)
        guard let offset = file.u32(4), let first = file.directory(at: offset) else {
            throw .truncatedData(.tiff, "its first directory lies outside the file: cut short or damaged")
        }
        let isCanonRaw = bytes.count > 10 && bytes[8] == UInt8(ascii: "C") && bytes[9] == UInt8(ascii: "R")
        let reduced = { (d: Directory) in (file.values(d, 254)?.first ?? 0) & 1 != 0 }   // NewSubfileType
        if isCanonRaw || first.entries[50706] != nil || first.entries[330] != nil || reduced(first) {   // DNGVersion, SubIFDs
            throw .unsupported(.tiff, "a camera raw file (DNG, CR2, NEF, ARW...), whose TIFF picture is a preview, not the photo: "
                               + "export the photo as JPEG or TIFF first")
        }
        let pages = file.directories(from: first, at: offset).filter { !reduced($0) }.count
        if pages > 1 { throw .unsupported(.tiff, "\(pages) pages (only single-page TIFF pictures are read)") }

        let compression = file.values(first, 259)?.first ?? 1
        guard [1, 2, 3, 4, 5, 8, 32773, 32946].contains(compression) else {
            let names = [6: "old-style JPEG", 7: "JPEG", 34712: "JPEG 2000", 34925: "LZMA", 50000: "Zstandard", 50001: "WebP"]
            throw .unsupported(.tiff, "compressed as \(names[compression] ?? "a scheme not read here") (compression \(compression)); "
                               + "uncompressed, LZW, Deflate, PackBits and CCITT TIFFs are read: save it so, or as JPEG or PNG")
        }
        if first.entries[322] != nil || first.entries[324] != nil {   // TileWidth, TileOffsets
            throw .unsupported(.tiff, "stored in tiles, which FFmpeg's decoder leaves black (TIFFs stored in strips are read)")
        }
        if file.values(first, 266)?.first == 2, ![3, 4].contains(compression) {   // FillOrder
            throw .unsupported(.tiff, "its bits stored lowest first (FillOrder 2), which FFmpeg's decoder reads wrong outside fax compression")
        }
        guard let photometric = file.values(first, 262)?.first else {
            throw .corruptData(.tiff, "no PhotometricInterpretation: how its samples make colours is not said")
        }
        let samples = file.values(first, 277)?.first ?? 1
        let inkSet = file.values(first, 332)?.first ?? 1
        let bits = file.values(first, 258) ?? [1]
        guard [0, 1, 2, 3].contains(photometric) || (photometric == 5 && inkSet == 1 && samples >= 4 && bits.allSatisfy { $0 == 8 }) else {
            let names = [4: "a transparency mask", 5: "inks other than 8-bit CMYK", 6: "YCbCr", 8: "CIE L*a*b*", 9: "ICC L*a*b*", 10: "ITU L*a*b*"]
            throw .unsupported(.tiff, "its colours are stored as \(names[photometric] ?? "an unusual model") (photometric \(photometric)); "
                               + "gray, RGB, palette and CMYK TIFFs are read")
        }
        guard (file.values(first, 339) ?? [1]).allSatisfy({ $0 == 1 }) else {
            throw .unsupported(.tiff, "floating-point or signed samples (only unsigned integer samples are read)")
        }
        // FFmpeg decodes the strips it has and leaves the rest black without a word.
        guard let offsets = file.values(first, 273, limit: .max), let counts = file.values(first, 279, limit: .max),
              !offsets.isEmpty, offsets.count == counts.count else {
            throw .corruptData(.tiff, "where its picture's strips lie is not said, or not in the file")
        }
        if let cut = offsets.indices.first(where: { offsets[$0] > bytes.count || counts[$0] > bytes.count - offsets[$0] }) {
            throw .truncatedData(.tiff, "cut short: strip \(cut + 1) of \(offsets.count) runs past the end of the file")
        }
        guard bits.allSatisfy({ [1, 2, 4, 8, 16].contains($0) }) else {
            throw .unsupported(.tiff, "samples of \(bits.map(String.init).joined(separator: ",")) bits "
                               + "(1, 2, 4, 8 and 16 are read)")
        }
    }

    /// The Orientation of the first directory (tag 274), or nil when it has none (or one out of 1...8).
    public static func orientation(_ bytes: [UInt8]) -> EXIFOrientation? {
        let file = Reader(bytes: bytes)
        guard isTIFF(bytes), let offset = file.u32(4), let first = file.directory(at: offset) else { return nil }
        return file.values(first, 274)?.first.flatMap(EXIFOrientation.init(rawValue:))
    }

    /// The ICC colour profile of the first directory (tag 34675, InterColorProfile), or nil.
    public static func iccProfile(_ bytes: [UInt8]) -> [UInt8]? {
        let file = Reader(bytes: bytes)
        guard isTIFF(bytes), let offset = file.u32(4), let first = file.directory(at: offset), let entry = first.entries[34675],
              [1, 7].contains(entry.type), let at = file.valueOffset(entry, size: 1), entry.count <= bytes.count - at else { return nil }
        return Array(bytes[at..<(at + entry.count)])
    }

    // MARK: - Directories

    /// A directory: its entries by tag (the first of each), and where the next one starts (0: none).
    struct Directory {
        var entries: [Int: Entry] = [:]
        var next = 0
    }

    /// An entry: its field type, its count, and where its 4-byte value-or-offset field lies.
    struct Entry {
        var type: Int, count: Int, field: Int
    }

    /// TIFF data's bytes in its byte order ("II" little-endian, else big), every read
    /// bounds-checked; also EXIF's (`EXIFOrientation`).
    struct Reader {
        let bytes: [UInt8]
        var little: Bool { bytes.first == 0x49 }

        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= bytes.count else { return nil }
            return little ? Int(bytes[at]) | Int(bytes[at + 1]) << 8 : Int(bytes[at]) << 8 | Int(bytes[at + 1])
        }

        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }

        /// The directory at `offset`, or nil when it does not lie wholly in the file.
        func directory(at offset: Int) -> Directory? {
            guard offset >= 8, let count = u16(offset), count > 0, offset + 2 + count * 12 + 4 <= bytes.count else { return nil }
            var directory = Directory()
            for i in 0..<count {
                let at = offset + 2 + i * 12
                let tag = u16(at)!
                if directory.entries[tag] == nil { directory.entries[tag] = Entry(type: u16(at + 2)!, count: u32(at + 4)!, field: at + 8) }
            }
            directory.next = u32(offset + 2 + count * 12)!
            return directory
        }

        /// `first` (at `offset`) and the directories chained after it, up to the first that does
        /// not lie in the file, one seen before, or the 1,000th.
        func directories(from first: Directory, at offset: Int) -> [Directory] {
            var all = [first], seen: Set<Int> = [offset], next = first.next
            while next != 0, all.count < 1000, seen.insert(next).inserted, let directory = directory(at: next) {
                all.append(directory)
                next = directory.next
            }
            return all
        }

        /// Where the value of `entry` lies: in its field when it fits in 4 bytes, else at the
        /// offset the field holds; nil when that is outside the file.
        func valueOffset(_ entry: Entry, size: Int) -> Int? {
            guard entry.count >= 0, entry.count <= bytes.count else { return nil }
            if entry.count * size <= 4 { return entry.field }
            guard let at = u32(entry.field), at <= bytes.count - entry.count * size else { return nil }
            return at
        }

        /// The BYTE, SHORT or LONG values of `tag` in `directory` (at most `limit`), or nil.
        func values(_ directory: Directory, _ tag: Int, limit: Int = 16) -> [Int]? {
            guard let entry = directory.entries[tag], entry.count >= 1 else { return nil }
            let size: Int
            switch entry.type {
            case 1: size = 1
            case 3: size = 2
            case 4: size = 4
            default: return nil
            }
            guard let at = valueOffset(entry, size: size) else { return nil }
            return (0..<min(entry.count, limit)).compactMap { i in
                size == 1 ? Int(bytes[at + i]) : size == 2 ? u16(at + 2 * i) : u32(at + 4 * i)
            }
        }
    }
}
