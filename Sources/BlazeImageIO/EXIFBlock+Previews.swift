extension EXIFBlock {
    /// The block without the pictures it holds of the unedited photo: IFD1 (the thumbnail nearly
    /// every camera and phone writes, a JPEG of some 160x120 pixels, or strips) and the Exif
    /// IFD's maker note (where camera makers keep their own previews). A redacted photo written
    /// with its metadata would otherwise carry the faces unmasked in its thumbnail. IFD0's link
    /// to IFD1 and the maker note's entry are removed, and IFD1's entries, the thumbnail's bytes
    /// and the note's overwritten with zeros, so that no preview survives anywhere in the bytes. The same
    /// block when it holds neither. Nil (drop the whole block) when any of it cannot be walked
    /// safely, or IFD1 links on to a further IFD.
    public func removingPreviews() -> EXIFBlock? {
        var t = tiff
        guard let reader = TIFFReader(t), let ifd0 = reader.u32(4), let count0 = reader.entryCount(ifd0),
              let ifd1 = reader.u32(ifd0 + 2 + 12 * count0) else { return nil }
        if ifd1 != 0 {
            guard let count1 = reader.entryCount(ifd1), reader.u32(ifd1 + 2 + 12 * count1) == 0 else { return nil }
            // The thumbnail's own bytes: a JPEG (offset 0x0201, length 0x0202) or strips
            // (offsets 0x0111, byte counts 0x0117), read before the IFD is overwritten.
            var pictures: [Range<Int>] = []
            for (offsets, lengths) in [(0x0201, 0x0202), (0x0111, 0x0117)] {
                let o = reader.find(offsets, in: ifd1)?.index, l = reader.find(lengths, in: ifd1)?.index
                guard o != nil || l != nil else { continue }
                guard let o, let l, let starts = reader.values(entry: o, of: ifd1), let counts = reader.values(entry: l, of: ifd1),
                      starts.count == counts.count else { return nil }
                for (start, count) in zip(starts, counts) {
                    guard start >= 8, count >= 0, count <= t.count - start else { return nil }
                    pictures.append(start..<(start + count))
                }
            }
            // IFD1's own entries go with the pictures; values it stores elsewhere (resolutions)
            // stay, as another IFD may share them. A picture over IFD0 is malformed.
            let ifd0Table = ifd0..<(ifd0 + 2 + 12 * count0 + 4)
            pictures.append(ifd1..<(ifd1 + 2 + 12 * count1 + 4))
            guard !pictures.contains(where: { $0.overlaps(ifd0Table) }) else { return nil }
            for range in pictures { t.replaceSubrange(range, with: repeatElement(0, count: range.count)) }
            for k in 0..<4 { t[ifd0Table.upperBound - 4 + k] = 0 }   // IFD0 links to no IFD1
        }
        // The maker note, in the Exif IFD (IFD0's tag 0x8769).
        if let pointer = reader.find(0x8769, in: ifd0)?.index {
            guard let exif = reader.u32(ifd0 + 2 + 12 * pointer + 8), let (note, count) = reader.find(0x927C, in: exif) else { return nil }
            if let note {
                let entry = exif + 2 + 12 * note
                guard let type = reader.u16(entry + 2), let size = TIFFReader.typeSize(type), let n = reader.u32(entry + 4) else { return nil }
                let (length, overflow) = n.multipliedReportingOverflow(by: size)
                guard !overflow else { return nil }
                if length > 4 {
                    guard let at = reader.u32(entry + 8), at >= 8, length <= t.count - at else { return nil }
                    t.replaceSubrange(at..<(at + length), with: repeatElement(0, count: length))
                }
                let end = exif + 2 + 12 * count + 4
                guard t[exif..<end] == tiff[exif..<end] else { return nil }   // the note over its own IFD: malformed
                reader.removeEntry(note, of: exif, count: count, in: &t)
            }
        }
        return EXIFBlock(tiff: t)
    }
}
