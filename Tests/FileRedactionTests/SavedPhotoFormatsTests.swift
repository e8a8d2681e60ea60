import BlazeImageIO
import FaceRedaction
import FileRedaction
import Foundation
import MediaFiles
import Testing

/// Photos as browsers save them and Android phones share them, WebP and AVIF, redacted through
/// the public API as `blazeface redact` redacts them (WebP through FFmpeg's decoder, AVIF through
/// libheif), and found by the folder walks of `detect`, `analyze` and `landmarks`.
@Suite struct SavedPhotoFormatsTests {
    static let fixtures = PhotoRedactionTests.root.appendingPathComponent("Tests/Fixtures/images").path

    /// `ffmpeg INPUT... OPTIONS... OUTPUT`, the file's bytes (Tools/install-deps.sh installs
    /// ffmpeg, whose libwebp encoders write WebP).
    static func encode(_ input: [String], _ output: String, _ options: [String]) throws -> [UInt8] {
        let made = try VideoRedactionTests.sh("ffmpeg", ["-v", "error", "-y"] + input + options + [output])
        try #require(made.status == 0, "ffmpeg makes the WebP: \(made.stderr)")
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
    }

    /// A RIFF chunk: its type, little-endian size, payload, and a pad byte to an even size.
    static func chunk(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        let n = payload.count
        return Array(type.utf8) + [UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 24)] + payload
            + (n % 2 == 1 ? [0] : [])
    }

    /// The extended file (VP8X) a camera app writes: `simple`'s picture chunk between an ICCP
    /// chunk and an EXIF chunk, as the container specification orders them.
    static func extended(_ simple: [UInt8], width: Int, height: Int, icc: [UInt8], exif: [UInt8]) -> [UInt8] {
        func u24(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF)] }
        let header = chunk("VP8X", [0x20 | 0x08, 0, 0, 0] + u24(width - 1) + u24(height - 1))   // ICC and EXIF flags
        let body = Array("WEBP".utf8) + header + chunk("ICCP", icc) + Array(simple[12...]) + chunk("EXIF", exif)
        let n = body.count
        return Array("RIFF".utf8) + [UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 24)] + body
    }

    /// A phone's EXIF block: Make, Orientation 6 (turn 90 degrees clockwise) and GPS.
    static func exifTurnedWithGPS() throws -> EXIFBlock {
        let block = try PhotoRedactionTests.exifWithGPS(orientation: 6)
        try #require(block.orientation == .rotated90Clockwise && block.removingLocation() != block)
        return block
    }

    @Test func aWebPPhotoIsRedactedWithItsOrientationColourProfileAndMetadataPolicy() throws {
        let dir = try VideoRedactionTests.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let png = Self.fixtures + "/astronaut_223x231.png"
        let simple = try Self.encode(["-i", png], dir + "/simple.webp", ["-c:v", "libwebp", "-quality", "90"])
        #expect(ImageFormat(sniffing: simple) == .webp)
        let icc = try #require(try PNG.iccProfile([UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/two_faces_1280x853.png")))))
        let exif = try Self.exifTurnedWithGPS()
        let input = dir + "/IMG_0001.webp"
        try Data(Self.extended(simple, width: 223, height: 231, icc: icc, exif: exif.tiff)).write(to: URL(fileURLWithPath: input))

        // Read upright (the EXIF orientation applied, as for JPEG), with its profile and EXIF.
        let photo = try Pictures.readPhoto(contentsOf: input)
        #expect(photo.format == .webp && (photo.image.width, photo.image.height) == (231, 223))
        #expect(photo.iccProfile == icc && photo.exif == exif.upright() && photo.exif?.orientation == .upright)
        // Close to the PNG it was made from, turned (a lossy encode at quality 90).
        let reference = try PNG.read(contentsOf: png).applying(.rotated90Clockwise)
        let mse = zip(photo.image.pixels, reference.pixels).reduce(0.0) { $0 + pow(Double($1.0) - Double($1.1), 2) } / Double(reference.pixels.count)
        #expect(10 * log10(255 * 255 / mse) > 30, "PSNR against the PNG")

        let redactor = try FaceRedactor()
        let cases: [(flags: [String], metadata: MetadataPolicy, exif: EXIFBlock?)] = [
            ([], .strip, nil),
            (["--keep-metadata"], .keep(location: false), exif.upright().removingLocation()),
        ]
        for (n, c) in cases.enumerated() {
            let (redacted, bytes) = try PhotoRedactionTests.redactedByBoth(redactor, input, in: dir, n, flags: c.flags, metadata: c.metadata)
            #expect(redacted.faces == 1 && (redacted.width, redacted.height) == (231, 223))
            #expect(EXIFBlock(file: bytes) == c.exif, "\(c.flags): EXIF only when asked, never GPS unless asked")
            #expect(JPEG.iccProfile(bytes) == icc, "the colour profile is kept")
        }
        // In a folder run it comes out as JPEG under the same name, masked.
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: input, toPath: dir + "/in/IMG_0001.webp")
        let run = try PhotoRedactionTests.cli(["redact", dir + "/in", dir + "/out"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/out/IMG_0001.jpg")) == Data(contentsOf: URL(fileURLWithPath: dir + "/library-0.jpg")))
    }

    @Test func aLosslessWebPWithAlphaIsReadAndAnAnimationIsRefusedWithNothingWritten() throws {
        let dir = try VideoRedactionTests.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Lossless, with alpha (dropped: the picture's colour is what is searched and written).
        let lossless = try Self.encode(["-i", Self.fixtures + "/astronaut_rgba.png"], dir + "/alpha.webp", ["-c:v", "libwebp", "-lossless", "1"])
        let reference = try PNG.read(contentsOf: Self.fixtures + "/astronaut_rgba.png")
        let read = try Pictures.read(data: lossless, upright: true)
        #expect((read.width, read.height) == (reference.width, reference.height))
        let redacted = try FaceRedactor().redactPhoto(at: dir + "/alpha.webp", to: dir + "/alpha.png")
        #expect(redacted.faces == 1)

        // An animation (three frames that differ) is refused by the reader, the library and the CLI.
        let animated = try Self.encode(["-f", "lavfi", "-i", "testsrc=size=96x64:rate=5"], dir + "/anim.webp", ["-t", "0.6", "-c:v", "libwebp_anim", "-loop", "0"])
        #expect(WebPContainer.isAnimated(animated))
        #expect { try Pictures.read(data: animated, upright: true) } throws: { "\($0)".contains("an animation") }
        #expect(throws: (any Error).self) { try FaceRedactor().redactPhoto(at: dir + "/anim.webp", to: dir + "/anim.jpg") }
        let run = try PhotoRedactionTests.cli(["redact", dir + "/anim.webp", dir + "/anim-cli.jpg"])
        #expect(run.status != 0 && run.stderr.contains("an animation"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/anim.jpg") && !FileManager.default.fileExists(atPath: dir + "/anim-cli.jpg"))
    }

    /// A folder given to `detect`, `analyze` or `landmarks` is walked for pictures by their first
    /// bytes: a HEIC (its brand at bytes 8...11) and a WebP (its form at 8...11) are found, as a
    /// PNG is; notes are not. (The walk once read 8 bytes and passed over both.)
    @Test func aFolderWalkFindsHEICAndWebPByTheirContent() throws {
        let dir = try VideoRedactionTests.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let heic: [UInt8] = [0, 0, 0, 24] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)
        let webp = Array("RIFF".utf8) + [4, 0, 0, 0] + Array("WEBPVP8 ".utf8)
        let png: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]
        for (name, bytes) in [("a.heic", heic), ("b.jpg", webp), ("c.png", png), ("d.txt", Array("notes".utf8))] {
            try Data(bytes).write(to: URL(fileURLWithPath: dir + "/" + name))
        }
        #expect(InputList.expand([dir]).map(\.name) == ["a.heic", "b.jpg", "c.png"].map { dir + "/" + $0 })
    }

    /// An AVIF photo is a photo: FFmpeg would read it as a one-frame video, so a folder run made
    /// it an MP4 and a single run refused a .jpg output. It comes out as JPEG, masked.
    @Test func anAVIFPhotoComesOutAsAJPEGPhotoNotAVideo() throws {
        let dir = try VideoRedactionTests.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        let made = try VideoRedactionTests.sh("heif-enc", ["-A", "-q", "80", "-o", dir + "/in/portrait.avif", Self.fixtures + "/astronaut_223x231.png"])
        try #require(made.status == 0, "heif-enc writes AVIF: \(made.stderr)")
        #expect(try MediaKind.of(dir + "/in/portrait.avif") == .photo)
        let redacted = try FaceRedactor().redactPhoto(at: dir + "/in/portrait.avif", to: dir + "/library.jpg")
        #expect(redacted.faces == 1 && (redacted.width, redacted.height) == (223, 231))
        let run = try PhotoRedactionTests.cli(["redact", dir + "/in", dir + "/out"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/out").filter { !$0.hasPrefix(".") } == ["portrait.jpg"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/out/portrait.jpg")) == Data(contentsOf: URL(fileURLWithPath: dir + "/library.jpg")))
    }
}
