import BlazeFace
import BlazeImageIO
import FaceRedaction
import FileRedaction
import Foundation
import MediaFiles
import Testing

/// Photos redacted through the public API alone, as a Swift program calls it (no `@testable`),
/// byte for byte as `blazeface redact` writes them.
@Suite struct PhotoRedactionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let tool = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("blazeface").path

    /// A big-endian EXIF block: IFD0 with Make "Canon", an Orientation when given and a GPS
    /// pointer; a GPS IFD with LatitudeRef "N" and a latitude of 48/1 51/1 0/1.
    static func exifWithGPS(orientation: Int? = nil) throws -> EXIFBlock {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { u16(v >> 16) + u16(v & 0xFFFF) }
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: [UInt8]) -> [UInt8] {
            u16(tag) + u16(type) + u32(count) + value + [UInt8](repeating: 0, count: 4 - value.count)
        }
        // IFD0 at 8 (2 or 3 entries), then the GPS IFD (2 entries, 30 bytes), "Canon", the rationals.
        let n = orientation == nil ? 2 : 3, gps = 8 + 2 + 12 * n + 4, make = gps + 30
        var t: [UInt8] = [0x4D, 0x4D, 0, 42] + u32(8)
        t += u16(n) + entry(0x010F, 2, 6, u32(make)) + (orientation.map { entry(0x0112, 3, 1, u16($0)) } ?? [])
        t += entry(0x8825, 4, 1, u32(gps)) + u32(0)
        t += u16(2) + entry(0x0001, 2, 2, Array("N".utf8) + [0]) + entry(0x0002, 5, 3, u32(make + 6)) + u32(0)
        t += Array("Canon".utf8) + [0] + u32(48) + u32(1) + u32(51) + u32(1) + u32(0) + u32(1)
        return try #require(EXIFBlock(tiff: t))
    }

    /// Runs the built tool; its exit status and stderr.
    static func cli(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        try run(try #require(FileManager.default.isExecutableFile(atPath: tool) ? tool : nil, "build the tool first: \(tool)"), arguments)
    }

    /// `input` redacted by the library to `dir/library-N.jpg` and by the CLI (`redact INPUT OUT
    /// FLAGS...`) to `dir/cli-N.jpg`; the library's result and bytes, checked to be the CLI's.
    static func redactedByBoth(_ redactor: FaceRedactor, _ input: String, in dir: String, _ n: Int, flags: [String],
                               metadata: MetadataPolicy) throws -> (redacted: RedactedPhoto, bytes: [UInt8]) {
        let mine = dir + "/library-\(n).jpg", theirs = dir + "/cli-\(n).jpg"
        let redacted = try redactor.redactPhoto(at: input, to: mine, options: PhotoRedactionOptions(metadata: metadata))
        let run = try cli(["redact", input, theirs] + flags)
        #expect(run.status == 0, "\(run.stderr)")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: mine)))
        #expect(bytes == [UInt8](try Data(contentsOf: URL(fileURLWithPath: theirs))), "\(flags): the CLI's bytes")
        return (redacted, bytes)
    }

    /// Runs `executable`; its exit status and stderr.
    static func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let err = Pipe()
        (process.standardOutput, process.standardError) = (FileHandle.nullDevice, err)
        try process.run()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stderr, as: UTF8.self))
    }

    @Test func aJPEGWithGPSIsRedactedAsTheCLIRedactsIt() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("photo-redaction-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A small portrait, with the colour profile of another fixture and an EXIF block with GPS.
        let images = Self.root.appendingPathComponent("Tests/Fixtures/images")
        let icc = try #require(try PNG.iccProfile([UInt8](try Data(contentsOf: images.appendingPathComponent("two_faces_1280x853.png")))))
        let input = dir + "/gps.jpg", exif = try Self.exifWithGPS()
        try JPEG.write(try PNG.read(contentsOf: images.appendingPathComponent("astronaut_223x231.png").path), to: input, quality: 85,
                       exif: exif, iccProfile: icc)

        let redactor = try FaceRedactor()
        let cases: [(flags: [String], metadata: MetadataPolicy, exif: EXIFBlock?)] = [
            ([], .strip, nil),
            (["--keep-metadata"], .keep(location: false), exif.removingLocation()),
            (["--keep-metadata", "--keep-location"], .keep(location: true), exif),
        ]
        for (n, c) in cases.enumerated() {
            let (redacted, bytes) = try Self.redactedByBoth(redactor, input, in: dir, n, flags: c.flags, metadata: c.metadata)
            #expect(redacted.faces == 1 && redacted.warnings.isEmpty && (redacted.width, redacted.height) == (223, 231))
            #expect(EXIFBlock(file: bytes) == c.exif, "\(c.flags): EXIF, and GPS only when asked")
            #expect(JPEG.iccProfile(bytes) == icc, "the colour profile is kept")
            #expect(JPEG.estimatedQuality(bytes) == 85, "the input's quality")
        }
        // The pixels differ from the input's where the faces are: they were masked.
        let original = try Pictures.readPhoto(contentsOf: input).image, masked = try Pictures.readPhoto(contentsOf: dir + "/library-0.jpg").image
        #expect(original.pixels != masked.pixels)
    }

    @Test func aMasksFileWrittenDrawnAndReviewedIsWhatTheCLIWrites() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("photo-masks-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = Self.root.appendingPathComponent("Tests/Fixtures/images/two_faces_1280x853.png").path
        let redactor = try FaceRedactor()
        // The search's masks recorded as the CLI records them (`redact --masks`), before anything is written.
        let masksPath = dir + "/masks.jsonl"
        var writer: MasksFileWriter?
        let redacted = try redactor.redactPhoto(at: input, to: dir + "/searched.png") { found in
            writer = try MasksFileWriter(path: masksPath, input: input, width: found.width, height: found.height, options: redactor.options.mask)
            writer?.frame(index: 0, timestampInMilliseconds: nil, masks: found.masks)
        }
        #expect(redacted.faces == 2)
        #expect(!FileManager.default.fileExists(atPath: masksPath), "nothing at the path before commit")
        try #require(writer).commit()
        // Drawn again with no search: the same bytes.
        let file = try MasksFile.read(at: masksPath)
        let drawn = try FaceRedactor.drawPhoto(masks: file, at: input, to: dir + "/drawn.png")
        #expect(drawn.masks.count == redacted.masks.count)
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/drawn.png")) == Data(contentsOf: URL(fileURLWithPath: dir + "/searched.png")))
        // The CLI's masks file for the same photo: the same lines but for the settings it records.
        let run = try Self.cli(["redact", input, dir + "/cli.png", "--masks", dir + "/cli-masks.jsonl"])
        #expect(run.status == 0, "\(run.stderr)")
        let cliFile = try MasksFile(data: [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/cli-masks.jsonl"))))
        #expect(cliFile.frames == file.frames && cliFile.inputSHA256 == file.inputSHA256 && cliFile.inputSize == file.inputSize)
        // Its review page, as `blazeface review` writes it.
        let moments = try ReviewPage.write(masks: file, masksPath: masksPath, input: input, to: dir + "/review.html")
        #expect(moments.map(\.frame) == [0])
        let review = try Self.cli(["review", input, masksPath, "-o", dir + "/cli-review.html"])
        #expect(review.status == 0, "\(review.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/review.html")) == Data(contentsOf: URL(fileURLWithPath: dir + "/cli-review.html")))
        // A file for another picture is refused, and nothing is written.
        let other = Self.root.appendingPathComponent("Tests/Fixtures/images/astronaut_223x231.png").path
        #expect { try FaceRedactor.drawPhoto(masks: file, at: other, to: dir + "/other.png") } throws: { error in
            (error as? PhotoRedactionError)?.kind == .masksFile
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/other.png"))
        // The input is named by its content: a byte-identical copy elsewhere takes the masks; a
        // copy with one byte changed (the same size) is another input, refused by the photo and
        // the video verbs before anything is read or written.
        let copy = dir + "/copy.png", changed = dir + "/changed.png"
        try FileManager.default.copyItem(atPath: input, toPath: copy)
        try FaceRedactor.drawPhoto(masks: file, at: copy, to: dir + "/copy-drawn.png")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/copy-drawn.png")) == Data(contentsOf: URL(fileURLWithPath: dir + "/drawn.png")))
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: input)))
        bytes[bytes.count / 2] ^= 1
        try Data(bytes).write(to: URL(fileURLWithPath: changed))
        #expect(file.mismatch(withInputAt: copy) == nil)
        #expect(file.mismatch(withInputAt: changed) == "is for another input (\(file.inputSize!) bytes, SHA-256 \(file.inputSHA256!))")
        #expect { try FaceRedactor.drawPhoto(masks: file, at: changed, to: dir + "/changed-drawn.png") } throws: { error in
            (error as? PhotoRedactionError)?.kind == .masksFile && "\(error)".contains("is for another input")
        }
        #expect { try redactor.drawVideo(masks: file, at: changed, to: dir + "/changed-drawn.mp4") } throws: { error in
            (error as? VideoRedactionError)?.kind == .masksFile
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/changed-drawn.png") && !FileManager.default.fileExists(atPath: dir + "/changed-drawn.mp4"))
    }

    /// A masks file drawn with a picture pasted over faces (`--replace-with`) is read with that
    /// picture only: without one it is refused (or, for a review, read with none), with another
    /// it is refused, and an unreadable file says so.
    @Test func aMasksFileDrawnWithAPictureIsReadWithThatPictureOnly() throws {
        let dir = NSTemporaryDirectory() + "masks-picture-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = Self.root.appendingPathComponent("Tests/Fixtures/images/two_faces_1280x853.png").path
        let pasted = try ReplacementPicture(contentsOf: Self.root.appendingPathComponent("Tests/Fixtures/images/astronaut_223x231.png").path)
        let other = try ReplacementPicture(contentsOf: input)
        #expect(pasted.sha256.count == 64 && pasted.sha256 != other.sha256)
        let path = dir + "/masks.jsonl"
        let writer = try MasksFileWriter(path: path, input: input, width: 1280, height: 853,
                                         options: RedactionOptions(mode: .image, replacement: pasted.picture), replacementSHA256: pasted.sha256)
        writer.frame(index: 0, timestampInMilliseconds: nil,
                     masks: [DrawnMask(box: NormalizedRect(xMin: 0.25, yMin: 0.25, width: 0.25, height: 0.25), trackingID: 0, reason: .detected)])
        try writer.commit()
        #expect { try MasksFile.read(at: path) } throws: { ($0 as? MasksFileReadError)?.kind == .needsPicture
            && ($0 as? MasksFileReadError)?.pictureSHA256 == pasted.sha256 }
        #expect { try MasksFile.read(at: path, replacement: other) } throws: { ($0 as? MasksFileReadError)?.kind == .otherPicture }
        #expect(try MasksFile.read(at: path, requiringPicture: false).options.replacement == nil)
        let file = try MasksFile.read(at: path, replacement: pasted)
        #expect(file.options.replacement == pasted.picture && file.frames.count == 1)
        #expect { try MasksFile.read(at: dir + "/missing.jsonl") } throws: { ($0 as? MasksFileReadError)?.kind == .unreadable }
        #expect { try ReplacementPicture(contentsOf: dir + "/missing.png") } throws: { "\($0)".contains("missing.png") }
    }

    @Test func anOutputNameWithNoPhotoTypeIsRefusedBeforeAnythingIsRead() throws {
        let redactor = try FaceRedactor()
        #expect(throws: MediaFileError.self) { try redactor.redactPhoto(at: "/nonexistent.jpg", to: "/tmp/x.gif") }
        #expect(throws: MediaFileError.self) {
            try redactor.redactPhoto(at: "/nonexistent.jpg", to: "/tmp/x.ppm", options: PhotoRedactionOptions(metadata: .keep(location: false)))
        }
    }
}
