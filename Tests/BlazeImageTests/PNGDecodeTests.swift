import BlazeImageIO
import Testing

@testable import BlazeImage

@Suite struct PNGDecodeTests {
    @Test("decodes every colour type and bit depth like Pillow", arguments: Fixtures.names)
    func decodesFixture(_ name: String) throws {
        let image = try PNG.read(contentsOf: try Fixtures.path("\(name).png"))
        #expect(image.width == Fixtures.width)
        #expect(image.height == Fixtures.height)
        #expect(image.pixels == (try Fixtures.bytes("\(name).rgb")))
    }

    @Test("16-bit samples are scaled with rounding, all 65536 values")
    func scales16BitWithRounding() throws {
        let image = try PNG.decode(try Fixtures.bytes("gray16_ramp.png"))
        #expect(image.width == 256 && image.height == 256)
        var mismatches = 0
        for v in 0..<65536 {
            let expected = UInt8((v * 255 + 32767) / 65535)
            let pixel = image[v % 256, v / 256]
            if pixel != (expected, expected, expected) { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    @Test("not a PNG")
    func refusesNonPNG() {
        #expect(throws: ImageError.notPNG) { try PNG.decode(Array("GIF89a, definitely not a PNG".utf8)) }
        #expect(throws: ImageError.notPNG) { try PNG.decode([]) }
        #expect(throws: ImageError.notPNG) { try PNG.decode([137, 80, 78, 72]) }
    }

    @Test("every truncation is reported as truncated")
    func refusesEveryTruncation() throws {
        let png = try Fixtures.bytes("palette4_trns.png")
        for length in 1..<png.count {
            do {
                _ = try PNG.decode(Array(png[..<length]))
                Issue.record("a \(length)-byte prefix decoded")
            } catch {
                guard case .truncated(let detail) = error else {
                    Issue.record("a \(length)-byte prefix gave \(error)")
                    continue
                }
                #expect(detail.contains("data ends after \(length) bytes"))
            }
        }
    }

    @Test("a bad CRC in a critical chunk is refused")
    func refusesBadCRC() throws {
        let png = try Fixtures.bytes("rgb8.png")
        for type in ["IHDR", "IDAT"] {
            let chunk = try #require(PNGBytes.chunks(png).first { $0.type == type })
            var broken = png
            broken[chunk.offset + chunk.length - 1] ^= 0x01  // last byte of the CRC
            #expect {
                try PNG.decode(broken)
            } throws: { error in
                guard case .corrupt(let detail) = error as? ImageError else { return false }
                return detail.contains(type) && detail.contains("CRC")
            }
        }
    }

    @Test("no single-byte corruption crashes the decoder")
    func survivesEveryByteFlip() throws {
        let png = try Fixtures.bytes("palette2_trns_interlaced.png")
        for offset in png.indices {
            var broken = png
            broken[offset] ^= 0xa5
            _ = try? PNG.decode(broken)  // either outcome is fine; no trap, no crash
        }
    }

    @Test("a huge header is refused before allocating")
    func refusesHugeHeader() {
        let idat = PNGBytes.chunk("IDAT", [0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])
        let iend = PNGBytes.chunk("IEND", [])
        let header = PNGBytes.signature + PNGBytes.ihdr(width: 65535, height: 65535)
        let expected = ImageError.tooLarge(width: 65535, height: 65535, limits: .default)
        #expect(throws: expected) { try PNG.decode(header + idat + iend) }
        #expect(throws: expected) { try PNG.decode(header) }  // no need to read further
        #expect(expected.description.contains("65535x65535"))
    }

    @Test("custom limits are applied to width, height and pixel count")
    func appliesLimits() throws {
        let png = try Fixtures.bytes("rgb8.png")  // 13 x 11
        let cases = [
            ImageLimits(maxWidth: 12, maxHeight: 100, maxPixels: 1000),
            ImageLimits(maxWidth: 100, maxHeight: 10, maxPixels: 1000),
            ImageLimits(maxWidth: 100, maxHeight: 100, maxPixels: 142),
        ]
        for limits in cases {
            #expect(throws: ImageError.tooLarge(width: 13, height: 11, limits: limits)) {
                try PNG.decode(png, limits: limits)
            }
        }
        let exact = ImageLimits(maxWidth: 13, maxHeight: 11, maxPixels: 143)
        #expect(try PNG.decode(png, limits: exact).width == 13)
    }

    @Test("a zero size is refused")
    func refusesZeroSize() {
        let png = PNGBytes.signature + PNGBytes.ihdr(width: 0, height: 5) + PNGBytes.chunk("IEND", [])
        #expect(throws: ImageError.invalidSize(width: 0, height: 5)) { try PNG.decode(png) }
    }

    @Test("a palette image without PLTE is refused")
    func refusesMissingPalette() throws {
        let png = try Fixtures.bytes("palette8.png")
        let plte = try #require(PNGBytes.chunks(png).first { $0.type == "PLTE" })
        let broken = Array(png[..<plte.offset] + png[(plte.offset + plte.length)...])
        #expect {
            try PNG.decode(broken)
        } throws: { error in
            guard case .corrupt(let detail) = error as? ImageError else { return false }
            return detail.contains("PLTE")
        }
    }
}
