import BlazeImageIO
import BlazeFace
import BlazeImage
import Foundation
import Testing

/// The `blazeface detect` batch contract, run on the built tool (it sits next to the test bundle).
@Suite(.serialized) struct CLITests {
    static let tool = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        .appendingPathComponent("blazeface").path

    /// Runs the tool; stdout lines, stderr and exit status.
    static func run(_ arguments: [String], stdin: Data? = nil) throws -> (lines: [String], stderr: String, status: Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(FileManager.default.isExecutableFile(atPath: tool) ? tool : nil,
                                                                  "build the tool first: \(tool)"))
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["BLAZEFACE_WEIGHTS"] = URL(fileURLWithPath: Goldens.weights).deletingLastPathComponent().path
        process.environment = environment
        let out = Pipe(), err = Pipe(), input = Pipe()
        (process.standardOutput, process.standardError, process.standardInput) = (out, err, input)
        try process.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = String(decoding: stdout, as: UTF8.self).split(separator: "\n").map(String.init)
        return (lines, String(decoding: stderr, as: UTF8.self), process.terminationStatus)
    }

    /// A folder with a PNG, a JPEG in a subfolder, a PPM, a PGM, a broken JPEG and a text file.
    static func makeBatch() throws -> (folder: String, images: [String]) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cli-batch-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder + "/b_sub", withIntermediateDirectories: true)
        let fixtures = Goldens.root.appendingPathComponent("images").path
        try FileManager.default.copyItem(atPath: fixtures + "/astronaut_tiny48.png", toPath: folder + "/a.png")
        try FileManager.default.copyItem(atPath: fixtures + "/jpeg/astronaut_exif6.jpg", toPath: folder + "/b_sub/photo.jpg")
        try PNM.write(try Goldens.image("head_71x139"), to: folder + "/c.ppm")
        try PNM.write(try Goldens.image("astronaut_223x231"), to: folder + "/d.pgm", as: .pgm)
        let jpeg = try Data(contentsOf: URL(fileURLWithPath: fixtures + "/jpeg/astronaut_baseline.jpg"))
        try jpeg.prefix(2000).write(to: URL(fileURLWithPath: folder + "/e_broken.jpg"))
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: folder + "/notes.txt"))
        let images = ["a.png", "b_sub/photo.jpg", "c.ppm", "d.pgm", "e_broken.jpg"].map { folder + "/" + $0 }
        return (folder, images)
    }

    /// `bench --json`: one object, its fields in the documented order (Docs/cli-and-api.md),
    /// timings as `{"median_us","min_us"}`, the build as an object. (`bench-landmarks` and
    /// `bench-analyze` write theirs the same way, with `JSONObject`; they take 13 to 19 s here.)
    @Test func benchPrintsOneJSONObject() throws {
        let run = try Self.run(["bench", "--json", "--iterations", "2"])
        #expect(run.status == 0 && run.lines.count == 1, "\(run.stderr)")
        let line = try #require(run.lines.first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let keys = ["model", "threads", "inference", "detect", "cpu", "build"]
        #expect(Set(object.keys) == Set(keys) && object["model"] as? String == "short" && object["threads"] as? Int == 1, "\(line)")
        let positions = keys.compactMap { line.range(of: "\"\($0)\":")?.lowerBound }
        #expect(positions.count == keys.count && positions == positions.sorted(), "\(line)")
        for name in ["inference", "detect"] {
            let pair = object[name] as? [String: Double]
            #expect(pair.map { Set($0.keys) } == ["median_us", "min_us"] && (pair?["min_us"] ?? -1) > 0, "\(name): \(line)")
        }
        #expect((object["build"] as? [String: String]).map { Set($0.keys) } == ["vector", "arithmetic"], "\(line)")
    }

    @Test func folderBatchEqualsOneByOneRunsInOrder() throws {
        let (folder, images) = try Self.makeBatch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let batch = try Self.run(["detect", folder, "--threads", "2"])
        // Sorted, recursive, the text file skipped; the broken JPEG gives an error record in its place.
        #expect(batch.lines.count == images.count)
        #expect(batch.status == 65)
        for (path, line) in zip(images, batch.lines) {
            let single = try Self.run(["detect", path])
            #expect(single.lines == [line])
        }
        let record = try #require(try JSONSerialization.jsonObject(with: Data(batch.lines[4].utf8)) as? [String: String])
        #expect(record["image"] == images[4])
        #expect(record["error"]?.contains("truncated JPEG") == true)
        #expect(batch.stderr.contains("truncated JPEG"))
        // The EXIF orientation is applied by default; the JPEG's face is found upright.
        #expect(batch.lines[1].contains("\"width\":512,\"height\":512,\"detections\":[{"))
    }

    @Test func readsStandardInputAndRotation() throws {
        let png = try Data(contentsOf: Goldens.root.appendingPathComponent("images/astronaut_tiny48.png"))
        let piped = try Self.run(["detect", "-"], stdin: png)
        let file = try Self.run(["detect", Goldens.root.appendingPathComponent("images/astronaut_tiny48.png").path])
        #expect(piped.status == 0 && piped.lines.count == 1)
        #expect(piped.lines[0].replacingOccurrences(of: "\"image\":\"-\"", with: "") ==
                file.lines[0].replacingOccurrences(of: "\"image\":\(DetectionJSON.string(Goldens.root.appendingPathComponent("images/astronaut_tiny48.png").path))", with: ""))
        let bad = try Self.run(["detect", "--rotation", "45", "-"], stdin: png)
        #expect(bad.status != 0 && bad.lines.isEmpty)
    }

    /// `--orientation` takes the mirrored names too (issue 24): a photo told it is `upMirrored`
    /// gives the face of the flipped picture, reported in the stored picture's coordinates
    /// (x mirrored back); a name that is not an orientation is refused.
    /// The six keypoints of a detect line's one face.
    static func keypoints(_ line: String) throws -> [(Double, Double)] {
        let json = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let faces = try #require(json["detections"] as? [[String: Any]])
        try #require(faces.count == 1)
        return (faces[0]["keypoints"] as? [[String: Any]] ?? []).map { ($0["x"] as? Double ?? -9, $0["y"] as? Double ?? -9) }
    }

    @Test func mirroredOrientationFromTheCommandLine() throws {
        let path = Goldens.root.appendingPathComponent("images/astronaut.png").path
        let plain = try Self.keypoints(try #require(try Self.run(["detect", path]).lines.first))
        let mirrored = try Self.keypoints(try #require(try Self.run(["detect", "--orientation", "upMirrored", path]).lines.first))
        #expect(plain.count == 6 && mirrored.count == 6)
        // The flipped picture's right eye is the stored left eye: compare as sets of points.
        for p in plain {
            #expect(mirrored.contains { abs($0.0 - p.0) <= 0.02 && abs($0.1 - p.1) <= 0.02 }, "\(p) in \(mirrored)")
        }
        let bad = try Self.run(["detect", "--orientation", "sideways", path])
        #expect(bad.status != 0 && bad.lines.isEmpty && bad.stderr.contains("upMirrored"))
    }

    /// `redact` on a picture writes a PNG with the faces masked and the rest as it was, says how
    /// many on stderr, and refuses an unknown mode without writing anything (issue 26).
    @Test func redactMasksThePhotosFaces() throws {
        let input = Goldens.root.appendingPathComponent("images/two_faces_1280x853.png").path
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("redact-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let run = try Self.run(["redact", input, output, "--mode", "solid", "--no-tiles"])
        #expect(run.status == 0 && run.stderr.contains("2 face(s) masked"))
        let (before, after) = (try PNG.read(contentsOf: input), try PNG.read(contentsOf: output))
        #expect((after.width, after.height) == (before.width, before.height))
        let centre = 3 * (529 * before.width + 334)   // the left face's centre: black now
        #expect(after.pixels[centre..<centre + 3] == [0, 0, 0])
        let corner = 3 * (5 * before.width + 5)
        #expect(after.pixels[corner..<corner + 3] == before.pixels[corner..<corner + 3])
        let bad = try Self.run(["redact", input, output + ".bad.png", "--mode", "fuzzy"])
        #expect(bad.status != 0 && !FileManager.default.fileExists(atPath: output + ".bad.png"))
    }

    /// A picture's EXIF block is dropped by default and kept with --keep-metadata, its
    /// Orientation set to 1 (the pixels are written upright); PPM output refuses the flag.
    @Test func redactDropsOrKeepsTheEXIFBlock() throws {
        let input = Goldens.root.appendingPathComponent("images/jpeg/astronaut_exif6.jpg").path
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("redact-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        func exif(_ path: String) throws -> EXIFBlock? { EXIFBlock(file: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))) }
        let original = try #require(try exif(input))
        #expect(try Self.run(["redact", input, output, "--no-tiles"]).status == 0)
        let dropped = try exif(output)
        #expect(dropped == nil)
        #expect(try Self.run(["redact", input, output, "--no-tiles", "--keep-metadata"]).status == 0)
        let kept = try #require(try exif(output))
        #expect(kept.upright() == kept && kept != original && kept == original.upright())
        #expect(try PNG.read(contentsOf: output).width == 512)
        #expect(try Self.run(["redact", input, output + ".ppm", "--keep-metadata"]).status != 0)
    }

    /// One input's summary names it; with `--progress json` (a log, no terminal) stderr holds
    /// JSON lines alone, the last the summary: a video's frames and masks, a photo's faces.
    @Test func aSingleInputSaysWhatWasDoneInTextOrJSON() throws {
        let photo = try PNG.read(contentsOf: Goldens.root.appendingPathComponent("images/astronaut_tiny48.png").path)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("summary-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appendingPathComponent("in.y4m").path
        let writer = try Y4MWriter(path: input, width: photo.width, height: photo.height)
        for _ in 0..<3 { try writer.write(photo) }
        try writer.flush()
        let text = try Self.run(["redact", input, folder.appendingPathComponent("a.y4m").path, "--no-progress"])
        #expect(text.status == 0 && text.stderr.contains("redact: \(input): 3 frame(s)"), "\(text.stderr)")
        for (source, output, key) in [(input, "b.y4m", "frames"), (Goldens.root.appendingPathComponent("images/astronaut_tiny48.png").path, "b.png", "faces")] {
            let run = try Self.run(["redact", source, folder.appendingPathComponent(output).path, "--progress", "json"])
            #expect(run.status == 0, "\(run.stderr)")
            let lines = run.stderr.split(separator: "\n").map(String.init)
            let objects = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            #expect(!lines.isEmpty && objects.count == lines.count, "\(run.stderr)")
            let last = try #require(objects.last)
            #expect(last["status"] as? String == "done" && last["input"] as? String == source && last[key] != nil, "\(last)")
            if key == "frames" { #expect(last["frames"] as? Int == 3) }
        }
    }

    /// A 4:2:0 Y4M video is masked in its own planes: every frame comes out, the faces' centres
    /// are black (luma 16) in each, and the bytes far from the faces are the input's, unconverted.
    @Test func redactMasksY4MFramesInTheirPlanes() throws {
        let photo = try PNG.read(contentsOf: Goldens.root.appendingPathComponent("images/two_faces_1280x853.png").path)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("redact-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let (input, output) = (folder.appendingPathComponent("in.y4m").path, folder.appendingPathComponent("out.y4m").path)
        let writer = try Y4MWriter(path: input, width: photo.width, height: photo.height)
        for _ in 0..<5 { try writer.write(photo) }
        try writer.flush()
        let run = try Self.run(["redact", input, output, "--mode", "solid", "--no-tiles", "--no-progress"])
        #expect(run.status == 0 && run.stderr.contains("5 frame(s)"), "\(run.stderr)")
        let (a, b) = (try Y4MReader(path: input), try Y4MReader(path: output))
        #expect(a.header == b.header)
        var (before, after, frames) = ([UInt8](), [UInt8](), 0)
        while try a.nextFrame(planes: &before) {
            let more = try b.nextFrame(planes: &after)
            #expect(more)
            frames += 1
            let w = photo.width
            #expect(after[529 * w + 334] == 16 && after[(130 + 95) * w + 880 + 95] == 16, "frame \(frames)")
            #expect(after[0..<(100 * w)] == before[0..<(100 * w)], "the top rows, far from the faces")
        }
        let extra = try b.nextFrame(planes: &after)
        #expect(frames == 5 && !extra)
    }

    /// The two-face photo as limited-range luma (16...235): grey video frames with faces.
    static func twoFacesLuma() throws -> (width: Int, height: Int, luma: [UInt8]) {
        let photo = try PNG.read(contentsOf: Goldens.root.appendingPathComponent("images/two_faces_1280x853.png").path)
        let luma: [UInt8] = (0..<(photo.width * photo.height)).map { i in
            let (r, g, b) = (Int(photo.pixels[3 * i]), Int(photo.pixels[3 * i + 1]), Int(photo.pixels[3 * i + 2]))
            return UInt8(16 + 219 * (r + 2 * g + b) / 1020)
        }
        return (photo.width, photo.height, luma)
    }

    /// A new empty folder under the temporary directory.
    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("redact-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// A 4:4:4 Y4M video goes through RGB, comes out 4:2:0, and looks behind too: faces that
    /// appear at frame 3 are masked on the frames before (no face there yet) as far back as
    /// `--look-behind` reaches, as well as on their own.
    @Test func redactLooksBehindIn444Video() throws {
        let (w, h, luma) = try Self.twoFacesLuma()
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (input, output) = (folder.appendingPathComponent("in.y4m").path, folder.appendingPathComponent("out.y4m").path)
        // Grey frames: chroma 128; the first three frames blank.
        var stream = Array("YUV4MPEG2 W\(w) H\(h) F30:1 Ip A1:1 C444\n".utf8)
        for f in 0..<6 {
            stream += Array("FRAME\n".utf8)
            stream += f < 3 ? [UInt8](repeating: 126, count: w * h) : luma
            stream += [UInt8](repeating: 128, count: 2 * w * h)
        }
        try Data(stream).write(to: URL(fileURLWithPath: input))
        // The face on the left (0.92 in grey): the right one scores 0.52 there, is never confirmed
        // (FaceRedactorOptions.confirmationScore) and so, as a palm taken for a face, is not backfilled.
        let centre = (228 + 165) * w + 60 + 165
        for (reach, masked) in [("21", [true, true, true, true, true, true]), ("1", [false, false, true, true, true, true])] {
            let run = try Self.run(["redact", input, output, "--mode", "solid", "--no-tiles", "--no-progress", "--look-behind", reach])
            #expect(run.status == 0 && run.stderr.contains("6 frame(s)") && !run.stderr.contains(" 0 drawn before"), "\(run.stderr)")
            let reader = try Y4MReader(path: output)
            #expect(reader.header.colorSpace == .c420jpeg)
            var planes = [UInt8](), frames: [[UInt8]] = []
            while try reader.nextFrame(planes: &planes) { frames.append(planes) }
            #expect(frames.map { $0[centre] == 16 } == masked, "--look-behind \(reach)")
        }
    }

    /// By default the look-behind reaches as far back as a face presumed hidden is held forwards
    /// (60 frames), not just `--every` + `--linger` (21): faces that appear at frame 26 of a mono
    /// video are masked on every frame before.
    @Test func redactLooksBehind60FramesByDefault() throws {
        let (w, h, luma) = try Self.twoFacesLuma()
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (input, output) = (folder.appendingPathComponent("in.y4m").path, folder.appendingPathComponent("out.y4m").path)
        var stream = Array("YUV4MPEG2 W\(w) H\(h) F30:1 Ip A1:1 Cmono\n".utf8)
        for f in 0..<27 { stream += Array("FRAME\n".utf8) + (f < 26 ? [UInt8](repeating: 126, count: w * h) : luma) }
        try Data(stream).write(to: URL(fileURLWithPath: input))
        // The face on the left, the one the whole frame finds in grey; a mono mask is 0.
        let face = 529 * w + 334
        for (flags, unmasked) in [([String](), 0), (["--look-behind", "21"], 5)] {
            let run = try Self.run(["redact", input, output, "--mode", "solid", "--no-tiles", "--no-progress"] + flags)
            #expect(run.status == 0 && run.stderr.contains("27 frame(s)"), "\(run.stderr)")
            let reader = try Y4MReader(path: output)
            var planes = [UInt8](), masked: [Bool] = []
            while try reader.nextFrame(planes: &planes) { masked.append(planes[face] == 0) }
            #expect(masked == Array(repeating: false, count: unmasked) + Array(repeating: true, count: 27 - unmasked), "\(flags)")
        }
    }

    /// `redact` on a folder mirrors its pictures, subfolders included, into the output folder,
    /// each under its own name and format; what is not a picture, or does not decode, is named on
    /// stderr, counted, and makes the run exit 65 (some inputs refused) once the rest is done.
    @Test func redactMirrorsAFolder() throws {
        let (folder, images) = try Self.makeBatch()
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("redact-\(UUID().uuidString)").path
        defer { for made in [folder, output] { try? FileManager.default.removeItem(atPath: made) } }
        let run = try Self.run(["redact", folder, output, "--no-tiles"])
        let written = (FileManager.default.enumerator(atPath: output)?.compactMap { $0 as? String } ?? [])
            .filter { $0.contains(".") && !$0.hasPrefix(".") }.sorted()
        #expect(written == ["a.png", "b_sub/photo.jpg", "c.ppm", "d.pgm"], "\(run.stderr)")
        for name in written {
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output + "/" + name)))
            let input = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
            #expect(ImageFormat(sniffing: bytes) == ImageFormat(sniffing: input), "\(name) keeps its format")
        }
        // The broken JPEG is refused (its name says picture); the text file is left out and listed.
        #expect(images.count == 5 && run.stderr.contains("4 picture(s)") && run.stderr.contains("1 refused"), "\(run.stderr)")
        #expect(run.status == 65 && run.stderr.contains("refused \(folder)/e_broken.jpg") && run.stderr.contains("left out \(folder)/notes.txt"))
        #expect(run.stderr.contains("1 not a picture or video (left out"), "\(run.stderr)")
    }

    /// A folder of good photos with a stray text file and hidden files: the text file is left
    /// out and listed, the hidden ones counted, and the run exits 0; a rerun says it had nothing to do.
    @Test func strayAndHiddenFilesInAFolderAreLeftOutAndCounted() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cli-stray-\(UUID().uuidString)").path
        let output = folder + "-out"
        defer { for path in [folder, output] { try? FileManager.default.removeItem(atPath: path) } }
        try FileManager.default.createDirectory(atPath: folder + "/.git", withIntermediateDirectories: true)
        let fixtures = Goldens.root.appendingPathComponent("images").path
        try FileManager.default.copyItem(atPath: fixtures + "/astronaut_tiny48.png", toPath: folder + "/a.png")
        try PNM.write(try Goldens.image("head_71x139"), to: folder + "/b.ppm")
        try Data("notes".utf8).write(to: URL(fileURLWithPath: folder + "/readme.txt"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/.DS_Store"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/.git/config"))
        let first = try Self.run(["redact", folder, output, "--no-tiles"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stderr.contains("left out \(folder)/readme.txt: not a picture"), "\(first.stderr)")
        #expect(first.stderr.contains("2 picture(s)") && first.stderr.contains("1 not a picture or video (left out")
                && first.stderr.contains("2 hidden file(s) or folder(s) left out"), "\(first.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output + "/readme.txt"))
        let manifest = try String(contentsOfFile: output + "/.blazeface/manifest-0-of-1.jsonl", encoding: .utf8)
        #expect(manifest.contains("\"input\":\"readme.txt\"") && manifest.contains("\"status\":\"ignored\"") && manifest.contains("\"ignored\":1"))
        let again = try Self.run(["redact", folder, output, "--no-tiles"])
        #expect(again.status == 0 && again.stderr.contains("nothing to do, 2 input(s) already done"), "\(again.stderr)")
        #expect(!again.stderr.contains("face(s) masked"), "\(again.stderr)")
    }

    @Test func exifOrientationOrExplicitRotationGiveTheSameFace() throws {
        // Stored turned counter-clockwise with EXIF orientation 6: by default the tool turns it
        // upright; with --no-exif-orientation and --rotation 90 it detects on the same turned
        // pixels and reports in the stored picture's coordinates.
        let path = Goldens.root.appendingPathComponent("images/jpeg/astronaut_exif6.jpg").path
        let upright = try Self.keypoints(try #require(try Self.run(["detect", path]).lines.first))
        let stored = try Self.keypoints(try #require(try Self.run(["detect", "--no-exif-orientation", "--rotation", "90", path]).lines.first))
        #expect(upright.count == 6 && stored.count == 6)
        for (u, s) in zip(upright, stored) {
            #expect(abs(s.0 - u.1) <= 1e-4 && abs(s.1 - (1 - u.0)) <= 1e-4, "\(s) vs upright \(u)")
        }
    }
}
