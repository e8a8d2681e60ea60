import BlazeImageIO
import Foundation
import Testing
import TestSupport

/// `blazeface redact` on photos as people have them: JPEG stays JPEG (about its size), HEIC is
/// read, the colour profile is kept, metadata is dropped, the input is never overwritten.
@Suite(.serialized) struct PhotoCLITests {
    static func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("photo-cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// These tests are about what comes out (formats, fills, metadata), not where faces are
    /// looked for: their photos are upright, so they are searched only as stored (a photo
    /// searched turned too takes about 2.4 times as long; `TurnedStillsTests` tests that search).
    static let asStored = ["--upright-only"]

    static func faces(_ path: String) throws -> Int {
        // Masked faces may still score about 0.55 (a head around a blur); faces that show score above 0.85.
        let r = try CLITests.run(["detect", path, "--min-detection-confidence", "0.75"])
        #expect(r.status == 0, "\(r.stderr)")
        return r.lines.first.map { $0.components(separatedBy: "\"boundingBox\"").count - 1 } ?? -1
    }

    @Test func aJPEGComesOutAsAJPEGOfAboutItsSize() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let photo = try PNG.read(contentsOf: Goldens.root.appendingPathComponent("images/two_faces_1280x853.png").path)
        for quality in [60, 80, 95] {
            let input = dir + "/in\(quality).jpg", output = dir + "/out\(quality).jpg"
            try JPEG.write(photo, to: input, quality: quality)
            #expect(try Self.faces(input) == 2)
            let run = try CLITests.run(["redact", input, output] + Self.asStored)
            // Both faces are masked (checked below on the output); the tiles' second look may add
            // a mask where JPEG's blocks look like a small face (at quality 60, a 32-pixel one on
            // the launch tower's lattice): a mask too many, never one too few.
            let masked = run.stderr.firstMatch(of: /redact: (\d+) face\(s\) masked/).flatMap { Int($0.1) } ?? 0
            #expect(run.status == 0 && masked >= 2, "\(run.stderr)")
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
            #expect(ImageFormat(sniffing: bytes) == .jpeg)
            #expect(JPEG.estimatedQuality(bytes) == quality)
            let ratio = Double(bytes.count) / Double(try Data(contentsOf: URL(fileURLWithPath: input)).count)
            #expect(ratio <= 1.5, "quality \(quality): \(ratio)x the input's size")
            #expect(try Self.faces(output) == 0)
        }
    }

    /// An RGBA PNG keeps its alpha byte for byte, a gray PNG stays gray and a grayscale JPEG
    /// stays one component, each with its face masked.
    @Test func alphaAndGrayAreKept() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let images = Goldens.root.appendingPathComponent("images").path
        /// IHDR's colour type (0 gray, 2 RGB, 4 gray and alpha, 6 RGBA) read from the bytes.
        func pngColorType(_ path: String) throws -> UInt8 { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))[25] }
        /// The component count of the first SOF segment, read from the bytes.
        func jpegComponents(_ path: String) throws -> Int {
            let b = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            var i = 2
            while i + 9 < b.count, b[i] == 0xFF {
                let marker = b[i + 1], length = Int(b[i + 2]) << 8 | Int(b[i + 3])
                if (0xC0...0xC3).contains(marker) { return Int(b[i + 9]) }
                i += 2 + length
            }
            return -1
        }
        let rgba = images + "/astronaut_rgba.png", gray = images + "/astronaut_gray.png", grayJPEG = dir + "/gray.jpg"
        try Data(try JPEG.encode(try PNG.read(contentsOf: gray), quality: 90, grayscale: true)).write(to: URL(fileURLWithPath: grayJPEG))
        #expect(try pngColorType(rgba) == 6 && pngColorType(gray) == 0 && jpegComponents(grayJPEG) == 1)
        for (input, output) in [(rgba, dir + "/rgba.png"), (gray, dir + "/gray.png"), (grayJPEG, dir + "/gray-out.jpg")] {
            let run = try CLITests.run(["redact", input, output] + Self.asStored)
            #expect(run.status == 0 && run.stderr.contains("1 face(s) masked"), "\(input): \(run.stderr)")
            #expect(try Self.faces(output) == 0, "\(output)")
        }
        #expect(try pngColorType(dir + "/rgba.png") == 6 && pngColorType(dir + "/gray.png") == 0 && jpegComponents(dir + "/gray-out.jpg") == 1)
        let (_, alphaIn) = try PNG.decodeWithAlpha([UInt8](try Data(contentsOf: URL(fileURLWithPath: rgba))))
        let (_, alphaOut) = try PNG.decodeWithAlpha([UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/rgba.png"))))
        #expect(alphaIn == alphaOut && Set(alphaIn).count > 1, "the alpha is kept byte for byte")
    }

    /// `--blur-radius` and `--block-size` change how the masks are filled, only inside them; the
    /// faces stay hidden; values that would hide less are refused.
    @Test func blurRadiusAndBlockSizeChangeOnlyTheMasks() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let photo = Goldens.root.appendingPathComponent("images/two_faces_1280x853.png").path
        // A flat green card to paste over faces (--replace-with).
        try PNG.write(try RGBImage(width: 4, height: 4, pixels: (0..<48).map { $0 % 3 == 1 ? 255 : 0 }), to: dir + "/green.png")
        let runs = [("plain", [String]()), ("blur", ["--blur-radius", "0.5"]), ("pixel", ["--mode", "pixelate"]),
                    ("coarse", ["--mode", "pixelate", "--block-size", "0.25"]), ("card", ["--replace-with", dir + "/green.png"])]
        var pictures: [String: RGBImage] = [:]
        for (name, flags) in runs {
            let run = try CLITests.run(["redact", photo, dir + "/\(name).png", "--masks", dir + "/\(name).jsonl"] + flags + Self.asStored)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try Self.faces(dir + "/\(name).png") == 0, "\(name)")
            pictures[name] = try PNG.read(contentsOf: dir + "/\(name).png")
        }
        // The masks (the same in every run), as boxes in pixels grown by the mask scale.
        let masks = try String(contentsOfFile: dir + "/plain.jsonl", encoding: .utf8).split(separator: "\n")[1]
        let boxes = try #require((try JSONSerialization.jsonObject(with: Data(masks.utf8)) as? [String: Any])?["masks"] as? [[String: Any]])
            .compactMap { $0["box"] as? [Double] }
        #expect(boxes.count == 2)
        func inside(_ x: Int, _ y: Int) -> Bool {
            boxes.contains { b in abs(Double(x) + 0.5 - b[0] - b[2] / 2) <= b[2] * 0.65 + 1 && abs(Double(y) + 0.5 - b[1] - b[3] / 2) <= b[3] * 0.65 + 1 }
        }
        for (a, b) in [("plain", "blur"), ("pixel", "coarse"), ("plain", "card")] {
            let (p, q) = (pictures[a]!, pictures[b]!)
            var changed = 0, outside = 0
            for y in 0..<p.height { for x in 0..<p.width where p.pixels[3 * (y * p.width + x)] != q.pixels[3 * (y * p.width + x)] {
                changed += 1
                if !inside(x, y) { outside += 1 }
            } }
            #expect(changed > 1000 && outside == 0, "\(a) / \(b): \(changed) changed, \(outside) outside the masks")
        }
        // The card covers each mask's centre; re-rendering needs the same card, named by SHA-256.
        let card = pictures["card"]!
        for b in boxes {
            let i = 3 * (Int(b[1] + b[3] / 2) * card.width + Int(b[0] + b[2] / 2))
            #expect(card.pixels[i..<i + 3] == [0, 255, 0])
        }
        let again = try CLITests.run(["redact", photo, dir + "/again.png", "--apply-masks", dir + "/card.jsonl", "--replace-with", dir + "/green.png"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try PNG.read(contentsOf: dir + "/again.png") == card, "the same card, the same bytes")
        let onto = try CLITests.run(["redact", photo, dir + "/green.png", "--replace-with", dir + "/green.png"])
        #expect(onto.status == 64, "the picture is never overwritten: \(onto.stderr)")
        #expect(try PNG.read(contentsOf: dir + "/green.png").width == 4)
        let missing = try CLITests.run(["redact", photo, dir + "/x.png", "--apply-masks", dir + "/card.jsonl"])
        #expect(missing.status == 64 && missing.stderr.contains("--replace-with"), "\(missing.stderr)")
        try PNG.write(try RGBImage(width: 4, height: 4, pixels: [UInt8](repeating: 9, count: 48)), to: dir + "/other.png")
        let other = try CLITests.run(["redact", photo, dir + "/x.png", "--apply-masks", dir + "/card.jsonl", "--replace-with", dir + "/other.png"])
        #expect(other.status == 65 && other.stderr.contains("another picture") && !FileManager.default.fileExists(atPath: dir + "/x.png"), "\(other.stderr)")
        for flags in [["--blur-radius", "0.1"], ["--block-size", "0.05"], ["--block-size", "0.75"], ["--mode", "image"],
                      ["--mode", "solid", "--replace-with", dir + "/green.png"]] {
            let bad = try CLITests.run(["redact", photo, dir + "/bad.png"] + flags)
            #expect(bad.status == 64 && bad.stderr.contains(flags[0]), "\(flags): \(bad.stderr)")
        }
    }

    @Test func theColourProfileStaysAndEXIFGoes() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // The fixture carries an iCCP profile; made into a JPEG with an EXIF block.
        let png = Goldens.root.appendingPathComponent("images/two_faces_1280x853.png").path
        let icc = try #require(try PNG.iccProfile([UInt8](try Data(contentsOf: URL(fileURLWithPath: png)))))
        let exifJPEG = [UInt8](try Data(contentsOf: Goldens.root.appendingPathComponent("images/jpeg/astronaut_exif6.jpg")))
        let exif = try #require(EXIFBlock(file: exifJPEG))
        let input = dir + "/in.jpg"
        try JPEG.write(try PNG.read(contentsOf: png), to: input, quality: 85, exif: exif.upright(), iccProfile: icc)
        for (target, keep) in [("out.jpg", false), ("out.png", false), ("kept.jpg", true)] {
            let run = try CLITests.run(["redact", input, dir + "/" + target] + (keep ? ["--keep-metadata"] : []) + Self.asStored)
            #expect(run.status == 0, "\(run.stderr)")
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/" + target)))
            let profile = target.hasSuffix(".png") ? try PNG.iccProfile(bytes) : JPEG.iccProfile(bytes)
            #expect(profile == icc, "\(target): the ICC profile is kept")
            #expect((EXIFBlock(file: bytes) != nil) == keep, "\(target): EXIF only with --keep-metadata")
        }
    }

    /// A camera JPEG's EXIF block carries a thumbnail of the photo: with --keep-metadata the
    /// output keeps the camera and date, never the thumbnail, which shows the faces unmasked.
    @Test func keptMetadataLeavesTheThumbnailBehind() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let photo = try PNG.read(contentsOf: Goldens.root.appendingPathComponent("images/two_faces_1280x853.png").path)
        // The thumbnail: every 8th pixel of every 8th row, 160x107, as a camera's.
        let (w, h) = (photo.width / 8, photo.height / 8)
        let small = try RGBImage(width: w, height: h, pixels: (0..<(w * h)).flatMap { i in
            let at = ((i / w) * 8 * photo.width + (i % w) * 8) * 3
            return photo.pixels[at..<(at + 3)]
        })
        let thumbnail = try JPEG.encode(small, quality: 80)
        let (tiff, _) = EXIFSamples.withPreviews(little: true, thumbnail: thumbnail)
        let input = dir + "/camera.jpg"
        try JPEG.write(photo, to: input, quality: 90, exif: EXIFBlock(tiff: tiff))
        #expect(try Self.faces(dir + "/camera.jpg") == 2)
        for target in ["out.jpg", "out.png"] {
            let run = try CLITests.run(["redact", input, dir + "/" + target, "--keep-metadata"] + Self.asStored)
            #expect(run.status == 0, "\(run.stderr)")
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/" + target)))
            let exif = try #require(EXIFBlock(file: bytes), "\(target): EXIF kept")
            #expect(exif.tiff.contains(Array("Canon".utf8)) && exif.tiff.contains(Array("2026:12:06".utf8)))
            #expect(!bytes.contains(thumbnail[40..<72]), "\(target): the thumbnail is gone")
        }
    }

    @Test func aHEICPhotoIsReadAndRedactedToJPEG() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let png = Goldens.root.appendingPathComponent("images/two_faces_1280x853.png").path
        let made = try VideoCLITests.sh("heif-enc", ["-q", "85", png, "-o", dir + "/photo.heic"])
        try #require(made.status == 0, "heif-enc (libheif-examples) makes the HEIC: \(made.err)")
        #expect(try Self.faces(dir + "/photo.heic") == 2)
        let run = try CLITests.run(["redact", dir + "/photo.heic", dir + "/photo.jpg"] + Self.asStored)
        #expect(run.status == 0 && run.stderr.contains("2 face(s)"), "\(run.stderr)")
        #expect(try Self.faces(dir + "/photo.jpg") == 0)
        // In a folder, a HEIC comes out as NAME.jpg.
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: dir + "/photo.heic", toPath: dir + "/in/photo.heic")
        let folder = try CLITests.run(["redact", dir + "/in", dir + "/out"] + Self.asStored)
        #expect(folder.status == 0, "\(folder.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/out").filter { !$0.hasPrefix(".") } == ["photo.jpg"])
    }

    @Test func aPhotoIsNeverWrittenOverItself() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = dir + "/in.png"
        try FileManager.default.copyItem(atPath: Goldens.root.appendingPathComponent("images/multi_face.png").path, toPath: input)
        let original = try Data(contentsOf: URL(fileURLWithPath: input))
        let run = try CLITests.run(["redact", input, input])
        #expect(run.status != 0 && run.stderr.contains("is the input"), "\(run.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == original)
        let unknown = try CLITests.run(["redact", input, dir + "/out.gif"])
        #expect(unknown.status != 0 && unknown.stderr.contains(".jpg"), "\(unknown.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["in.png"])
    }

    @Test func aFolderWithAnUnreadableFileExits65() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Goldens.root.appendingPathComponent("images/multi_face.png").path, toPath: dir + "/in/a.png")
        let jpeg = try Data(contentsOf: Goldens.root.appendingPathComponent("images/jpeg/astronaut_baseline.jpg"))
        try jpeg.prefix(2000).write(to: URL(fileURLWithPath: dir + "/in/b.jpg"))
        let run = try CLITests.run(["redact", dir + "/in", dir + "/out"])
        #expect(run.status == 65 && run.stderr.contains("1 refused") && run.stderr.contains("b.jpg"), "\(run.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir + "/out").filter { !$0.hasPrefix(".") } == ["a.png"])
    }
}
