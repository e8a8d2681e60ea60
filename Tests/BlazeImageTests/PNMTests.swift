import BlazeImageIO
import Foundation
import Testing

@testable import BlazeImage

@Suite struct PNMTests {
    /// A 5x3 image with every channel different.
    static func sample() throws -> RGBImage {
        try RGBImage(width: 5, height: 3, pixels: (0..<45).map { UInt8(($0 * 37 + 11) % 256) })
    }

    static func gray() throws -> RGBImage {
        try RGBImage(width: 4, height: 2, pixels: [0, 1, 2, 127, 128, 200, 254, 255].flatMap { [UInt8($0), UInt8($0), UInt8($0)] })
    }

    @Test func ppmRoundTrips() throws {
        let image = try Self.sample()
        #expect(try PNM.decode(try PNM.encode(image)) == image)
        #expect(try PNM.decode(try PNM.encode(image, sixteenBit: true)) == image)
        #expect(try ImageFile.read(data: try PNM.encode(image)) == image)
    }

    @Test func pgmRoundTripsGrayImages() throws {
        let image = try Self.gray()
        let encoded = try PNM.encode(image, as: .pgm)
        #expect(encoded.starts(with: Array("P5\n4 2\n255\n".utf8)))
        #expect(try PNM.decode(encoded) == image)
        #expect(try PNM.decode(try PNM.encode(image, as: .pgm, sixteenBit: true)) == image)
    }

    @Test func pgmStoresPillowsLuma() throws {
        let image = try RGBImage(width: 1, height: 1, pixels: [200, 100, 50])
        // Pillow: convert("L") of (200, 100, 50) = (19595*200 + 38470*100 + 7471*50 + 32768) >> 16 = 124.
        #expect(try PNM.decode(try PNM.encode(image, as: .pgm)).pixels == [124, 124, 124])
    }

    @Test func readsASCIIAndCommentsAndOtherMaxvals() throws {
        let p3 = "P3\n# a comment\n2 1 # width height\n15\n15 0 7  1 2 3\n"
        #expect(try PNM.decode(Array(p3.utf8)).pixels == [255, 0, 119, 17, 34, 51])
        let p2 = "P2 2 2 65535 0 65535 32768 257"
        #expect(try PNM.decode(Array(p2.utf8)).pixels == [0, 0, 0, 255, 255, 255, 128, 128, 128, 1, 1, 1])
        // Binary 16-bit, big-endian: 0x0101 = 257 -> 1.
        #expect(try PNM.decode(Array("P5 1 1 65535\n".utf8) + [1, 1]).pixels == [1, 1, 1])
    }

    @Test func writesAndReadsFiles() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/x.ppm"
        try PNM.write(try Self.sample(), to: path)
        #expect(try PNM.read(contentsOf: path) == (try Self.sample()))
        #expect(try ImageFile.read(contentsOf: path) == (try Self.sample()))
    }

    @Test func badDataGivesErrors() throws {
        let good = try PNM.encode(try Self.sample())
        // Truncated anywhere: in the header, or in the pixels.
        for cut in [2, 4, 8, good.count - 1, good.count - 20] {
            #expect(throws: ImageError.self) { try PNM.decode(Array(good.prefix(cut))) }
        }
        #expect(throws: ImageError.self) { try PNM.decode(Array("P6 2 2 0\n".utf8) + [UInt8](repeating: 0, count: 12)) }
        #expect(throws: ImageError.self) { try PNM.decode(Array("P5 2 1 10\n".utf8) + [5, 11]) }   // above maxval
        #expect(throws: ImageError.self) { try PNM.decode(Array("P6 x 2 255\n".utf8)) }
        #expect(throws: ImageError.self) { try PNM.decode(Array("P6 0 2 255\n".utf8)) }
        #expect(throws: ImageError.self) { try PNM.decode(Array("P3 2 1 255 1 2 3 4 5".utf8)) }     // one sample short
        #expect(throws: ImageError.self) { try PNM.decode(Array("P4 1 1\n".utf8) + [0]) }           // PBM: unsupported
        #expect(throws: ImageError.self) { try PNM.decode(Array("P6 9999999999 1 255\n".utf8)) }
    }

    @Test func limitsAreCheckedBeforeAllocating() {
        let limits = ImageLimits(maxWidth: 100, maxHeight: 100, maxPixels: 10_000)
        #expect(throws: ImageError.tooLarge(width: 60000, height: 60000, limits: limits)) {
            try PNM.decode(Array("P6 60000 60000 255\n".utf8), limits: limits)
        }
    }
}
