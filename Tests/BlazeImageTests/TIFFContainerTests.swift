import BlazeImageIO
import Testing

/// TIFF's header and directories read without a decoder: recognised by its header (and BMP by
/// its), every offset checked against the data, and what FFmpeg's decoder would read wrong or in
/// part refused before it is asked.
@Suite struct TIFFContainerTests {
    /// A little-endian file: the header, then at 8 one directory of `entries` (tag, type, count,
    /// value field) chained to `next`, then `tail`.
    static func file(_ entries: [(Int, Int, Int, Int)], next: Int = 0, tail: [UInt8] = []) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { u16(v & 0xFFFF) + u16(v >> 16) }
        return [0x49, 0x49, 42, 0] + u32(8) + u16(entries.count) + entries.flatMap { u16($0.0) + u16($0.1) + u32($0.2) + u32($0.3) }
            + u32(next) + tail
    }

    /// An 8-bit RGB picture's tags, uncompressed, its one strip the file's bytes 8..<20 (what
    /// they hold is not read here).
    static let rgb = [(258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 2), (273, 4, 1, 8), (277, 3, 1, 3), (279, 4, 1, 12)]

    @Test func theHeaderTellsTIFFAndBMPFromOtherFiles() {
        #expect(ImageFormat(sniffing: Self.file(Self.rgb)) == .tiff)
        #expect(ImageFormat(sniffing: [0x4D, 0x4D, 0, 42, 0, 0, 0, 8]) == .tiff, "big-endian")
        #expect(ImageFormat(sniffing: [0x49, 0x49, 43, 0, 8, 0, 0, 0]) == .tiff, "BigTIFF, to be refused by name")
        #expect(ImageFormat(sniffing: [0x49, 0x49, 42]) == nil && ImageFormat(sniffing: [0x49, 0x4D, 42, 0]) == nil)
        let bmp: [UInt8] = Array("BM".utf8) + [70, 0, 0, 0, 0, 0, 0, 0, 54, 0, 0, 0, 40, 0, 0, 0, 1, 0, 0, 0]
        #expect(ImageFormat(sniffing: bmp) == .bmp)
        var notBMP = bmp
        notBMP[14] = 41   // no BMP version has a 41-byte header
        #expect(ImageFormat(sniffing: notBMP) == nil && ImageFormat(sniffing: Array("BMP files".utf8)) == nil)
        #expect { try ImageFile.read(data: Self.file(Self.rgb)) } throws: { "\($0)".contains("MediaFiles") }
        #expect { try ImageFile.readPhoto(data: bmp) } throws: { "\($0)".contains("MediaFiles") }
    }

    @Test func orientationAndProfileAreReadInsideTheDataOnly() throws {
        let icc: [UInt8] = Array(1...9)
        let bytes = Self.file(Self.rgb + [(274, 3, 1, 8), (34675, 7, icc.count, 8 + 2 + 8 * 12 + 4)], tail: icc)
        try TIFFContainer.checkReadable(bytes)
        #expect(TIFFContainer.orientation(bytes) == .rotated90CounterClockwise && TIFFContainer.iccProfile(bytes) == icc)
        // A profile said to run past the end, a directory past it, an orientation out of 1...8: nil.
        #expect(TIFFContainer.iccProfile(Self.file([(34675, 7, 100, 30)])) == nil)
        #expect(TIFFContainer.orientation(Self.file([(274, 3, 1, 9)])) == nil)
        #expect(TIFFContainer.orientation([0x49, 0x49, 42, 0, 200, 0, 0, 0]) == nil)
    }

    @Test func aLoopOfDirectoriesOrOneOutsideTheFileEndsTheWalk() throws {
        // The directory chained to itself is one page; so is one chained past the end.
        try TIFFContainer.checkReadable(Self.file(Self.rgb, next: 8))
        try TIFFContainer.checkReadable(Self.file(Self.rgb, next: 1 << 30))
        #expect { try TIFFContainer.checkReadable([0x49, 0x49, 42, 0, 0xFF, 0xFF, 0xFF, 0x7F]) } throws: { "\($0)".contains("outside the file") }
        #expect { try TIFFContainer.checkReadable(Array(Self.file(Self.rgb).prefix(30))) } throws: { "\($0)".contains("outside the file") }
    }

    @Test func whatFFmpegReadsWrongIsRefusedByName() {
        let cases: [([(Int, Int, Int, Int)], String)] = [
            ([(258, 3, 1, 8), (259, 3, 1, 7), (262, 3, 1, 6), (277, 3, 1, 3)], "compressed as JPEG (compression 7)"),
            ([(258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 6), (277, 3, 1, 3)], "YCbCr (photometric 6)"),
            ([(258, 3, 1, 8), (259, 3, 1, 1), (277, 3, 1, 3)], "no PhotometricInterpretation"),
            (Self.rgb + [(339, 3, 1, 2)], "floating-point or signed samples"),
            ([(258, 3, 1, 32), (259, 3, 1, 1), (262, 3, 1, 1), (273, 4, 1, 8), (279, 4, 1, 4)], "samples of 32 bits"),
            ([(258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 2), (277, 3, 1, 3)], "where its picture's strips lie is not said"),
            ([(258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 2), (273, 4, 1, 8), (277, 3, 1, 3), (279, 4, 1, 1000)],
             "cut short: strip 1 of 1 runs past the end of the file"),
            (Self.rgb + [(330, 4, 1, 100)], "a camera raw file"),
            (Self.rgb + [(254, 4, 1, 1)], "a camera raw file"),
        ]
        for (entries, reason) in cases {
            #expect { try TIFFContainer.checkReadable(Self.file(entries)) } throws: { "\($0)".contains(reason) }
        }
    }
}
