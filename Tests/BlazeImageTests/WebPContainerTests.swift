import BlazeImageIO
import Testing

/// WebP's RIFF container read without a decoder: recognised by its header, its chunks walked
/// with every size checked against the data.
@Suite struct WebPContainerTests {
    static func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let n = payload.count
        return Array(type.utf8) + [UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 24)] + payload
            + (n % 2 == 1 ? [0] : [])
    }

    static func file(_ chunks: [UInt8]) -> [UInt8] {
        let n = chunks.count + 4
        return Array("RIFF".utf8) + [UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 24)] + Array("WEBP".utf8) + chunks
    }

    @Test func theHeaderTellsWebPFromOtherRIFFFiles() {
        #expect(ImageFormat(sniffing: Self.file(Self.chunk("VP8 ", [1, 2, 3]))) == .webp)
        #expect(ImageFormat(sniffing: Array("RIFF\u{4}\0\0\0WAVEfmt ".utf8)) == nil, "a WAV file is RIFF too")
        #expect(ImageFormat(sniffing: Array("RIFF".utf8)) == nil)
        #expect { try ImageFile.read(data: Self.file(Self.chunk("VP8 ", [1, 2, 3]))) } throws: { "\($0)".contains("MediaFiles") }
    }

    @Test func chunksAreFoundPastOddSizesAndNeverPastTheData() throws {
        // A VP8X header with the animation flag, an odd-sized ICCP chunk (one pad byte), an EXIF
        // chunk with JPEG's "Exif\0\0" before its TIFF data.
        let tiff: [UInt8] = [0x49, 0x49, 42, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        let bytes = Self.file(Self.chunk("VP8X", [0x02, 0, 0, 0, 9, 0, 0, 9, 0, 0]) + Self.chunk("ICCP", [7, 7, 7])
                              + Self.chunk("EXIF", Array("Exif".utf8) + [0, 0] + tiff))
        #expect(WebPContainer.isAnimated(bytes))
        #expect(WebPContainer.iccProfile(bytes) == [7, 7, 7])
        #expect(WebPContainer.exif(bytes)?.tiff == tiff)
        // Still: no animation flag, no ANIM chunk; an ANIM chunk alone says animation.
        let still = Self.file(Self.chunk("VP8X", [0x20, 0, 0, 0, 9, 0, 0, 9, 0, 0]) + Self.chunk("VP8 ", [1]))
        #expect(!WebPContainer.isAnimated(still) && WebPContainer.exif(still) == nil && WebPContainer.iccProfile(still) == nil)
        #expect(WebPContainer.isAnimated(Self.file(Self.chunk("ANIM", [0, 0, 0, 0, 0, 0]))))
        // A chunk claiming more than the data holds is not read, nor anything after it; an EXIF
        // chunk that is not TIFF data is no EXIF block.
        var cut = Self.file(Self.chunk("ICCP", [1, 2, 3, 4]))
        cut.removeLast()
        #expect(WebPContainer.iccProfile(cut) == nil)
        let huge = Self.file(Array("ICCP".utf8) + [0xFF, 0xFF, 0xFF, 0xFF] + [1, 2] + Self.chunk("EXIF", tiff))
        #expect(WebPContainer.iccProfile(huge) == nil && WebPContainer.exif(huge) == nil)
        #expect(WebPContainer.exif(Self.file(Self.chunk("EXIF", [1, 2, 3, 4]))) == nil)
    }
}
