import BlazeImageIO
import Foundation
import Testing

@testable import BlazeImage

/// The JPEG fixtures and Pillow's pixels for them (Tools/reference/make_jpeg_fixtures.py).
enum JPEGFixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    static func path(_ name: String) -> String { root.appendingPathComponent("images/jpeg/\(name)").path }

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try #require(FileManager.default.contents(atPath: path(name)), "missing \(name)"))
    }

    /// Pillow's decoded size and FNV-1a hash of one file, as stored and after exif_transpose.
    struct Pixels: Sendable, Decodable {
        var width: Int, height: Int, fnv1a64: String
        var upright_width: Int, upright_height: Int, upright_fnv1a64: String
    }

    /// pixels.json, by file name.
    static let pillow: [String: Pixels] = {
        let data = FileManager.default.contents(atPath: root.appendingPathComponent("goldens/jpeg/pixels.json").path) ?? Data()
        return (try? JSONDecoder().decode([String: Pixels].self, from: data)) ?? [:]
    }()

    static func fnv1a64(_ bytes: [UInt8]) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

@Suite struct JPEGTests {
    static let names = JPEGFixtures.pillow.keys.sorted()

    @Test func fixturesArePresent() {
        #expect(Self.names.count == 15)
    }

    @Test(arguments: names) func decodesPillowsPixels(_ name: String) throws {
        let golden = try #require(JPEGFixtures.pillow[name])
        let image = try JPEG.decode(try JPEGFixtures.bytes(name))
        #expect(image.width == golden.width && image.height == golden.height)
        #expect(JPEGFixtures.fnv1a64(image.pixels) == golden.fnv1a64, "pixels differ from Pillow's for \(name)")
    }

    @Test(arguments: names) func appliesEXIFOrientationAsExifTranspose(_ name: String) throws {
        let golden = try #require(JPEGFixtures.pillow[name])
        let image = try ImageFile.read(contentsOf: JPEGFixtures.path(name), applyingOrientation: true)
        #expect(image.width == golden.upright_width && image.height == golden.upright_height)
        #expect(JPEGFixtures.fnv1a64(image.pixels) == golden.upright_fnv1a64, "upright pixels differ for \(name)")
    }

    @Test func readsTheOrientationTag() throws {
        for n in 1...8 {
            #expect(EXIFOrientation(jpeg: try JPEGFixtures.bytes("orientation_\(n).jpg"))?.rawValue == n)
        }
        #expect(EXIFOrientation(jpeg: try JPEGFixtures.bytes("astronaut_baseline.jpg")) == nil)
        // Broken EXIF is ignored, never trapped on: cut the file inside its APP1 segment.
        let bytes = try JPEGFixtures.bytes("orientation_6.jpg")
        for cut in 0..<60 { _ = EXIFOrientation(jpeg: Array(bytes.prefix(cut))) }
    }

    @Test func grayIsReplicated() throws {
        let image = try JPEG.decode(try JPEGFixtures.bytes("astronaut_gray.jpg"))
        let p = image.pixels
        var replicated = true
        for i in stride(from: 0, to: p.count, by: 3) where p[i] != p[i + 1] || p[i] != p[i + 2] { replicated = false }
        #expect(replicated)
    }

    @Test(arguments: ["astronaut_baseline.jpg", "astronaut_progressive.jpg"])
    func truncatedDataIsAnError(_ name: String) throws {
        let bytes = try JPEGFixtures.bytes(name)
        for cut in [3, 20, 200, bytes.count / 2, bytes.count - 100] {
            #expect(throws: ImageError.self) { try JPEG.decode(Array(bytes.prefix(cut))) }
        }
        // Only the final EOI marker missing: an error or the whole image, never grey-padded rows.
        let full = try JPEG.decode(bytes)
        if let image = try? JPEG.decode(Array(bytes.dropLast(2))) { #expect(image == full) }
    }

    @Test func truncationIsReportedAsSuch() throws {
        let bytes = try JPEGFixtures.bytes("astronaut_baseline.jpg")
        do {
            _ = try JPEG.decode(Array(bytes.prefix(bytes.count / 2)))
            Issue.record("no error")
        } catch {
            guard case .truncatedData(.jpeg, _) = error else { Issue.record("\(error)"); return }
        }
    }

    /// A header claiming far more pixels than the data can hold (issue 40: 629 bytes claiming
    /// 6200x16000 took 628 MB and decoded to grey) is refused before the pixels are allocated;
    /// a real flat picture, the most compressible there is, is not.
    @Test func pixelClaimsAreCheckedAgainstTheDataPresent() throws {
        var bomb = try JPEGFixtures.bytes("astronaut_baseline.jpg")
        let sof = try #require((0..<(bomb.count - 9)).first { bomb[$0] == 0xFF && bomb[$0 + 1] == 0xC0 })
        bomb.replaceSubrange((sof + 5)..<(sof + 9), with: [0x3E, 0x80, 0x18, 0x38])   // 16000 rows of 6200
        do {
            _ = try JPEG.decode(bomb)
            Issue.record("no error")
        } catch {
            guard case .truncatedData(.jpeg, let detail) = error else { Issue.record("\(error)"); return }
            #expect(detail.contains("6200x16000"))
        }
        let flat = try RGBImage(width: 4000, height: 3000, pixels: [UInt8](repeating: 128, count: 4000 * 3000 * 3))
        let encoded = try JPEG.encode(flat, quality: 50)
        #expect(try JPEG.decode(encoded) == flat)
    }

    @Test func corruptDataIsAnError() throws {
        var bytes = try JPEGFixtures.bytes("astronaut_baseline.jpg")
        // Overwrite the frame header's marker (SOF0) region and the Huffman tables with junk.
        for i in 20..<400 { bytes[i] = UInt8(truncatingIfNeeded: i &* 37) }
        #expect(throws: ImageError.self) { try JPEG.decode(bytes) }
        #expect(throws: ImageError.self) { try JPEG.decode([0xFF, 0xD8, 0xFF]) }
        #expect(throws: ImageError.self) { try JPEG.decode([]) }
    }

    @Test func sizeLimitsAreCheckedFromTheHeader() throws {
        let bytes = try JPEGFixtures.bytes("two_faces_1280x853.jpg")
        let limits = ImageLimits(maxWidth: 1000, maxHeight: 1000, maxPixels: 1 << 30)
        #expect(throws: ImageError.tooLarge(width: 1280, height: 853, limits: limits)) { try JPEG.decode(bytes, limits: limits) }
    }

    @Test func formatIsSniffedFromTheBytes() throws {
        #expect(ImageFormat(sniffing: try JPEGFixtures.bytes("astronaut_gray.jpg")) == .jpeg)
        #expect(ImageFormat(sniffing: Array("P6\n1 1\n255\n".utf8)) == .pnm)
        #expect(ImageFormat(sniffing: PNGBytes.signature) == .png)
        #expect(ImageFormat(sniffing: Array("GIF89a".utf8)) == nil)
        #expect(throws: ImageError.unknownFormat(firstBytes: "47 49 46 38 39 61")) { try ImageFile.read(data: Array("GIF89a".utf8)) }
        #expect(throws: ImageError.unknownFormat(firstBytes: "")) { try ImageFile.read(data: []) }
    }
}
