import Foundation
import TestSupport
import Testing

/// Nothing lost, nothing half-done (issue 40): inputs and outputs compared as files, unique
/// outputs, complete videos, signals, verified resumes, plain errors, reproducible bytes; on the
/// built tool with media made at test time.
@Suite(.serialized) struct SafetyCLITests {
    static let fixtures = ShardCLITests.fixtures
    static let flags = ["--no-tiles", "--no-centerface", "--no-progress"]

    /// Runs the tool in `folder` (its working directory); stderr and status.
    static func run(_ arguments: [String], in folder: String? = nil) throws -> (stderr: String, status: Int32) {
        let process = try ShardCLITests.makeProcess(arguments, environment: [:])
        if let folder { process.currentDirectoryURL = URL(fileURLWithPath: folder) }
        let err = Pipe()
        (process.standardOutput, process.standardError) = (FileHandle.nullDevice, err)
        try process.run()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (String(decoding: stderr, as: UTF8.self), process.terminationStatus)
    }

    /// The input records of the manifest of shard 0 of 1 under `output`.
    static func inputRecords(_ output: String, manifest: String = "manifest-0-of-1.jsonl") -> [[String: Any]] {
        ShardCLITests.records(output + "/.blazeface/" + manifest).filter { $0["record"] as? String == "input" }
    }

    static func copyPhoto(to path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixtures + "/astronaut_tiny48.png", toPath: path)
    }

    // MARK: - 1. Identity by file, not by text

    /// An output tree holding a symbolic link into the input tree (`out/sub -> ../in/sub`): the
    /// file whose output would land on its own original is refused (exit 65), the original kept.
    @Test func anOutputLinkedIntoTheInputIsRefused() throws {
        let dir = try ShardCLITests.folder("safety-link")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.copyPhoto(to: dir + "/in/sub/x.png")
        try Self.copyPhoto(to: dir + "/in/y.png")
        try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir + "/out/sub", withDestinationPath: "../in/sub")
        let original = try Data(contentsOf: URL(fileURLWithPath: dir + "/in/sub/x.png"))
        let run = try Self.run(["redact", dir + "/in", dir + "/out"] + Self.flags)
        #expect(run.status == 65, "\(run.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/in/sub/x.png")) == original, "the original is untouched")
        let hidden = try FileManager.default.contentsOfDirectory(atPath: dir + "/in/sub")
        #expect(hidden == ["x.png"], "nothing else written into the input: \(hidden)")
        let records = Self.inputRecords(dir + "/out")
        let refused = records.first { $0["input"] as? String == "sub/x.png" }
        #expect(refused?["status"] as? String == "refused" && (refused?["reason"] as? String)?.contains("is an input") == true, "\(records)")
        #expect(records.first { $0["input"] as? String == "y.png" }?["status"] as? String == "done", "\(records)")
        #expect(run.stderr.contains("never overwritten"), "\(run.stderr)")
    }

    /// An output folder inside the input folder, spelled as an absolute path, as `./in/./out` or
    /// through a symbolic link: a rerun never reads the previous outputs as inputs.
    @Test func outputsAreNeverReadAsInputsHoweverSpelled() throws {
        let dir = try ShardCLITests.folder("safety-inside")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.copyPhoto(to: dir + "/in/a.png")
        try Self.copyPhoto(to: dir + "/in/sub/b.png")
        try FileManager.default.createSymbolicLink(atPath: dir + "/alias", withDestinationPath: "in")
        for (root, output, name) in [("in", dir + "/in/out1", "out1"), ("in", "./in/./out2", "out2"), ("in", "alias/out3", "out3"),
                                     (dir + "/in", "in/out4", "out4")] {
            for pass in 1...2 {
                let run = try Self.run(["redact", root, output] + Self.flags, in: dir)
                #expect(run.status == 0, "\(output) pass \(pass): \(run.stderr)")
            }
            let inputs = Set(Self.inputRecords(dir + "/in/" + name).compactMap { $0["input"] as? String })
            #expect(inputs == ["a.png", "sub/b.png"], "\(output): \(inputs)")
            let visible = try ShardCLITests.files(dir + "/in/" + name).keys.sorted()
            #expect(visible == ["a.png", "sub/b.png"], "\(output): \(visible)")
            try FileManager.default.removeItem(atPath: dir + "/in/" + name)   // the next spelling's run reads only the inputs
        }
    }

    /// `--input-list` takes an absolute path under a relative ROOT; a file reached through a
    /// symbolic link that leaves ROOT is refused, from a list and from a folder walk.
    @Test func listsTakeAbsolutePathsAndLinksOutOfRootAreRefused() throws {
        let dir = try ShardCLITests.folder("safety-list")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.copyPhoto(to: dir + "/in/a.png")
        try Self.copyPhoto(to: dir + "/secret/s.png")
        try FileManager.default.createSymbolicLink(atPath: dir + "/in/s.png", withDestinationPath: dir + "/secret/s.png")
        try [dir + "/in/a.png", "s.png"].joined(separator: "\n").write(toFile: dir + "/list.txt", atomically: true, encoding: .utf8)
        let listed = try Self.run(["redact", "in", "out", "--input-list", "list.txt"] + Self.flags, in: dir)
        #expect(listed.status == 65, "\(listed.stderr)")
        var records = Self.inputRecords(dir + "/out")
        #expect(records.first { $0["input"] as? String == "a.png" }?["status"] as? String == "done", "\(records)")
        let viaList = records.first { $0["input"] as? String == "s.png" }
        #expect(viaList?["status"] as? String == "refused" && (viaList?["reason"] as? String)?.contains("leads out of the input folder") == true,
                "\(records)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/out/s.png"))
        let walked = try Self.run(["redact", "in", "out2"] + Self.flags, in: dir)
        #expect(walked.status == 65, "\(walked.stderr)")
        records = Self.inputRecords(dir + "/out2")
        #expect(records.first { $0["input"] as? String == "s.png" }?["status"] as? String == "refused", "\(records)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/out2/s.png"))
    }

    // MARK: - 2. Unique outputs

    /// `IMG_1.heic` and `IMG_1.jpg` (and `IMG_2.jfif` with `IMG_2.heic`) would write one output:
    /// the one whose name is already the output's keeps it, the other writes NAME.EXT.jpg; the
    /// same names in one shard or three.
    @Test func twoInputsNeverWriteOneOutput() throws {
        let dir = try ShardCLITests.folder("safety-unique")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        let png = Self.fixtures + "/two_faces_1280x853.png"
        for name in ["IMG_1.heic", "IMG_2.heic"] {
            let made = try VideoCLITests.sh("heif-enc", ["-q", "60", png, "-o", dir + "/in/" + name])
            try #require(made.status == 0, "heif-enc (libheif-examples) makes the HEIC: \(made.err)")
        }
        for name in ["IMG_1.jpg", "IMG_2.jfif"] {
            let made = try VideoCLITests.sh("ffmpeg", ["-v", "error", "-y", "-i", png, "-vf", "scale=320:-2", "-f", "mjpeg", dir + "/in/" + name])
            try #require(made.status == 0, "ffmpeg: \(made.err)")
        }
        let one = try Self.run(["redact", dir + "/in", dir + "/one"] + Self.flags)
        #expect(one.status == 0, "\(one.stderr)")
        let expected = ["IMG_1.heic.jpg", "IMG_1.jpg", "IMG_2.heic.jpg", "IMG_2.jfif.jpg"]
        let outputs = try ShardCLITests.files(dir + "/one")
        #expect(outputs.keys.sorted() == expected, "\(outputs.keys.sorted())")
        let records = Self.inputRecords(dir + "/one")
        let map = Dictionary(uniqueKeysWithValues: records.map { ($0["input"] as? String ?? "", $0["output"] as? String ?? "") })
        #expect(map == ["IMG_1.heic": "IMG_1.heic.jpg", "IMG_1.jpg": "IMG_1.jpg", "IMG_2.heic": "IMG_2.heic.jpg", "IMG_2.jfif": "IMG_2.jfif.jpg"],
                "\(map)")
        // The JPEG input is written from itself, not from the HEIC of the same name (different sizes).
        #expect(outputs["IMG_1.jpg"] != outputs["IMG_1.heic.jpg"])
        for i in 0..<3 {
            let run = try Self.run(["redact", dir + "/in", dir + "/three", "--shard", "\(i)/3"] + Self.flags)
            #expect(run.status == 0, "\(run.stderr)")
        }
        #expect(try ShardCLITests.files(dir + "/three") == outputs)
    }

    /// Camera footage in containers this tool does not write (AVI, MPEG-TS as AVCHD's .MTS, 3GP,
    /// an animated GIF) comes out of a folder run as MP4, or as MKV where MP4 cannot hold the
    /// audio copied as it is (PCM), every frame there; `cam.3gp` beside `cam.mp4` writes
    /// `cam.3gp.mp4`; a rerun does nothing. One such file into a folder is named the same way.
    @Test func videosInContainersNotWrittenComeOutAsMP4OrMKV() throws {
        let dir = try ShardCLITests.folder("safety-containers")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        try VideoCLITests.makeClip(dir + "/in/cam.mp4", frames: 6)
        try VideoCLITests.makeClip(dir + "/in/cam.3gp", frames: 6, codecs: ["-c:v", "libx264", "-c:a", "aac", "-f", "3gp"])
        try VideoCLITests.makeClip(dir + "/in/pcm.avi", frames: 6, codecs: ["-c:v", "mpeg4", "-c:a", "pcm_s16le"])
        try VideoCLITests.makeClip(dir + "/in/clip.MTS", frames: 6, codecs: ["-c:v", "libx264", "-c:a", "aac", "-f", "mpegts"])
        try VideoCLITests.makeClip(dir + "/in/anim.gif", frames: 6, codecs: ["-an", "-f", "gif"])
        let run = try Self.run(["redact", dir + "/in", dir + "/out"] + Self.flags)
        #expect(run.status == 0, "\(run.stderr)")
        let map = Dictionary(uniqueKeysWithValues: Self.inputRecords(dir + "/out").map { ($0["input"] as? String ?? "", $0["output"] as? String ?? "") })
        #expect(map == ["cam.mp4": "cam.mp4", "cam.3gp": "cam.3gp.mp4", "pcm.avi": "pcm.mkv", "clip.MTS": "clip.mp4", "anim.gif": "anim.mp4"], "\(map)")
        for (input, output) in map {
            #expect(try VideoCLITests.frameTimes(dir + "/out/" + output).count == 6, "\(input) -> \(output)")
        }
        let audio = try VideoCLITests.probe(dir + "/out/pcm.mkv", ["-select_streams", "a", "-show_entries", "stream=codec_name"])
        #expect((audio["streams"] as? [[String: Any]])?.first?["codec_name"] as? String == "pcm_s16le", "\(audio)")
        let again = try Self.run(["redact", dir + "/in", dir + "/out"] + Self.flags)
        #expect(again.status == 0 && again.stderr.contains("nothing to do"), "\(again.stderr)")
        try FileManager.default.createDirectory(atPath: dir + "/one", withIntermediateDirectories: true)
        let one = try Self.run(["redact", dir + "/in/pcm.avi", dir + "/one"] + Self.flags)
        #expect(one.status == 0 && FileManager.default.fileExists(atPath: dir + "/one/pcm.mkv"), "\(one.stderr)")
    }

    /// One file into a folder: an existing folder, or a name ending in "/", gets the input's name
    /// inside it; missing folders above a file output are made; a folder input with a file's name
    /// as output, an output with no type, and a folder output that lands on the input itself are
    /// refused (exit 64) before anything is written.
    @Test func aSingleFileGoesIntoTheFolderItIsGiven() throws {
        let dir = try ShardCLITests.folder("safety-into")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.copyPhoto(to: dir + "/x.png")
        try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
        for (output, written) in [("out", "out/x.png"), ("new/", "new/x.png"), ("a/b/c.jpg", "a/b/c.jpg")] {
            let run = try Self.run(["redact", "x.png", output] + Self.flags, in: dir)
            #expect(run.status == 0, "\(output): \(run.stderr)")
            #expect(FileManager.default.fileExists(atPath: dir + "/" + written), "\(output): no \(written)")
        }
        let original = try Data(contentsOf: URL(fileURLWithPath: dir + "/x.png"))
        let onItself = try Self.run(["redact", "x.png", "."] + Self.flags, in: dir)
        #expect(onItself.status == 64 && onItself.stderr.contains("never overwritten"), "\(onItself.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/x.png")) == original)
        let untyped = try Self.run(["redact", "x.png", "noext"] + Self.flags, in: dir)
        #expect(untyped.status == 64 && untyped.stderr.contains("give a folder"), "\(untyped.stderr)")
        let folderToFile = try Self.run(["redact", "out", "y.mp4"] + Self.flags, in: dir)
        #expect(folderToFile.status == 64 && folderToFile.stderr.contains("must be a folder"), "\(folderToFile.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/y.mp4") && !FileManager.default.fileExists(atPath: dir + "/noext"))
    }

    // MARK: - 3. Video completeness

    /// A 40-frame clip in `ext`'s container (VP9 + Opus for WebM, H.264 + AAC otherwise; MP4
    /// with its index first, so that a cut copy still opens), and a copy cut at 60% of its bytes.
    static func makeCutClip(_ dir: String, _ name: String, ext: String) throws -> (whole: String, cut: String) {
        let whole = dir + "/whole-" + name + "." + ext, cut = dir + "/in/" + name + "." + ext
        let codecs = ext == "webm" ? ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-c:a", "libopus"]
            : ["-c:v", "libx264", "-g", "8", "-c:a", "aac"]   // a keyframe every 8 frames: the cut copy still decodes some
        try VideoCLITests.makeClip(whole, frames: 40, codecs: codecs, extra: ext == "mp4" ? ["-movflags", "+faststart"] : [])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: whole))
        try bytes.prefix(bytes.count * 6 / 10).write(to: URL(fileURLWithPath: cut))
        return (whole, cut)
    }

    /// Whether `text` gives the shortfall of a 40-frame clip: "N of about 40 (or 41) frames decoded".
    static func saysShortfall(_ text: String) -> Bool {
        text.range(of: #"[0-9]+ of about 4[01] frames decoded"#, options: .regularExpression) != nil
    }

    /// Hidden temporary files left in `folder` (not the manifests' folder).
    static func temporaries(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasPrefix(".") && $0 != ".blazeface" }
    }

    /// MKV, WebM and MP4 files cut at 60%, and an MKV whose keyframe is gone, are refused (65 in a
    /// folder, 1 alone) with the reason, nothing left at the output path; the whole files are
    /// done. --accept-truncated keeps what decodes and records the shortfall; a file of which
    /// no frame decodes is refused even then.
    @Test func truncatedAndKeyframelessVideosAreRefused() throws {
        try VideoCLITests.requireFFmpeg()
        let dir = try ShardCLITests.folder("safety-cut")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        var wholes: [String] = []
        for ext in ["mkv", "webm", "mp4"] { wholes.append(try Self.makeCutClip(dir, "cut", ext: ext).whole) }
        // The MKV without its keyframe (H.264 IDR slices removed): its video packets decode to nothing.
        let made = try VideoCLITests.sh("ffmpeg", ["-v", "error", "-y", "-i", wholes[0], "-c", "copy", "-bsf:v", "filter_units=remove_types=5",
                                                    dir + "/in/nokey.mkv"])
        try #require(made.status == 0, "ffmpeg: \(made.err)")
        try FileManager.default.copyItem(atPath: wholes[0], toPath: dir + "/in/whole.mkv")
        // Alone: the documented failure status (1), the reason, nothing at the output, no temporary file.
        for name in ["cut.mkv", "cut.webm", "cut.mp4", "nokey.mkv"] {
            let target = dir + "/single-" + name
            let run = try Self.run(["redact", dir + "/in/" + name, target] + Self.flags)
            #expect(run.status == 1, "\(name): \(run.status) \(run.stderr)")
            // The input and the frame named once, not once by the reader and again by the command.
            #expect(run.stderr.components(separatedBy: dir + "/in/" + name).count == 2, "\(name): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: target), "\(name): nothing at the output")
            #expect(Self.temporaries(dir).isEmpty, "\(name): \(Self.temporaries(dir))")
        }
        for name in ["cut.mkv", "cut.webm"] {
            let run = try Self.run(["redact", dir + "/in/" + name, dir + "/x-" + name] + Self.flags)
            // "about": the container's duration, rounded, times the rate (40 frames, or 41 where the audio runs a little longer).
            #expect(run.stderr.contains("truncated") && Self.saysShortfall(run.stderr), "\(name): \(run.stderr)")
        }
        // A folder: 65, each cut file refused with its reason, the whole one done.
        let folder = try Self.run(["redact", dir + "/in", dir + "/out"] + Self.flags)
        #expect(folder.status == 65, "\(folder.stderr)")
        let records = Self.inputRecords(dir + "/out")
        for name in ["cut.mkv", "cut.webm", "cut.mp4", "nokey.mkv"] {
            let r = records.first { $0["input"] as? String == name }
            #expect(r?["status"] as? String == "refused" && (r?["reason"] as? String)?.isEmpty == false, "\(name): \(records)")
            #expect(!FileManager.default.fileExists(atPath: dir + "/out/" + name), "\(name)")
        }
        let done = records.first { $0["input"] as? String == "whole.mkv" }
        #expect(done?["status"] as? String == "done" && done?["frames"] as? Int == 40, "\(records)")
        #expect(Self.temporaries(dir + "/out").isEmpty, "\(Self.temporaries(dir + "/out"))")
        // --accept-truncated: the cut MKV and WebM kept as far as they decode, the shortfall recorded.
        let kept = try Self.run(["redact", dir + "/in", dir + "/kept", "--accept-truncated"] + Self.flags)
        let keptRecords = Self.inputRecords(dir + "/kept")
        for name in ["cut.mkv", "cut.webm"] {
            let r = keptRecords.first { $0["input"] as? String == name }
            let frames = r?["frames"] as? Int ?? 0
            #expect(r?["status"] as? String == "done" && Self.saysShortfall(r?["truncated"] as? String ?? "")
                    && frames > 0 && frames < 40, "\(name): \(keptRecords)")
            #expect(try VideoCLITests.frameTimes(dir + "/kept/" + name).count == frames, "\(name)")
        }
        let nokey = keptRecords.first { $0["input"] as? String == "nokey.mkv" }
        #expect(nokey?["status"] as? String == "refused", "\(keptRecords)")
        #expect(kept.status == 65, "\(kept.stderr)")
    }

    // MARK: - 8. Memory bounded and declared

    /// `--max-memory` bounds a video run whatever the look-behind asks for: frames too large for
    /// the budget get a shorter look-behind (said on stderr; every frame still written), and a
    /// video whose frames cannot fit at all is refused before any is read, nothing left at the
    /// output (issue 40: a 16384x4096 clip took 8.9 GB). The budget's figures: Docs/performance.md.
    @Test func videoMemoryStaysWithinMaxMemory() throws {
        try VideoCLITests.requireFFmpeg()
        let dir = try ShardCLITests.folder("safety-memory")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let clip = dir + "/clip.mp4"
        try VideoCLITests.makeClip(clip, frames: 16)   // 320x180: 84 KiB a frame
        let refused = try Self.run(["redact", clip, dir + "/refused.mp4", "--max-memory", "256M"] + Self.flags)
        #expect(refused.status == 1 && refused.stderr.contains("more than --max-memory 256M"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/refused.mp4"))
        #expect(Self.temporaries(dir).isEmpty, "\(Self.temporaries(dir))")
        // 3 MiB past the fixed 512: about 36 such frames, so not the 60-frame look-behind.
        let shortened = try Self.run(["redact", clip, dir + "/short.mp4", "--max-memory", "515M"] + Self.flags)
        #expect(shortened.status == 0, "\(shortened.stderr)")
        #expect(shortened.stderr.contains("320x180 frames: look-behind of") && shortened.stderr.contains("instead of 60"), "\(shortened.stderr)")
        #expect(try VideoCLITests.frameTimes(dir + "/short.mp4").count == 16)
        let plenty = try Self.run(["redact", clip, dir + "/plenty.mp4"] + Self.flags)
        #expect(plenty.status == 0 && !plenty.stderr.contains("look-behind of"), "\(plenty.stderr)")
        let bad = try Self.run(["redact", clip, dir + "/bad.mp4", "--max-memory", "lots"] + Self.flags)
        #expect(bad.status == 64, "\(bad.stderr)")
    }

    // MARK: - 7. Reproducible bytes

    /// Two identical runs write byte-identical MKV and WebM files (no random segment UIDs).
    @Test func matroskaAndWebMOutputsAreReproducible() throws {
        try VideoCLITests.requireFFmpeg()
        let dir = try ShardCLITests.folder("safety-bytes")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try VideoCLITests.makeClip(dir + "/in.mp4", frames: 8)
        for ext in ["mkv", "webm"] {
            var outputs: [Data] = []
            for pass in 0..<2 {
                let target = dir + "/out\(pass).\(ext)"
                let run = try Self.run(["redact", dir + "/in.mp4", target, "--threads", "1"] + (ext == "webm" ? ["--no-audio"] : []) + Self.flags)
                #expect(run.status == 0, "\(run.stderr)")
                outputs.append(try Data(contentsOf: URL(fileURLWithPath: target)))
            }
            #expect(outputs[0].count > 1000 && outputs[0] == outputs[1], "\(ext): two runs differ")
        }
    }

    // MARK: - 4. Signals, stale temporaries, two processes

    /// Waits until `condition` holds (at most `seconds`); whether it did.
    static func wait(_ seconds: Double, until condition: () -> Bool) -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if condition() { return true }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return condition()
    }

    /// A folder of photos and two 60-frame videos, long enough to stop part-way.
    static func makeSlowInput(_ dir: String) throws {
        try ShardCLITests.makeMedia(dir, photos: 2, videos: 0, bad: false)
        for v in 0..<2 { try VideoCLITests.makeClip(dir + "/v\(v).mp4", frames: 60) }
    }

    /// SIGINT and SIGTERM in the middle of a video: exit 130 / 143, no temporary file left, no
    /// manifest record for the unfinished output (every record's output is whole); a rerun completes.
    @Test(arguments: [SIGINT, SIGTERM]) func aSignalStopsCleanly(_ signal: Int32) throws {
        try VideoCLITests.requireFFmpeg()
        let dir = try ShardCLITests.folder("safety-signal")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.makeSlowInput(dir + "/in")
        let process = try ShardCLITests.makeProcess(["redact", dir + "/in", dir + "/out"] + Self.flags, environment: [:])
        let err = Pipe()
        (process.standardOutput, process.standardError) = (FileHandle.nullDevice, err)
        try process.run()
        let writing = Self.wait(120) { Self.temporaries(dir + "/out").contains { $0.hasPrefix(".v") && $0.contains(".partial-") } }
        kill(process.processIdentifier, signal)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(writing, "a video was being written when the signal came")
        #expect(process.terminationReason == .exit && process.terminationStatus == 128 + signal, "\(process.terminationStatus) \(stderr)")
        #expect(Self.temporaries(dir + "/out").isEmpty, "\(Self.temporaries(dir + "/out"))")
        let records = Self.inputRecords(dir + "/out")
        #expect(records.count < 4, "stopped before the end: \(records)")
        for record in records {
            let output = dir + "/out/" + (record["output"] as? String ?? "?")
            #expect(record["status"] as? String == "done" && FileManager.default.fileExists(atPath: output), "\(record)")
        }
        for name in ["v0.mp4", "v1.mp4"] where !records.contains(where: { $0["input"] as? String == name }) {
            #expect(!FileManager.default.fileExists(atPath: dir + "/out/" + name), "\(name) unfinished, not there")
        }
        let again = try Self.run(["redact", dir + "/in", dir + "/out"] + Self.flags)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try ShardCLITests.files(dir + "/out").count == 4)
    }

    /// A single-output run removes the temporary file a killed earlier run left for the same
    /// output (its process gone), never one of a process still running.
    @Test func aSingleOutputRunRemovesStaleTemporaries() throws {
        try VideoCLITests.requireFFmpeg()
        let dir = try ShardCLITests.folder("safety-stale")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try VideoCLITests.makeClip(dir + "/in.mp4", frames: 4)
        let gone = Process()
        gone.executableURL = URL(fileURLWithPath: "/bin/true")
        try gone.run()
        gone.waitUntilExit()
        let dead = gone.processIdentifier, alive = getpid()
        for name in [".out.partial-\(dead)-1a2b3c.mp4", ".out.partial-\(alive)-4d5e6f.mp4", ".photo.png.partial-\(dead)-Ab12Cd",
                     ".photo.png.partial-\(alive)-Ef34Gh"] {
            try Data(repeating: 7, count: 100).write(to: URL(fileURLWithPath: dir + "/" + name))
        }
        let video = try Self.run(["redact", dir + "/in.mp4", dir + "/out.mp4"] + Self.flags)
        #expect(video.status == 0, "\(video.stderr)")
        try Self.copyPhoto(to: dir + "/in.png")
        let photo = try Self.run(["redact", dir + "/in.png", dir + "/photo.png"] + Self.flags)
        #expect(photo.status == 0, "\(photo.stderr)")
        #expect(Self.temporaries(dir).sorted() == [".out.partial-\(alive)-4d5e6f.mp4", ".photo.png.partial-\(alive)-Ef34Gh"],
                "\(Self.temporaries(dir))")
    }

    /// Two processes on one shard: the second exits 75 naming the first, which carries on; no
    /// temporary file of the first is removed by the second.
    @Test func twoProcessesOnOneShardDoNotBothRun() throws {
        try VideoCLITests.requireFFmpeg()
        let dir = try ShardCLITests.folder("safety-lock")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.makeSlowInput(dir + "/in")
        let first = try ShardCLITests.makeProcess(["redact", dir + "/in", dir + "/out"] + Self.flags, environment: [:])
        (first.standardOutput, first.standardError) = (FileHandle.nullDevice, FileHandle.nullDevice)
        try first.run()
        let writing = Self.wait(120) { Self.temporaries(dir + "/out").contains { $0.contains(".partial-") } }
        #expect(writing)
        let second = try Self.run(["redact", dir + "/in", dir + "/out"] + Self.flags)
        #expect(second.status == 75 && second.stderr.contains("another blazeface (process \(first.processIdentifier))"), "\(second.stderr)")
        first.waitUntilExit()
        #expect(first.terminationStatus == 0)
        #expect(try ShardCLITests.files(dir + "/out").count == 4)
        #expect(Self.inputRecords(dir + "/out").allSatisfy { $0["status"] as? String == "done" })
    }

    // MARK: - 5. Resume verifies

    /// Records carry the output's size and SHA-256; an output cut short or edited since is
    /// reported by `manifest merge` (65) and redone by a rerun, to the same bytes.
    @Test func aResumeRedoesAnOutputThatNoLongerMatches() throws {
        try VideoCLITests.requireFFmpeg()
        let dir = try ShardCLITests.folder("safety-resume")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try ShardCLITests.makeMedia(dir + "/in", photos: 2, videos: 1, bad: false)
        let first = try Self.run(["redact", dir + "/in", dir + "/out"] + Self.flags)
        #expect(first.status == 0, "\(first.stderr)")
        let expected = try ShardCLITests.files(dir + "/out")
        for record in Self.inputRecords(dir + "/out") {
            let output = dir + "/out/" + (record["output"] as? String ?? "?")
            let digest = try VideoCLITests.sh("sha256sum", [output]).out.prefix(64)
            #expect(record["output_size"] as? Int == expected[record["output"] as? String ?? ""]?.count
                    && record["output_sha256"] as? String == String(digest), "\(record)")
        }
        // The video cut to 100 bytes, a photo edited (same size).
        let video = dir + "/out/v0.mp4", photo = dir + "/out/p001.png"
        try Data(try Data(contentsOf: URL(fileURLWithPath: video)).prefix(100)).write(to: URL(fileURLWithPath: video))
        var bytes = try Data(contentsOf: URL(fileURLWithPath: photo))
        bytes[bytes.count - 20] ^= 0xff
        try bytes.write(to: URL(fileURLWithPath: photo))
        let merged = try ShardCLITests.run(["manifest", "merge", dir + "/out/.blazeface"])
        #expect(merged.status == 65 && merged.stderr.contains("v0.mp4") && merged.stderr.contains("p001.png")
                && merged.lines.last?.contains("\"stale\":2") == true, "\(merged.stderr) \(merged.lines.last ?? "")")
        let again = try Self.run(["redact", dir + "/in", dir + "/out"] + Self.flags)
        #expect(again.status == 0, "\(again.stderr)")
        let last = Self.inputRecords(dir + "/out").suffix(3)
        for record in last {
            let redone = ["v0.mp4", "p001.png"].contains(record["input"] as? String ?? "")
            #expect(record["status"] as? String == (redone ? "done" : "skipped"), "\(record)")
        }
        #expect(try ShardCLITests.files(dir + "/out") == expected)
        #expect(try ShardCLITests.run(["manifest", "merge", dir + "/out/.blazeface"]).status == 0)
    }

    // MARK: - 6. Errors name the real cause

    /// An output folder that cannot be made (under /sys: "Operation not permitted" as root,
    /// "Permission denied" otherwise) names the folder and the system's reason, and exits 73:
    /// a retry cannot help.
    @Test func anUnwritableOutputSaysWhyAndExits73() throws {
        let dir = try ShardCLITests.folder("safety-readonly")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.copyPhoto(to: dir + "/in/a.png")
        let target = "/sys/blazeface-test-\(UUID().uuidString)/out"
        let run = try Self.run(["redact", dir + "/in", target] + Self.flags)
        #expect(run.status == 73, "\(run.stderr)")
        let parent = (target as NSString).deletingLastPathComponent
        #expect(run.stderr.contains("cannot create \(parent): ")
                && (run.stderr.contains("Operation not permitted") || run.stderr.contains("Permission denied") || run.stderr.contains("Read-only")),
                "\(run.stderr)")
        #expect(!run.stderr.contains("NSCocoaErrorDomain"), "\(run.stderr)")
    }
}
