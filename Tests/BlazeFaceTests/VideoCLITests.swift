import Foundation
import TestSupport
import Testing

/// `blazeface redact`, `track` and `detect` on real containers, end to end: videos made at test
/// time with the `ffmpeg` command from the two-face fixture (H.264 + AAC, a rotation flag, a
/// location tag, a variable frame rate), checked with `ffprobe` and with the tool's own detector.
///
/// Every `redact` here runs with `--upright-only`: these tests are about containers, streams,
/// metadata and masks files, not where faces are looked for, and the probe for faces turned
/// costs each video three more CenterFace searches (`TurnedVideoTests` tests it; FileRedaction's
/// tests redact with the defaults, as the CLI does).
@Suite(.serialized) struct VideoCLITests {
    static let fixtures = Goldens.root.appendingPathComponent("images").path

    /// Runs a command-line program; its stdout, stderr and status.
    @discardableResult
    static func sh(_ program: String, _ arguments: [String]) throws -> (out: String, err: String, status: Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        let out = Pipe(), err = Pipe()
        (process.standardOutput, process.standardError) = (out, err)
        try process.run()
        let o = out.fileHandleForReading.readDataToEndOfFile(), e = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (String(decoding: o, as: UTF8.self), String(decoding: e, as: UTF8.self), process.terminationStatus)
    }

    static func requireFFmpeg() throws {
        let found = try sh("ffmpeg", ["-version"]).status == 0 && sh("ffprobe", ["-version"]).status == 0
        try #require(found, "the ffmpeg and ffprobe commands make and check the test videos: run Tools/install-deps.sh")
    }

    static func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("video-cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// A 320x180 pan (both faces, 52 and 89 pixels wide, in the picture throughout) over the two-face photo at 25 fps with a sine tone (H.264 + AAC unless
    /// `codecs` says otherwise), made by ffmpeg. `extra` goes before the output name.
    static func makeClip(_ path: String, frames: Int = 16, codecs: [String] = ["-c:v", "libx264", "-c:a", "aac"],
                         filter: String = "", extra: [String] = []) throws {
        let pan = "scale=320:-2,crop=320:180:0:'min(n,33)'" + filter
        let args = ["-v", "error", "-y", "-loop", "1", "-framerate", "25", "-i", fixtures + "/two_faces_1280x853.png",
                    "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
                    "-vf", pan, "-frames:v", "\(frames)", "-shortest", "-pix_fmt", "yuv420p"] + codecs + extra + [path]
        let made = try sh("ffmpeg", args)
        try #require(made.status == 0, "ffmpeg: \(made.err)")
    }

    /// ffprobe's JSON for `path`: streams, frames of the video stream, or the format.
    static func probe(_ path: String, _ arguments: [String]) throws -> [String: Any] {
        let r = try sh("ffprobe", ["-v", "error", "-of", "json"] + arguments + [path])
        try #require(r.status == 0, "ffprobe: \(r.err)")
        return try #require(try JSONSerialization.jsonObject(with: Data(r.out.utf8)) as? [String: Any])
    }

    /// The video frames' presentation times in seconds, in order.
    static func frameTimes(_ path: String) throws -> [Double] {
        let json = try probe(path, ["-select_streams", "v:0", "-show_entries", "frame=pts_time"])
        let frames = try #require(json["frames"] as? [[String: Any]])
        return frames.compactMap { ($0["pts_time"] as? String).flatMap(Double.init) }
    }

    /// An md5 of the audio packets, copied as they are.
    static func audioDigest(_ path: String) throws -> String {
        try sh("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a", "-c", "copy", "-f", "md5", "-"]).out
    }

    /// How many frames of `path` the tool's detector finds a face in, of how many.
    static func framesWithFaces(_ path: String) throws -> (withFaces: Int, frames: Int) {
        // Masked faces may still score about 0.55 (a head around a blur); faces that show score above 0.85.
        let r = try CLITests.run(["detect", path, "--min-detection-confidence", "0.75"])
        #expect(r.status == 0, "\(r.stderr)")
        let faces = r.lines.filter { !$0.contains("\"detections\":[]") }.count
        return (faces, r.lines.count)
    }

    @Test func redactsAnMP4WithAudioRotationAndLocation() throws {
        try Self.requireFFmpeg()
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Stored turned a quarter left, with the flag that turns it back: a phone held upright.
        let stored = dir + "/stored.mp4", input = dir + "/phone.mp4", output = dir + "/out.mp4"
        try Self.makeClip(stored, filter: ",transpose=1",
                          extra: ["-metadata", "location=+48.8583+002.2945/", "-metadata", "make=TestPhone", "-movflags", "use_metadata_tags"])
        // FFmpeg 5.1 writes the display matrix from the rotate tag on a stream copy.
        let flagged = try Self.sh("ffmpeg", ["-v", "error", "-i", stored, "-map", "0", "-c", "copy", "-metadata:s:v:0", "rotate=90",
                                             "-movflags", "use_metadata_tags", input])
        try #require(flagged.status == 0, "ffmpeg: \(flagged.err)")
        try FileManager.default.removeItem(atPath: stored)
        let tagsIn = (try Self.probe(input, ["-show_format"])["format"] as? [String: Any])?["tags"] as? [String: String] ?? [:]
        #expect(tagsIn.keys.contains { $0.contains("location") } && tagsIn["make"] == "TestPhone", "the input is tagged: \(tagsIn)")
        let before = try Self.framesWithFaces(input)
        #expect(before.frames == 16 && before.withFaces == 16, "the upright input shows faces in every frame: \(before)")

        let run = try CLITests.run(["redact", "--upright-only", input, output, "--no-progress"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.frameTimes(output) == Self.frameTimes(input))
        #expect(try Self.audioDigest(output) == Self.audioDigest(input))
        let streams = try #require(try Self.probe(output, ["-show_streams"])["streams"] as? [[String: Any]])
        let video = try #require(streams.first { $0["codec_type"] as? String == "video" })
        #expect(video["codec_name"] as? String == "h264")
        #expect(video["width"] as? Int == 320 && video["height"] as? Int == 180, "stored upright")
        #expect(video["side_data_list"] == nil, "no display matrix: the frames are upright")
        let tags = (try Self.probe(output, ["-show_format"])["format"] as? [String: Any])?["tags"] as? [String: String] ?? [:]
        #expect(!tags.keys.contains { $0.lowercased().contains("location") }, "\(tags)")
        #expect(tags["make"] == nil, "\(tags)")
        let after = try Self.framesWithFaces(output)
        #expect(after.frames == 16 && after.withFaces == 0, "a face still detectable after redaction: \(after)")
    }

    @Test(arguments: [("mov", ["-c:v", "libx264", "-c:a", "aac"]), ("mkv", ["-c:v", "libx264", "-c:a", "aac"]),
                      ("webm", ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-c:a", "libopus"])])
    func redactsOtherContainers(ext: String, codecs: [String]) throws {
        try Self.requireFFmpeg()
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = dir + "/in." + ext, output = dir + "/out." + ext
        try Self.makeClip(input, frames: 12, codecs: codecs)
        let run = try CLITests.run(["redact", "--upright-only", input, output, "--no-progress"])
        #expect(run.status == 0, "\(run.stderr)")
        let times = try Self.frameTimes(output), expected = try Self.frameTimes(input)
        #expect(times.count == expected.count)
        for (a, b) in zip(times, expected) { #expect(abs(a - b) < 0.0015, "\(a) against \(b)") }
        #expect(try Self.audioDigest(output) == Self.audioDigest(input))
        #expect(try Self.framesWithFaces(output).withFaces == 0)
    }

    @Test func keepsAVariableFrameRate() throws {
        try Self.requireFFmpeg()
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = dir + "/vfr.mp4", output = dir + "/out.mp4"
        // Frames 40 ms apart, then 80 ms apart from the tenth on.
        try Self.makeClip(input, frames: 24, filter: ",setpts='if(lt(N,10),N*0.04,0.4+(N-10)*0.08)/TB'",
                          extra: ["-fps_mode", "vfr", "-video_track_timescale", "1000"])
        let expected = try Self.frameTimes(input)
        #expect(expected.count == 24 && expected.last! > 1.4, "the input is variable-rate: \(expected)")
        let run = try CLITests.run(["redact", "--upright-only", input, output, "--no-progress"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.frameTimes(output) == expected)
    }

    /// A clip with one damaged video packet mid-file (its NAL length scrambled): refused by
    /// default, nothing written; with --skip-damaged-frames every frame that decodes is written
    /// and masked (as many as ffmpeg decodes), and the drop is reported.
    @Test func aDamagedPacketIsSkippedOnlyWhenAsked() throws {
        try Self.requireFFmpeg()
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = dir + "/in.mp4", damaged = dir + "/damaged.mp4", output = dir + "/out.mp4"
        try Self.makeClip(input, frames: 30, extra: ["-movflags", "+faststart"])
        let packets = try #require(try Self.probe(input, ["-select_streams", "v", "-show_entries", "packet=pos"])["packets"] as? [[String: Any]])
        let position = try #require((packets[12]["pos"] as? String).flatMap { Int($0) })
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: input)))
        for i in position..<(position + 4) { bytes[i] ^= 0x5A }
        try Data(bytes).write(to: URL(fileURLWithPath: damaged))
        let refused = try CLITests.run(["redact", "--upright-only", damaged, output, "--no-progress"])
        #expect(refused.status == 1 && refused.stderr.contains("Invalid data"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
        let kept = try CLITests.run(["redact", "--upright-only", damaged, output, "--no-progress", "--skip-damaged-frames"])
        #expect(kept.status == 0 && kept.stderr.contains("with --skip-damaged-frames: 1 damaged packet(s) or frame(s) dropped"), "\(kept.stderr)")
        func decodedFrames(_ path: String) throws -> Int? {
            let streams = try Self.probe(path, ["-count_frames", "-select_streams", "v", "-show_entries", "stream=nb_read_frames"])["streams"]
            return ((streams as? [[String: Any]])?.first?["nb_read_frames"] as? String).flatMap { Int($0) }
        }
        let written = try #require(try decodedFrames(output))
        #expect(written == (try decodedFrames(damaged)) && written >= 28, "\(written) frames written")
        // Every written frame masked: no face scores as a face in the output.
        let faces = try CLITests.run(["detect", output, "--min-detection-confidence", "0.75"])
        #expect(faces.lines.count == written && faces.lines.allSatisfy { $0.contains("\"detections\":[]") }, "\(faces.lines.prefix(3))")
    }

    /// `--masks FILE`: a header naming the input by SHA-256, a line per frame with every mask
    /// drawn and why, a closing line; the output's bytes are the same as without it; a failed
    /// run leaves no masks file; a photo gets one frame; a folder is refused.
    @Test func theMasksFileRecordsEveryMaskAndWhy() throws {
        try Self.requireFFmpeg()
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = dir + "/in.mp4"
        try Self.makeClip(input, frames: 12)
        let plain = try CLITests.run(["redact", "--upright-only", input, dir + "/plain.mp4", "--no-progress"])
        let run = try CLITests.run(["redact", "--upright-only", input, dir + "/out.mp4", "--no-progress", "--masks", dir + "/out.masks.jsonl"])
        #expect(plain.status == 0 && run.status == 0, "\(run.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/plain.mp4")) == Data(contentsOf: URL(fileURLWithPath: dir + "/out.mp4")),
                "the masks file changes nothing in the output")
        let lines = try String(contentsOfFile: dir + "/out.masks.jsonl", encoding: .utf8).split(separator: "\n")
            .compactMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let header = try #require(lines.first), end = try #require(lines.last)
        let digest = try Self.sh("sha256sum", [input]).out.prefix(64)
        #expect(header["format"] as? String == "blazeface-masks" && header["version"] as? Int == 1
                && (header["input"] as? [String: Any])?["sha256"] as? String == String(digest)
                && header["width"] as? Int == 320 && header["height"] as? Int == 180, "\(header)")
        let frames = lines.dropFirst().dropLast()
        #expect(end["record"] as? String == "end" && end["frames"] as? Int == 12 && frames.count == 12)
        #expect(frames.map { $0["frame"] as? Int } == Array(0..<12))
        let masks = frames.flatMap { ($0["masks"] as? [[String: Any]]) ?? [] }
        #expect(end["masks"] as? Int == masks.count && !masks.isEmpty)
        let reasons = Set(["detected", "tracked", "retraced", "before-found", "held-to-end"])
        for m in masks {
            let box = (m["box"] as? [Double]) ?? []
            #expect(reasons.contains(m["reason"] as? String ?? "") && box.count == 4 && box[2] > 0 && box[0] < 320 && box[1] < 180, "\(m)")
            #expect((m["reason"] as? String == "detected") == (m["score"] != nil), "a score exactly when detected: \(m)")
        }
        // Every detection is one "detected" mask: as many as the summary's face masks.
        let summaryMasks = run.stderr.firstMatch(of: /(\d+) face mask\(s\)/).flatMap { Int($0.1) }
        #expect(masks.filter { $0["reason"] as? String == "detected" }.count == summaryMasks, "\(run.stderr)")

        // A run that fails leaves no masks file (and no temporary one).
        let bytes = try Data(contentsOf: URL(fileURLWithPath: input))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: dir + "/cut.mp4"))
        let failed = try CLITests.run(["redact", "--upright-only", dir + "/cut.mp4", dir + "/cut-out.mp4", "--masks", dir + "/cut.masks.jsonl"])
        #expect(failed.status != 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains("cut") }.sorted() == ["cut.mp4"])

        // A photo: one frame, its two faces detected, boxes in pixels.
        let photo = Goldens.root.appendingPathComponent("images/two_faces_1280x853.png").path
        let still = try CLITests.run(["redact", "--upright-only", photo, dir + "/photo.png", "--masks", dir + "/photo.masks.jsonl"])
        let photoLines = try String(contentsOfFile: dir + "/photo.masks.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(still.status == 0 && photoLines.count == 3 && photoLines[1].hasPrefix("{\"frame\":0,\"masks\":[")
                && photoLines[1].components(separatedBy: "\"reason\":\"detected\"").count - 1 == 2, "\(photoLines)")
        let folder = try CLITests.run(["redact", "--upright-only", dir, dir + "/out-folder", "--masks", dir + "/f.jsonl"])
        #expect(folder.status == 64 && folder.stderr.contains("--masks takes one photo or video"), "\(folder.stderr)")
    }

    /// The frames of a 4:2:0 Y4M file's bytes (header line, then FRAME lines and planes).
    static func y4mFrames(_ data: Data, width: Int, height: Int) -> [[UInt8]] {
        let bytes = [UInt8](data), frameBytes = width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)
        var i = (bytes.firstIndex(of: 0x0A) ?? bytes.count) + 1, out: [[UInt8]] = []
        while i < bytes.count, let end = bytes[i...].firstIndex(of: 0x0A), end + 1 + frameBytes <= bytes.count {
            out.append(Array(bytes[(end + 1)..<(end + 1 + frameBytes)]))
            i = end + 1 + frameBytes
        }
        return out
    }

    /// `--apply-masks`: an unedited masks file redraws the output byte for byte (twice the same);
    /// an edited one (a mask dropped on frame 5, a box added on frame 8) changes the frames there
    /// and only there, and only inside those masks; a masks file for another input is refused (65).
    @Test func appliedMasksRedrawExactlyAndEditsChangeOnlyTheirPlace() throws {
        try Self.requireFFmpeg()
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = dir + "/in.mp4", masks = dir + "/m.jsonl"
        try Self.makeClip(input, frames: 12)
        let first = try CLITests.run(["redact", "--upright-only", input, dir + "/a.y4m", "--masks", masks])
        #expect(first.status == 0, "\(first.stderr)")
        for name in ["b", "c"] {
            let again = try CLITests.run(["redact", "--upright-only", input, dir + "/\(name).y4m", "--apply-masks", masks])
            #expect(again.status == 0 && again.stderr.contains("drawn from"), "\(again.stderr)")
        }
        let a = try Data(contentsOf: URL(fileURLWithPath: dir + "/a.y4m"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/b.y4m")) == a && Data(contentsOf: URL(fileURLWithPath: dir + "/c.y4m")) == a)

        // The edit a reviewer makes: frame 5's first mask removed, a box added on frame 8.
        var lines = try String(contentsOfFile: masks, encoding: .utf8).split(separator: "\n").map { String($0) }
        func edit(_ frame: Int, _ change: (inout [[String: Any]]) -> Void) throws {
            var json = try #require(try JSONSerialization.jsonObject(with: Data(lines[frame + 1].utf8)) as? [String: Any])
            var list = try #require(json["masks"] as? [[String: Any]])
            change(&list)
            json["masks"] = list
            lines[frame + 1] = String(decoding: try JSONSerialization.data(withJSONObject: json), as: UTF8.self)
        }
        var removed: [Double] = []
        try edit(5) { removed = ($0[0]["relativeBox"] as? [Double]) ?? []; $0.removeFirst() }
        let added: [Double] = [0.4, 0.05, 0.15, 0.2]
        try edit(8) { $0.append(["trackingId": -1, "reason": "detected", "box": [0, 0, 0, 0], "relativeBox": added]) }
        try (lines.joined(separator: "\n") + "\n").write(toFile: dir + "/edited.jsonl", atomically: true, encoding: .utf8)
        let edited = try CLITests.run(["redact", "--upright-only", input, dir + "/e.y4m", "--apply-masks", dir + "/edited.jsonl"])
        #expect(edited.status == 0 && removed.count == 4, "\(edited.stderr)")
        // Frame by frame (Y4M 4:2:0, 320x180): where the two outputs differ.
        let (w, h) = (320, 180)
        let before = Self.y4mFrames(a, width: w, height: h), after = Self.y4mFrames(try Data(contentsOf: URL(fileURLWithPath: dir + "/e.y4m")), width: w, height: h)
        #expect(before.count == 12 && after.count == 12)
        /// Whether luma pixel (x, y) lies in `box` (normalized) grown by the mask scale 1.3 and a pixel.
        func inside(_ box: [Double], _ x: Int, _ y: Int) -> Bool {
            let (cx, cy) = ((box[0] + box[2] / 2) * Double(w), (box[1] + box[3] / 2) * Double(h))
            return abs(Double(x) + 0.5 - cx) <= box[2] * Double(w) * 0.65 + 2 && abs(Double(y) + 0.5 - cy) <= box[3] * Double(h) * 0.65 + 2
        }
        for k in 0..<12 {
            var changed = 0, outside = 0
            for y in 0..<h { for x in 0..<w where before[k][y * w + x] != after[k][y * w + x] {
                changed += 1
                if !(k == 5 && inside(removed, x, y)) && !(k == 8 && inside(added, x, y)) { outside += 1 }
            } }
            #expect(outside == 0 && (k == 5 || k == 8 ? changed > 0 : changed == 0), "frame \(k): \(changed) luma pixels changed, \(outside) outside the edits")
        }

        // A masks file for another input: refused with one line, nothing written.
        try Self.makeClip(dir + "/other.mp4", frames: 13)
        let other = try CLITests.run(["redact", "--upright-only", dir + "/other.mp4", dir + "/o.mp4", "--apply-masks", masks])
        #expect(other.status == 65 && other.stderr.contains("is for another input")
                && other.stderr.split(separator: "\n").count == 1, "\(other.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/o.mp4"))
    }

    /// A reviewer's added box (reason `added` with a `carry`) is carried by `--apply-masks` to the
    /// frames around its own, following its face as the pan moves it: with one face's track
    /// removed and a box added on that face on frame 6 only, the face is masked on every frame
    /// again, and nothing else changes (pixel by pixel against the track removed alone). The
    /// review page of the masks file is one self-contained file, a thumbnail per moment.
    @Test func addedBoxesAreCarriedAndTheReviewPageStandsAlone() throws {
        try Self.requireFFmpeg()
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = dir + "/in.mp4", masks = dir + "/m.jsonl"
        try Self.makeClip(input, frames: 12)
        let first = try CLITests.run(["redact", "--upright-only", input, dir + "/a.y4m", "--masks", masks])
        #expect(first.status == 0, "\(first.stderr)")
        var lines = try String(contentsOfFile: masks, encoding: .utf8).split(separator: "\n").map { String($0) }
        var json = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let track = try #require(((json[7]["masks"] as? [[String: Any]])?.first?["trackingId"]) as? Int)
        var faceBoxes: [[Double]] = []   // the face's box on each frame, before the edit
        for k in 1..<(json.count - 1) {
            let list = try #require(json[k]["masks"] as? [[String: Any]])
            faceBoxes.append(try #require(list.first { $0["trackingId"] as? Int == track }?["relativeBox"] as? [Double]))
            json[k]["masks"] = list.filter { $0["trackingId"] as? Int != track }
        }
        func write(_ name: String) throws {
            lines = try json.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
            try (lines.joined(separator: "\n") + "\n").write(toFile: dir + "/" + name, atomically: true, encoding: .utf8)
        }
        try write("removed.jsonl")
        var frame6 = try #require(json[7]["masks"] as? [[String: Any]])
        frame6.append(["trackingId": -1, "reason": "added", "carry": 20, "relativeBox": faceBoxes[6]])
        json[7]["masks"] = frame6
        try write("added.jsonl")
        for name in ["removed", "added"] {
            let run = try CLITests.run(["redact", "--upright-only", input, dir + "/\(name).y4m", "--apply-masks", dir + "/\(name).jsonl"])
            #expect(run.status == 0, "\(name): \(run.stderr)")
        }
        let (w, h) = (320, 180)
        let bare = Self.y4mFrames(try Data(contentsOf: URL(fileURLWithPath: dir + "/removed.y4m")), width: w, height: h)
        let carried = Self.y4mFrames(try Data(contentsOf: URL(fileURLWithPath: dir + "/added.y4m")), width: w, height: h)
        #expect(bare.count == 12 && carried.count == 12)
        for k in 0..<min(bare.count, carried.count) {
            let b = faceBoxes[k], (cx, cy) = ((b[0] + b[2] / 2) * Double(w), (b[1] + b[3] / 2) * Double(h))
            var inside = 0, outside = 0
            for y in 0..<h { for x in 0..<w where bare[k][y * w + x] != carried[k][y * w + x] {
                // The mask (1.3 times the box) about wherever the face was followed to: within its box's size.
                if abs(Double(x) + 0.5 - cx) <= b[2] * Double(w) * 1.3 && abs(Double(y) + 0.5 - cy) <= b[3] * Double(h) * 1.3 { inside += 1 } else { outside += 1 }
            } }
            #expect(inside > 200 && outside == 0, "frame \(k): \(inside) luma pixels masked about the face, \(outside) elsewhere")
        }

        let review = try CLITests.run(["review", input, masks, "-o", dir + "/review.html", "--sample-every", "4"])
        #expect(review.status == 0, "\(review.stderr)")
        let page = try String(contentsOfFile: dir + "/review.html", encoding: .utf8)
        #expect(page.contains("http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'"))
        #expect(!page.contains("src=\"http") && !page.contains("href=\"http") && !page.contains("url(http"))
        #expect(page.components(separatedBy: "data:image/jpeg;base64,").count - 1 == 3, "frames 0, 4 and 8")
        try Self.makeClip(dir + "/other.mp4", frames: 13)
        let other = try CLITests.run(["review", dir + "/other.mp4", masks, "-o", dir + "/other.html"])
        #expect(other.status == 65 && !FileManager.default.fileExists(atPath: dir + "/other.html"), "\(other.stderr)")
    }

    /// `--mask-region` masks a fixed box (whole, in its time range only) and `--keep-track` leaves
    /// one face unmasked, both recorded in the masks file; on Y4M output, pixel by pixel, against
    /// the plain redaction. `--keep-region` on a photo keeps only a face wholly inside it.
    @Test func regionsAndKeptFacesChangeOnlyTheirPlace() throws {
        try Self.requireFFmpeg()
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = dir + "/in.mp4"
        try Self.makeClip(input, frames: 12)   // 25 fps: frame k at 40k ms
        let plain = try CLITests.run(["redact", "--upright-only", input, dir + "/plain.y4m", "--masks", dir + "/plain.jsonl"])
        let region = try CLITests.run(["redact", "--upright-only", input, dir + "/region.y4m", "--masks", dir + "/region.jsonl",
                                       "--mask-region", "10,10,50,40@0.12-0.2"])
        let kept = try CLITests.run(["redact", "--upright-only", input, dir + "/kept.y4m", "--masks", dir + "/kept.jsonl", "--keep-track", "2"])
        #expect(plain.status == 0 && region.status == 0 && kept.status == 0, "\(region.stderr) \(kept.stderr)")
        let (w, h) = (320, 180)
        func frames(_ path: String) throws -> [[UInt8]] {
            Self.y4mFrames(try Data(contentsOf: URL(fileURLWithPath: dir + "/" + path)), width: w, height: h)
        }
        func masks(_ path: String) throws -> [[[String: Any]]] {
            try String(contentsOfFile: dir + "/" + path, encoding: .utf8).split(separator: "\n").dropFirst().dropLast()
                .map { (try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["masks"] as? [[String: Any]] ?? [] }
        }
        let base = try frames("plain.y4m"), withRegion = try frames("region.y4m"), withKept = try frames("kept.y4m")
        // The region: frames 3 to 5 (120 to 200 ms), inside the box exactly (luma), and recorded.
        let regionMasks = try masks("region.jsonl")
        for k in 0..<12 {
            var inside = 0, outside = 0
            for y in 0..<h { for x in 0..<w where base[k][y * w + x] != withRegion[k][y * w + x] {
                if (10..<60).contains(x) && (10..<50).contains(y) { inside += 1 } else { outside += 1 }
            } }
            let timed = (3...5).contains(k)
            #expect(outside == 0 && (timed ? inside > 1000 : inside == 0), "frame \(k): \(inside) inside, \(outside) outside")
            #expect(regionMasks[k].contains { $0["reason"] as? String == "region" } == timed)
        }
        // The kept face: its masks recorded as kept, its pixels as the input's (the other face still masked).
        let keptMasks = try masks("kept.jsonl")
        #expect(keptMasks.allSatisfy { frame in frame.contains { $0["trackingId"] as? Int == 2 && $0["reason"] as? String == "kept" }
                                             && !frame.contains { $0["trackingId"] as? Int == 2 && $0["reason"] as? String != "kept" } })
        #expect(keptMasks.allSatisfy { frame in frame.contains { $0["trackingId"] as? Int == 1 && $0["reason"] as? String == "detected" } })
        #expect(zip(base, withKept).allSatisfy { $0 != $1 }, "every frame shows the kept face")
        let faces = try CLITests.run(["detect", dir + "/kept.y4m", "--min-detection-confidence", "0.75"])
        #expect(faces.lines.count == 12 && faces.lines.allSatisfy { $0.components(separatedBy: "\"boundingBox\"").count - 1 == 1 },
                "one face shows on every frame: \(faces.lines.first ?? "")")

        // A photo: a kept region holding one of the two faces whole keeps it; one cutting a face keeps nothing.
        let photo = Goldens.root.appendingPathComponent("images/two_faces_1280x853.png").path
        let whole = try CLITests.run(["redact", "--upright-only", photo, dir + "/whole.png", "--keep-region", "0,0,640,853"])
        let cut = try CLITests.run(["redact", "--upright-only", photo, dir + "/cut.png", "--keep-region", "0,0,300,853"])
        #expect(whole.status == 0 && cut.status == 0)
        #expect(try PhotoCLITests.faces(dir + "/whole.png") == 1 && PhotoCLITests.faces(dir + "/cut.png") == 0)
        let bad = try CLITests.run(["redact", "--upright-only", photo, dir + "/x.png", "--mask-region", "1,2,3"])
        #expect(bad.status == 64 && bad.stderr.contains("--mask-region 1,2,3"), "\(bad.stderr)")
    }

    @Test func aTruncatedVideoFailsAndLeavesNothing() throws {
        try Self.requireFFmpeg()
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = dir + "/in.mp4", cut = dir + "/cut.mp4", output = dir + "/out.mp4"
        try Self.makeClip(input, frames: 20)
        for faststart in [false, true] {
            if faststart { try Self.makeClip(input, frames: 20, extra: ["-movflags", "+faststart"]) }
            let bytes = try Data(contentsOf: URL(fileURLWithPath: input))
            try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: cut))
            let run = try CLITests.run(["redact", "--upright-only", cut, output, "--no-progress"])
            #expect(run.status != 0, "faststart \(faststart): \(run.stderr)")
            #expect(run.stderr.contains(cut), "the error names the input: \(run.stderr)")
            // The cause, named: the index missing (written last), or the index placing data past the end.
            let cause = faststart ? "truncated: the file is cut short: it ends at byte \(bytes.count / 2), and its index places data up to byte"
                                  : "an MP4/MOV cut short before its index"
            #expect(run.stderr.contains(cause) && run.stderr.components(separatedBy: cut).count == 2,
                    "faststart \(faststart): the cause, once: \(run.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["cut.mp4", "in.mp4"])
            let detect = try CLITests.run(["detect", cut])
            #expect(detect.status != 0 && detect.stderr.contains(faststart ? "cut short" : "cut short before its index"), "\(detect.stderr)")
        }
    }

    @Test func trackReadsAVideoAsItsY4MFrames() throws {
        try Self.requireFFmpeg()
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = dir + "/in.mkv", y4m = dir + "/in.y4m"
        try Self.makeClip(input, frames: 15)
        // Frame for frame (no frame rate conversion); Y4M has no timestamps of its own, so they are left out.
        try #require(try Self.sh("ffmpeg", ["-v", "error", "-i", input, "-fps_mode", "passthrough", "-f", "yuv4mpegpipe",
                                            "-pix_fmt", "yuv420p", y4m]).status == 0)
        let fromVideo = try CLITests.run(["track", input]), fromY4M = try CLITests.run(["track", y4m])
        #expect(fromVideo.status == 0 && fromY4M.status == 0, "\(fromVideo.stderr) \(fromY4M.stderr)")
        func faces(_ lines: [String]) -> [String] { lines.map { $0.replacing(/"timestampMs":[0-9]+,/, with: "") } }
        #expect(fromVideo.lines.count == 15 && fromVideo.lines.allSatisfy { $0.contains("trackingId") })
        #expect(faces(fromVideo.lines) == faces(fromY4M.lines))
    }

    /// `analyze` on a video analyses its frames as pictures, one line per --every-th frame with
    /// its index and timestamp; the same frames read from Y4M give the same faces.
    @Test func analyzeReadsAVideoFrameByFrame() throws {
        try Self.requireFFmpeg()
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = dir + "/in.mp4", y4m = dir + "/in.y4m"
        try Self.makeClip(input, frames: 10)
        try #require(try Self.sh("ffmpeg", ["-v", "error", "-i", input, "-fps_mode", "passthrough", "-f", "yuv4mpegpipe",
                                            "-pix_fmt", "yuv420p", y4m]).status == 0)
        let fromVideo = try CLITests.run(["analyze", input, "--every", "3", "--landmarks"])
        let fromY4M = try CLITests.run(["analyze", y4m, "--every", "3", "--landmarks"])
        #expect(fromVideo.status == 0 && fromY4M.status == 0, "\(fromVideo.stderr) \(fromY4M.stderr)")
        let frames = fromVideo.lines.compactMap { $0.firstMatch(of: /"frame":([0-9]+),"timestampMs":[0-9]+,/).map { Int($0.1)! } }
        #expect(frames == [0, 3, 6, 9], "\(fromVideo.lines.map { $0.prefix(120) })")
        #expect(fromVideo.lines.allSatisfy { $0.contains("\"landmarks\"") }, "every frame's face analysed")
        func faces(_ lines: [String]) -> [String] { lines.map { String($0[$0.firstRange(of: "\"width\"")!.lowerBound...]) } }
        #expect(faces(fromVideo.lines) == faces(fromY4M.lines))
        let annotate = try CLITests.run(["analyze", input, "--landmarks", "--annotate", dir + "/a.png"])
        #expect(annotate.status == 64 && annotate.stderr.contains("one picture, not a video"), "\(annotate.stderr)")
    }

    @Test func theInputIsNeverTheOutput() throws {
        try Self.requireFFmpeg()
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = dir + "/in.mp4"
        try Self.makeClip(input, frames: 5)
        let original = try Data(contentsOf: URL(fileURLWithPath: input))
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.mp4", withDestinationPath: input)
        for (command, target) in [(["redact", "--upright-only", input], input), (["redact", "--upright-only", input], dir + "/link.mp4"),
                                  (["redact", "--upright-only", input, dir + "/./in.mp4"], ""), (["track", input, "--annotate"], input)] {
            let run = try CLITests.run(command + (target.isEmpty ? [] : [target]))
            #expect(run.status != 0 && run.stderr.contains("is the input"), "\(command): \(run.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: input)) == original)
        let unknown = try CLITests.run(["redact", "--upright-only", input, dir + "/out.avi"])
        #expect(unknown.status != 0 && unknown.stderr.contains(".webm"), "the error lists the types: \(unknown.stderr)")
    }

    /// Truncated and bit-flipped videos through `redact` and `track`: the tool exits (never a
    /// signal), a failure names the input, and a failed redaction leaves nothing in the folder.
    @Test func damagedVideosGiveErrorsNotCrashes() throws {
        try Self.requireFFmpeg()
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = dir + "/in.mp4"
        try Self.makeClip(input, frames: 12)
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: input)))
        var rng = SeededGenerator(seed: 32)   // the same damage on every run
        var variants: [(String, [UInt8])] = [0.1, 0.5, 0.9].map { ("cut\(Int($0 * 100))", Array(original.prefix(Int(Double(original.count) * $0)))) }
        for k in 0..<4 {
            var flipped = original
            for _ in 0..<(8 << k) { flipped[Int.random(in: 0..<flipped.count, using: &rng)] ^= UInt8(1 << Int.random(in: 0..<8, using: &rng)) }
            variants.append(("flip\(k)", flipped))
        }
        for (name, bytes) in variants {
            let damaged = dir + "/\(name).mp4", output = dir + "/out-\(name).mp4"
            try Data(bytes).write(to: URL(fileURLWithPath: damaged))
            let redact = try CLITests.run(["redact", "--upright-only", damaged, output, "--no-progress"])
            #expect(redact.status == 0 || redact.stderr.contains(damaged), "\(name): \(redact.stderr)")
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(".") || $0.hasPrefix("out-") }
            #expect(leftovers == (redact.status == 0 ? ["out-\(name).mp4"] : []), "\(name): \(leftovers)")
            try? FileManager.default.removeItem(atPath: output)
            let track = try CLITests.run(["track", damaged])
            #expect(track.status == 0 || track.stderr.contains(damaged), "\(name): \(track.stderr)")
        }
    }
}
