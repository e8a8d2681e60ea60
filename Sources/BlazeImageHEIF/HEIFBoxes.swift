/// What a HEIF file's boxes say about its derived images (grids, overlays), read from the bytes
/// before libheif parses or allocates anything: the items each is built from (its `dimg`
/// references in the `iref` box of the file's `meta`). A few hundred bytes can otherwise claim
/// a grid of thousands of tiles, or one tile used a thousand times, and libheif allocates the
/// whole canvas and decodes every tile before it finds out.
struct HEIFDerivations {
    /// Each derived image's item and the items it is built from, in order.
    private(set) var images: [(item: UInt32, from: [UInt32])] = []

    /// Reads the derivations of `bytes`; boxes it cannot follow end the reading (libheif then
    /// reports what is wrong with them).
    init(_ bytes: [UInt8]) {
        guard let meta = Self.children(bytes, 0..<bytes.count).first(where: { $0.type == "meta" }),
              meta.body.count >= 4,
              let iref = Self.children(bytes, (meta.body.lowerBound + 4)..<meta.body.upperBound).first(where: { $0.type == "iref" }),
              iref.body.count >= 4 else { return }
        let wide = bytes[iref.body.lowerBound] != 0   // version 1: 32-bit item IDs
        for reference in Self.children(bytes, (iref.body.lowerBound + 4)..<iref.body.upperBound) where reference.type == "dimg" {
            var o = reference.body.lowerBound
            func id() -> UInt32? {
                let n = wide ? 4 : 2
                guard o + n <= reference.body.upperBound else { return nil }
                defer { o += n }
                return bytes[o..<(o + n)].reduce(0) { $0 << 8 | UInt32($1) }
            }
            guard let item = id(), o + 2 <= reference.body.upperBound else { return }
            let count = Int(bytes[o]) << 8 | Int(bytes[o + 1])
            o += 2
            var from: [UInt32] = []
            for _ in 0..<count {
                guard let tile = id() else { break }
                from.append(tile)
            }
            images.append((item, from))
        }
    }

    /// The boxes in `range` of `bytes`: type and body (after the header); a box whose size runs
    /// past the range, or is under its header, ends the list.
    static func children(_ bytes: [UInt8], _ range: Range<Int>) -> [(type: String, body: Range<Int>)] {
        func u32(_ o: Int) -> Int { bytes[o..<(o + 4)].reduce(0) { $0 << 8 | Int($1) } }
        var boxes: [(String, Range<Int>)] = []
        var o = range.lowerBound
        while o + 8 <= range.upperBound {
            var size = u32(o), header = 8
            let type = String(decoding: bytes[(o + 4)..<(o + 8)], as: UTF8.self)
            if size == 1 {   // a 64-bit size follows the type
                guard o + 16 <= range.upperBound, bytes[(o + 8)..<(o + 12)].allSatisfy({ $0 == 0 }) else { break }
                (size, header) = (bytes[(o + 12)..<(o + 16)].reduce(0) { $0 << 8 | Int($1) }, 16)
            } else if size == 0 {   // to the end
                size = range.upperBound - o
            }
            guard size >= header, size <= range.upperBound - o else { break }
            boxes.append((type, (o + header)..<(o + size)))
            o += size
        }
        return boxes
    }
}
