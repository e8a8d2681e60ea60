/// EXIF blocks as cameras write them, built byte by byte for tests.
public enum EXIFSamples {
    /// Where the parts of `withPreviews` lie.
    public struct Layout: Sendable {
        public let makeValue: Range<Int>, dateValue: Range<Int>, makerNote: Range<Int>, ifd1: Int, thumbnail: Range<Int>
        public let ifd0Link: Int   // IFD0's next-IFD offset
    }

    /// TIFF data as a camera's: IFD0 with Make "Canon" and the Exif IFD's pointer, linked to
    /// IFD1; the Exif IFD with DateTimeOriginal and a maker note of `makerNoteSize` bytes; IFD1
    /// describing `thumbnail` as a JPEG (Compression 6, JPEGInterchangeFormat and its length),
    /// its bytes last.
    public static func withPreviews(little: Bool, thumbnail: [UInt8], makerNoteSize: Int = 64) -> (tiff: [UInt8], layout: Layout) {
        func u16(_ v: Int) -> [UInt8] { little ? [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] : [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { little ? u16(v & 0xFFFF) + u16(v >> 16) : u16(v >> 16) + u16(v & 0xFFFF) }
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: [UInt8]) -> [UInt8] {
            u16(tag) + u16(type) + u32(count) + value + [UInt8](repeating: 0, count: 4 - value.count)
        }
        // IFD0 at 8 (2 entries: 8 + 30 = 38), "Canon\0" at 38, the Exif IFD at 44 (2 entries, to
        // 74), the date at 74, the maker note at 94, IFD1 after it (3 entries, 42 bytes), the
        // thumbnail last.
        let note = 94, ifd1 = note + makerNoteSize, thumb = ifd1 + 42
        var t: [UInt8] = little ? [0x49, 0x49, 42, 0] : [0x4D, 0x4D, 0, 42]
        t += u32(8)
        t += u16(2) + entry(0x010F, 2, 6, u32(38)) + entry(0x8769, 4, 1, u32(44)) + u32(ifd1)
        t += Array("Canon".utf8) + [0]
        t += u16(2) + entry(0x9003, 2, 20, u32(74)) + entry(0x927C, 7, makerNoteSize, u32(note)) + u32(0)
        t += Array("2026:12:06 10:00:00".utf8) + [0]
        t += (0..<makerNoteSize).map { UInt8(truncatingIfNeeded: 0x41 + $0 % 26) }
        t += u16(3) + entry(0x0103, 3, 1, u16(6)) + entry(0x0201, 4, 1, u32(thumb)) + entry(0x0202, 4, 1, u32(thumbnail.count)) + u32(0)
        t += thumbnail
        return (t, Layout(makeValue: 38..<44, dateValue: 74..<94, makerNote: note..<ifd1, ifd1: ifd1,
                          thumbnail: thumb..<(thumb + thumbnail.count), ifd0Link: 34))
    }
}
