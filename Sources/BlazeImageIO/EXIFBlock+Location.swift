extension EXIFBlock {
    /// A block of TIFF data ("II*\0" or "MM\0*" first); nil when `tiff` does not start so.
    public init?(tiff: [UInt8]) {
        guard tiff.count >= 8, tiff.starts(with: [0x49, 0x49, 42, 0]) || tiff.starts(with: [0x4D, 0x4D, 0, 42]) else {
            return nil
        }
        self.tiff = tiff
    }

    /// The block without its location: IFD0's GPSInfo pointer (tag 0x8825) is removed and the
    /// GPS IFD it pointed to, with its values, is overwritten with zeros, so that no coordinate
    /// survives anywhere in the bytes. The same block when it has no GPS tag. Nil (drop the
    /// whole block) when IFD0 or the GPS IFD cannot be walked safely: a malformed block is
    /// never passed on with its location perhaps still in it.
    public func removingLocation() -> EXIFBlock? {
        var t = tiff
        guard let reader = TIFFReader(t), let ifd0 = reader.u32(4), let count = reader.u16(ifd0),
              ifd0 + 2 + 12 * count + 4 <= t.count else { return nil }
        guard let k = (0..<count).first(where: { reader.u16(ifd0 + 2 + 12 * $0) == 0x8825 }) else { return self }
        let entry = ifd0 + 2 + 12 * k
        guard let gps = reader.u32(entry + 8), reader.zeroIFD(gps, in: &t) else { return nil }
        let end = ifd0 + 2 + 12 * count + 4
        guard t[ifd0..<end] == tiff[ifd0..<end] else { return nil }   // a GPS IFD over IFD0: malformed
        reader.removeEntry(k, of: ifd0, count: count, in: &t)
        return EXIFBlock(tiff: t)
    }
}

/// Bounds-checked reads of TIFF data in its own byte order.
struct TIFFReader {
    let t: [UInt8]
    let little: Bool

    init?(_ t: [UInt8]) {
        guard t.count >= 8 else { return nil }
        switch (t[0], t[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        self.t = t
        guard u16(2) == 42 else { return nil }
    }

    func u16(_ o: Int) -> Int? {
        guard o >= 0, o <= t.count - 2 else { return nil }
        return little ? Int(t[o]) | Int(t[o + 1]) << 8 : Int(t[o]) << 8 | Int(t[o + 1])
    }

    func u32(_ o: Int) -> Int? {
        guard let a = u16(o), let b = u16(o + 2) else { return nil }
        return little ? a | b << 16 : a << 16 | b
    }

    func put16(_ v: Int, at o: Int, in bytes: inout [UInt8]) {
        let (hi, lo) = (UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF))
        (bytes[o], bytes[o + 1]) = little ? (lo, hi) : (hi, lo)
    }

    /// Removes entry `k` of the IFD at `ifd` (holding `count` entries, checked to fit) from
    /// `bytes`: the entries after it, then the next-IFD offset, move up one slot, the freed last
    /// 12 bytes become zeros and the count drops by one. Values stored elsewhere keep their offsets.
    func removeEntry(_ k: Int, of ifd: Int, count: Int, in bytes: inout [UInt8]) {
        let entry = ifd + 2 + 12 * k, end = ifd + 2 + 12 * count + 4
        bytes.replaceSubrange(entry..<(end - 12), with: bytes[(entry + 12)..<end])
        bytes.replaceSubrange((end - 12)..<end, with: repeatElement(0, count: 12))
        put16(count - 1, at: ifd, in: &bytes)
    }

    /// The entry count of the IFD at `ifd`; nil when the IFD does not fit the data.
    func entryCount(_ ifd: Int) -> Int? {
        guard ifd >= 8, let count = u16(ifd), count <= 1000, ifd + 2 + 12 * count + 4 <= t.count else { return nil }
        return count
    }

    /// The index of the first entry with `tag` in the IFD at `ifd`, and the IFD's entry count;
    /// nil when the IFD does not fit the data (the index is nil when no entry has the tag).
    func find(_ tag: Int, in ifd: Int) -> (index: Int?, count: Int)? {
        entryCount(ifd).map { count in ((0..<count).first { u16(ifd + 2 + 12 * $0) == tag }, count) }
    }

    /// The SHORT or LONG values of entry `k` of the IFD at `ifd` (at most 4096 of them), or nil.
    func values(entry k: Int, of ifd: Int) -> [Int]? {
        let entry = ifd + 2 + 12 * k
        guard let type = u16(entry + 2), type == 3 || type == 4, let n = u32(entry + 4), (1...4096).contains(n) else { return nil }
        let size = type == 3 ? 2 : 4
        let at = n * size <= 4 ? entry + 8 : u32(entry + 8)
        guard let at, at >= 0, n * size <= t.count - at else { return nil }
        return (0..<n).compactMap { size == 2 ? u16(at + 2 * $0) : u32(at + 4 * $0) }
    }

    /// Bytes per value of TIFF field types 1...13; nil for an unknown type.
    static func typeSize(_ type: Int) -> Int? {
        switch type {
        case 1, 2, 6, 7: 1
        case 3, 8: 2
        case 4, 9, 11, 13: 4
        case 5, 10, 12: 8
        default: nil
        }
    }

    /// Overwrites the IFD at `offset`, and every value it stores outside its entries, with
    /// zeros in `bytes`; false (nothing to trust) when any of it lies outside the data or a
    /// field type is unknown.
    func zeroIFD(_ offset: Int, in bytes: inout [UInt8]) -> Bool {
        guard offset >= 8, let count = u16(offset), count <= 1000 else { return false }
        let end = offset + 2 + 12 * count + 4
        guard end <= t.count else { return false }
        var ranges: [Range<Int>] = [offset..<end]
        for k in 0..<count {
            let entry = offset + 2 + 12 * k
            guard let type = u16(entry + 2), let n = u32(entry + 4), let size = Self.typeSize(type) else { return false }
            let (length, overflow) = n.multipliedReportingOverflow(by: size)
            guard !overflow else { return false }
            if length > 4 {
                guard let at = u32(entry + 8), at >= 8, length <= t.count - at else { return false }
                ranges.append(at..<(at + length))
            }
        }
        for range in ranges { bytes.replaceSubrange(range, with: repeatElement(0, count: range.count)) }
        return true
    }
}
