import BlazeImageIO
import FaceRedaction
import FileRedaction
import Foundation
import MediaFiles
import Testing

/// Photos as scanners, photo editors and old cameras save them, TIFF and BMP, redacted through
/// the public API as `blazeface redact` redacts them (FFmpeg's decoders); what FFmpeg would
/// decode wrong (a JPEG-compressed TIFF comes out black) or only in part (a second page, a raw
/// file's preview) is refused with the reason, and nothing is written.
@Suite struct ScannedPhotoFormatsTests {
    static let fixtures = SavedPhotoFormatsTests.fixtures

    /// One TIFF directory entry: tag, type (1 BYTE, 3 SHORT, 4 LONG, 7 UNDEFINED), and its
    /// values (SHORT and LONG) or bytes (BYTE and UNDEFINED).
    struct Tag {
        var tag: Int, type: Int, values: [Int] = [], bytes: [UInt8] = []
        static func short(_ tag: Int, _ values: Int...) -> Tag { Tag(tag: tag, type: 3, values: values) }
        static func long(_ tag: Int, _ values: Int...) -> Tag { Tag(tag: tag, type: 4, values: values) }
    }

    /// An uncompressed 8-bit RGB TIFF of `image`, one strip a page, in either byte order:
    /// each page's directory holds the picture's tags and `extra[page]` (replacing a tag of the
    /// same number); pages after the first are `pages` more copies of the picture.
    static func tiff(_ image: RGBImage, bigEndian: Bool = false, extra: [[Tag]] = [[]], pages: Int = 1) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { bigEndian ? [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { bigEndian ? u16(v >> 16) + u16(v & 0xFFFF) : u16(v & 0xFFFF) + u16(v >> 16) }
        var file: [UInt8] = (bigEndian ? Array("MM".utf8) : Array("II".utf8)) + u16(42) + u32(0)
        var link = 4   // where the offset of the next directory goes
        for page in 0..<pages {
            let strip = file.count
            file += image.pixels
            if file.count % 2 == 1 { file.append(0) }
            var tags: [Int: Tag] = [:]
            for t in [Tag.long(256, image.width), .long(257, image.height), .short(258, 8, 8, 8), .short(259, 1), .short(262, 2),
                      .long(273, strip), .short(277, 3), .long(278, image.height), .long(279, image.pixels.count)] + (page < extra.count ? extra[page] : []) {
                tags[t.tag] = t
            }
            // Values over 4 bytes go after the directory.
            let sorted = tags.values.sorted { $0.tag < $1.tag }
            let directory = file.count
            var outside = directory + 2 + sorted.count * 12 + 4, entries: [UInt8] = [], values: [UInt8] = []
            for t in sorted {
                let isBytes = t.type == 1 || t.type == 7
                let data = isBytes ? t.bytes : t.values.flatMap { t.type == 3 ? u16($0) : u32($0) }
                entries += u16(t.tag) + u16(t.type) + u32(isBytes ? data.count : t.values.count)
                if data.count <= 4 {
                    entries += data + [UInt8](repeating: 0, count: 4 - data.count)
                } else {
                    entries += u32(outside)
                    values += data + (data.count % 2 == 1 ? [0] : [])
                    outside += data.count + data.count % 2
                }
            }
            file.replaceSubrange(link..<(link + 4), with: u32(directory))
            file += u16(sorted.count) + entries
            link = file.count
            file += u32(0) + values
        }
        return file
    }

    static func write(_ bytes: [UInt8], _ path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Peak signal-to-noise ratio of `a` against `b` (same size), in dB.
    static func psnr(_ a: RGBImage, _ b: RGBImage) -> Double {
        let mse = zip(a.pixels, b.pixels).reduce(0.0) { $0 + pow(Double($1.0) - Double($1.1), 2) } / Double(b.pixels.count)
        return 10 * log10(255 * 255 / max(mse, 1e-9))
    }

    @Test func aTIFFPhotoIsRedactedUprightWithItsColourProfile() throws {
        let dir = try VideoRedactionTests.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let png = Self.fixtures + "/astronaut_223x231.png"
        let picture = try PNG.read(contentsOf: png)
        let icc = try #require(try PNG.iccProfile([UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.fixtures + "/two_faces_1280x853.png")))))
        // As a scanner app writes it, turned (Orientation 6), with a profile; in both byte orders;
        // and as ffmpeg's encoder compresses it (LZW, Deflate, PackBits).
        var inputs: [(name: String, upright: RGBImage)] = []
        for (n, bigEndian) in [false, true].enumerated() {
            let name = dir + "/scan\(n).tif"
            try Self.write(Self.tiff(picture, bigEndian: bigEndian, extra: [[.short(274, 6), Tag(tag: 34675, type: 7, bytes: icc)]]), name)
            inputs.append((name, picture.applying(.rotated90Clockwise)))
        }
        for algorithm in ["lzw", "deflate", "packbits"] {
            let name = dir + "/\(algorithm).tiff"
            _ = try SavedPhotoFormatsTests.encode(["-i", png], name, ["-frames:v", "1", "-compression_algo", algorithm])
            inputs.append((name, picture))
        }
        let redactor = try FaceRedactor()
        for (n, input) in inputs.enumerated() {
            let photo = try Pictures.readPhoto(contentsOf: input.name)
            #expect(photo.format == .tiff && photo.exif == nil)
            #expect((photo.image.width, photo.image.height) == (input.upright.width, input.upright.height), "\(input.name): upright")
            // The decoder's 4:2:0 picture of the lossless pixels.
            #expect(Self.psnr(photo.image, input.upright) > 30, "\(input.name)")
            #expect(photo.iccProfile == (n < 2 ? icc : nil), "\(input.name): its colour profile")
            let (redacted, bytes) = try PhotoRedactionTests.redactedByBoth(redactor, input.name, in: dir, n, flags: [], metadata: .strip)
            #expect(redacted.faces == 1, "\(input.name)")
            #expect(JPEG.iccProfile(bytes) == (n < 2 ? icc : nil) && EXIFBlock(file: bytes) == nil)
        }
        // Keeping metadata keeps the profile, and says the TIFF's own tags are not carried.
        let kept = try PhotoRedactionTests.cli(["redact", inputs[0].name, dir + "/kept.jpg", "--keep-metadata"])
        #expect(kept.status == 0 && kept.stderr.contains("written without the TIFF's own tags"), "\(kept.stderr)")
    }

    @Test func aBMPPhotoIsRedactedAndAFolderOfTIFFAndBMPComesOutAsJPEG() throws {
        let dir = try VideoRedactionTests.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let png = Self.fixtures + "/astronaut_223x231.png"
        try FileManager.default.createDirectory(atPath: dir + "/in/scans", withIntermediateDirectories: true)
        let bmp = try SavedPhotoFormatsTests.encode(["-i", png], dir + "/in/portrait.bmp", ["-frames:v", "1"])
        #expect(ImageFormat(sniffing: bmp) == .bmp)
        let photo = try Pictures.readPhoto(contentsOf: dir + "/in/portrait.bmp")
        let reference = try PNG.read(contentsOf: png)
        #expect(photo.format == .bmp && Self.psnr(photo.image, reference) > 30)
        let (redacted, _) = try PhotoRedactionTests.redactedByBoth(try FaceRedactor(), dir + "/in/portrait.bmp", in: dir, 0, flags: [], metadata: .strip)
        #expect(redacted.faces == 1)
        try Self.write(Self.tiff(try PNG.read(contentsOf: png)), dir + "/in/scans/page.TIF")

        let run = try PhotoRedactionTests.cli(["redact", dir + "/in", dir + "/out"])
        #expect(run.status == 0, "\(run.stderr)")
        for name in ["portrait.jpg", "scans/page.jpg"] {
            let out = try JPEG.read(contentsOf: dir + "/out/" + name)
            #expect((out.width, out.height) == (223, 231), "\(name)")
        }
        // The folder walk of detect, analyze and landmarks finds both by their content.
        #expect(InputList.expand([dir + "/in"]).map(\.name) == [dir + "/in/portrait.bmp", dir + "/in/scans/page.TIF"])
    }

    @Test func whatFFmpegWouldDecodeWrongOrInPartIsRefusedWithTheReasonAndNothingWritten() throws {
        let dir = try VideoRedactionTests.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let picture = try PNG.read(contentsOf: Self.fixtures + "/astronaut_223x231.png")
        var bigTIFF = Self.tiff(picture)
        bigTIFF[2] = 43
        var canonRaw = Self.tiff(picture)
        canonRaw.replaceSubrange(8..<10, with: Array("CR".utf8))   // CR2's mark, where classic TIFF's first picture would begin
        var cut = Self.tiff(picture)
        cut.removeLast(cut.count - 300)                               // the directory (after the pixels) is gone
        let refused: [(name: String, bytes: [UInt8], reason: String)] = [
            ("jpeg.tif", Self.tiff(picture, extra: [[.short(259, 7)]]), "compressed as JPEG (compression 7)"),
            ("pages.tif", Self.tiff(picture, pages: 2), "2 pages (only single-page TIFF pictures are read)"),
            ("negative.dng", Self.tiff(picture, extra: [[Tag(tag: 50706, type: 1, bytes: [1, 4, 0, 0])]]), "a camera raw file"),
            ("IMG_0001.CR2", canonRaw, "a camera raw file"),
            ("preview.nef", Self.tiff(picture, extra: [[.long(254, 1)]]), "a camera raw file"),
            ("lab.tif", Self.tiff(picture, extra: [[.short(262, 8)]]), "CIE L*a*b* (photometric 8)"),
            ("float.tif", Self.tiff(picture, extra: [[.short(339, 3, 3, 3)]]), "floating-point or signed samples"),
            ("big.tif", bigTIFF, "a BigTIFF file"),
            ("cut.tif", cut, "its first directory lies outside the file"),
            ("IMG_0002.CR3", [0, 0, 0, 24] + Array("ftypcrx ".utf8) + [0, 0, 0, 1] + Array("crx isom".utf8), "a camera raw file (.cr3)"),
        ]
        for input in refused {
            try Self.write(input.bytes, dir + "/" + input.name)
            let run = try PhotoRedactionTests.cli(["redact", dir + "/" + input.name, dir + "/out-" + input.name + ".jpg"])
            #expect(run.status != 0 && run.stderr.contains(input.reason), "\(input.name): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/out-" + input.name + ".jpg"), "\(input.name): nothing written")
        }
        // A second page that is a reduced-size preview (NewSubfileType 1) is no page: the photo is read.
        try Self.write(Self.tiff(picture, extra: [[], [.long(254, 1)]], pages: 2), dir + "/thumbnail.tif")
        #expect(try Pictures.readPhoto(contentsOf: dir + "/thumbnail.tif").image.width == 223)

        // In a folder run each is refused, recorded with its reason, and the run exits 65.
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        for input in refused { try FileManager.default.moveItem(atPath: dir + "/" + input.name, toPath: dir + "/in/" + input.name) }
        let run = try PhotoRedactionTests.cli(["redact", dir + "/in", dir + "/out"])
        #expect(run.status == 65, "\(run.stderr)")
        let manifest = try String(contentsOfFile: dir + "/out/.blazeface/manifest-0-of-1.jsonl", encoding: .utf8)
        #expect(manifest.components(separatedBy: "\"status\":\"refused\"").count - 1 == refused.count, "\(manifest)")
        let written = try FileManager.default.contentsOfDirectory(atPath: dir + "/out").filter { !$0.hasPrefix(".") }
        #expect(written.isEmpty, "\(written)")
    }
}
