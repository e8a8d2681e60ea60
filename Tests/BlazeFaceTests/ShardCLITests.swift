import Foundation
import TestSupport
import Testing

/// Batch runs across machines (issue 35): `--shard I/N` and the engines' index variables, the
/// per-shard manifest, resuming after a kill, and the exit codes, on the built tool with photos
/// and videos made by ffmpeg at test time.
@Suite(.serialized) struct ShardCLITests {
    static let fixtures = Goldens.root.appendingPathComponent("images").path

    /// Runs the tool with extra environment variables (and none of the engines' from this
    /// process's own environment); stdout lines, stderr, status.
    static func run(_ arguments: [String], environment extra: [String: String] = [:]) throws -> (lines: [String], stderr: String, status: Int32) {
        let process = try makeProcess(arguments, environment: extra)
        let out = Pipe(), err = Pipe()
        (process.standardOutput, process.standardError) = (out, err)
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile(), stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (String(decoding: stdout, as: UTF8.self).split(separator: "\n").map(String.init), String(decoding: stderr, as: UTF8.self),
                process.terminationStatus)
    }

    static func makeProcess(_ arguments: [String], environment extra: [String: String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(FileManager.default.isExecutableFile(atPath: CLITests.tool) ? CLITests.tool : nil))
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        for name in ["JOB_COMPLETION_INDEX", "SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_COUNT", "AWS_BATCH_JOB_ARRAY_INDEX"] {
            environment[name] = nil
        }
        environment["BLAZEFACE_WEIGHTS"] = URL(fileURLWithPath: Goldens.weights).deletingLastPathComponent().path
        environment.merge(extra) { $1 }
        process.environment = environment
        return process
    }

    static func folder(_ name: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// `photos` small pictures of the two-face photo (a window panning over it, PNG and JPEG,
    /// some in a subfolder), `videos` 8-frame 160x96 H.264 + AAC clips, and, with `bad`, a
    /// truncated JPEG and a text file.
    static func makeMedia(_ dir: String, photos: Int, videos: Int, bad: Bool) throws {
        try FileManager.default.createDirectory(atPath: dir + "/sub", withIntermediateDirectories: true)
        let source = fixtures + "/two_faces_1280x853.png"
        let half = (photos + 1) / 2
        for (ext, count, folder) in [("png", half, dir), ("jpg", photos - half, dir + "/sub")] where count > 0 {
            let made = try VideoCLITests.sh("ffmpeg", ["-v", "error", "-y", "-loop", "1", "-i", source, "-vf",
                                                       "scale=200:-2,crop=128:96:'mod(n*7,72)':'mod(n*5,36)'", "-frames:v", "\(count)",
                                                       folder + "/p%03d." + ext])
            try #require(made.status == 0, "ffmpeg: \(made.err)")
        }
        for v in 0..<videos {
            let made = try VideoCLITests.sh("ffmpeg", ["-v", "error", "-y", "-loop", "1", "-framerate", "25", "-i", source, "-f", "lavfi",
                                                       "-i", "sine=frequency=440:sample_rate=48000", "-vf",
                                                       "scale=200:-2,crop=160:96:'min(n*2,40)+\(v * 4)':8", "-frames:v", "8", "-shortest",
                                                       "-pix_fmt", "yuv420p", "-c:v", "libx264", "-c:a", "aac", dir + "/v\(v).mp4"])
            try #require(made.status == 0, "ffmpeg: \(made.err)")
        }
        if bad {
            let jpeg = try Data(contentsOf: URL(fileURLWithPath: fixtures + "/jpeg/astronaut_baseline.jpg"))
            try jpeg.prefix(2000).write(to: URL(fileURLWithPath: dir + "/sub/broken.jpg"))
            try Data("not a picture".utf8).write(to: URL(fileURLWithPath: dir + "/notes.txt"))
        }
    }

    /// The visible files under `dir` (relative paths; hidden files and folders left out) and their bytes.
    static func files(_ dir: String) throws -> [String: Data] {
        var out: [String: Data] = [:]
        for case let relative as String in FileManager.default.enumerator(atPath: dir)?.allObjects ?? [] {
            guard !relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) else { continue }
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: dir + "/" + relative, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            out[relative] = try Data(contentsOf: URL(fileURLWithPath: dir + "/" + relative))
        }
        return out
    }

    /// A manifest's parsable lines (a torn one passed over).
    static func records(_ path: String) -> [[String: Any]] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return data.split(separator: UInt8(ascii: "\n")).compactMap { try? JSONSerialization.jsonObject(with: Data($0)) as? [String: Any] }
    }

    /// The shard of `key` as Docs/clusters.md says, computed with the `sha256sum` command.
    static func shardBySha256sum(_ key: String, count: Int) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sha256sum"]
        let input = Pipe(), output = Pipe()
        (process.standardInput, process.standardOutput) = (input, output)
        try process.run()
        input.fileHandleForWriting.write(Data(key.utf8))
        try input.fileHandleForWriting.close()
        let hex = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).prefix(16)
        process.waitUntilExit()
        return Int(try #require(UInt64(hex, radix: 16)) % UInt64(count))
    }

    @Test func theShardComesFromTheFlagOrTheEnginesEnvironment() throws {
        let dir = try Self.folder("shard-env")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let names = (0..<8).map { "img\($0).png" }
        for name in names { try FileManager.default.copyItem(atPath: Self.fixtures + "/astronaut_tiny48.png", toPath: dir + "/" + name) }
        func images(_ arguments: [String], _ environment: [String: String] = [:]) throws -> [String] {
            let run = try Self.run(["detect", dir, "--no-progress"] + arguments, environment: environment)
            #expect(run.status == 0, "\(arguments) \(environment): \(run.stderr)")
            return run.lines.compactMap { line in
                ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?["image"] as? String
            }.map { ($0 as NSString).lastPathComponent }
        }
        // --shard: each input in exactly one of 3 shards, by SHA-256 of its relative path, as Docs/clusters.md says.
        var seen: [String] = []
        for i in 0..<3 {
            let mine = try images(["--shard", "\(i)/3"])
            for name in mine { #expect(try Self.shardBySha256sum(name, count: 3) == i, "\(name)") }
            seen += mine
        }
        #expect(seen.sorted() == names.sorted())
        let expected = try images(["--shard", "1/3"])
        #expect(!expected.isEmpty)
        // Kubernetes (the count from --shard-count), Slurm (the count from the array, the index from its minimum), AWS Batch.
        #expect(try images(["--shard-count", "3"], ["JOB_COMPLETION_INDEX": "1"]) == expected)
        #expect(try images([], ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "3"]) == expected)
        #expect(try images([], ["SLURM_ARRAY_TASK_ID": "6", "SLURM_ARRAY_TASK_MIN": "5", "SLURM_ARRAY_TASK_COUNT": "3"]) == expected)
        #expect(try images(["--shard-count", "3"], ["AWS_BATCH_JOB_ARRAY_INDEX": "1"]) == expected)
        // Precedence: --shard, then JOB_COMPLETION_INDEX, then SLURM_ARRAY_TASK_ID, then AWS_BATCH_JOB_ARRAY_INDEX.
        #expect(try images(["--shard", "1/3"], ["JOB_COMPLETION_INDEX": "0", "SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "3"]) == expected)
        #expect(try images(["--shard-count", "3"], ["JOB_COMPLETION_INDEX": "1", "SLURM_ARRAY_TASK_ID": "2", "AWS_BATCH_JOB_ARRAY_INDEX": "0"]) == expected)
        #expect(try images([], ["SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "3", "AWS_BATCH_JOB_ARRAY_INDEX": "0"]) == expected)
        // No index, no count: every input.
        #expect(try images([]).sorted() == names.sorted())
        // Usage errors (64): a count the engine does not give, a malformed or out-of-range shard.
        for (arguments, environment) in [([], ["JOB_COMPLETION_INDEX": "1"]), ([], ["AWS_BATCH_JOB_ARRAY_INDEX": "0"]),
                                         (["--shard", "3/3"], [:]), (["--shard", "1-3"], [:]), (["--shard-count", "3"], [:]),
                                         (["--shard-count", "2"], ["JOB_COMPLETION_INDEX": "2"]), (["--shard", "0/2", "--shard-count", "3"], [:])] {
            let run = try Self.run(["detect", dir] + arguments, environment: environment)
            #expect(run.status == 64 && run.lines.isEmpty, "\(arguments) \(environment): \(run.status) \(run.stderr)")
        }
        // --input-list: the listed paths, sharded the same way; --progress json: one line per input on stderr.
        let list = dir + "/list.txt"
        try (names.map { dir + "/" + $0 } + ["# a comment", ""]).joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
        let listed = try Self.run(["detect", "--input-list", list, "--progress", "json"])
        #expect(listed.status == 0 && listed.lines.count == names.count, "\(listed.stderr)")
        let progress = listed.stderr.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(progress.count == names.count && progress.allSatisfy { $0["status"] as? String == "done" && $0["of"] as? Int == names.count })
    }

    /// One shard or three (in another order, at other --threads) give byte-identical outputs;
    /// every input is in exactly one shard's manifest; the merged totals are the single run's; a
    /// bad input is refused (exit 65) with its reason, and a stray text file left out, while the
    /// good ones are all done.
    @Test func oneShardOrThreeGiveTheSameBytes() throws {
        try VideoCLITests.requireFFmpeg()
        let dir = try Self.folder("shard-same")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.makeMedia(dir + "/in", photos: 10, videos: 2, bad: true)
        let flags = ["--no-tiles", "--no-progress", "--upright-only"]   // shards, not the search: as stored
        let single = try Self.run(["redact", dir + "/in", dir + "/one", "--threads", "1"] + flags)
        #expect(single.status == 65, "\(single.stderr)")
        var statuses: [Int32] = []
        for (i, jobs) in [(2, "2"), (0, "1"), (1, "3")] {
            let run = try Self.run(["redact", dir + "/in", dir + "/three", "--shard", "\(i)/3", "--threads", jobs] + flags)
            statuses.append(run.status)
            #expect(run.status == 0 || run.status == 65, "\(run.stderr)")
        }
        #expect(statuses.contains(65))
        let one = try Self.files(dir + "/one"), three = try Self.files(dir + "/three")
        #expect(one.count == 12 && one.keys.sorted() == three.keys.sorted(), "\(one.keys.sorted()) \(three.keys.sorted())")
        for (name, bytes) in one { #expect(three[name] == bytes, "\(name) differs") }
        // Every input in exactly one shard's manifest; the bad ones refused with a reason.
        var owners: [String: [Int]] = [:]
        for i in 0..<3 {
            for record in Self.records(dir + "/three/.blazeface/manifest-\(i)-of-3.jsonl") where record["record"] as? String == "input" {
                owners[record["input"] as? String ?? "", default: []].append(i)
                if (record["input"] as? String)?.hasSuffix("broken.jpg") == true {
                    #expect(record["status"] as? String == "refused" && (record["reason"] as? String)?.isEmpty == false, "\(record)")
                } else if record["input"] as? String == "notes.txt" {
                    // Not a picture or video, and not named like one: left out and listed.
                    #expect(record["status"] as? String == "ignored" && (record["reason"] as? String)?.isEmpty == false, "\(record)")
                } else {
                    #expect(record["status"] as? String == "done", "\(record)")
                }
            }
        }
        #expect(owners.count == 14 && owners.values.allSatisfy { $0.count == 1 }, "\(owners)")
        // The content hash is SHA-256 of the input's bytes, as sha256sum prints it (a video: many blocks).
        let video = try #require(Self.records(dir + "/one/.blazeface/manifest-0-of-1.jsonl").first { $0["input"] as? String == "v1.mp4" })
        let printed = try VideoCLITests.sh("sha256sum", [dir + "/in/v1.mp4"]).out.prefix(64)
        #expect(video["sha256"] as? String == String(printed) && video["frames"] as? Int == 8, "\(video)")
        let mergedOne = try Self.run(["manifest", "merge", dir + "/one/.blazeface"])
        let mergedThree = try Self.run(["manifest", "merge", dir + "/three/.blazeface"])
        #expect(mergedOne.status == 0 && mergedThree.status == 0 && mergedThree.lines.count == 15, "\(mergedThree.stderr)")
        func totals(_ line: String?) throws -> [String: Int] {
            let json = try #require(try JSONSerialization.jsonObject(with: Data((line ?? "").utf8)) as? [String: Any])
            return ["inputs", "completed", "refused", "failed", "ignored", "faces", "frames"].reduce(into: [:]) { $0[$1] = json[$1] as? Int }
        }
        let t = try totals(mergedThree.lines.last)
        #expect(try totals(mergedOne.lines.last) == t && t["inputs"] == 14 && t["completed"] == 12 && t["refused"] == 1 && t["ignored"] == 1 && t["frames"] == 16, "\(t)")
        // A rerun of a shard does nothing again: every input skipped or refused, the outputs untouched.
        let again = try Self.run(["redact", dir + "/in", dir + "/three", "--shard", "0/3"] + flags)
        let last = Self.records(dir + "/three/.blazeface/manifest-0-of-3.jsonl").filter { $0["record"] as? String == "input" }.suffix(owners.values.filter { $0 == [0] }.count)
        #expect(last.allSatisfy { $0["status"] as? String != "done" }, "\(again.stderr)")
        #expect(again.stderr.contains(" 0 picture(s)") || again.stderr.contains("nothing to do"), "\(again.stderr)")
        #expect(try Self.files(dir + "/three") == three)
    }

    /// A run killed with SIGKILL at several moments never leaves a partial file at an output
    /// path; each rerun redoes only the inputs not recorded as done; the end is byte for byte
    /// an uninterrupted run's.
    @Test func aKilledRunResumesToTheSameOutputs() throws {
        try VideoCLITests.requireFFmpeg()
        let dir = try Self.folder("shard-kill")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.makeMedia(dir + "/in", photos: 10, videos: 1, bad: false)
        let flags = ["--no-tiles", "--no-progress", "--upright-only"]   // shards, not the search: as stored
        let start = Date()
        let reference = try Self.run(["redact", dir + "/in", dir + "/ref"] + flags)
        let duration = Date().timeIntervalSince(start)
        #expect(reference.status == 0, "\(reference.stderr)")
        let expected = try Self.files(dir + "/ref")
        let manifest = dir + "/out/.blazeface/manifest-0-of-1.jsonl"
        var generator = SeededGenerator(seed: 35)
        var kills = 0
        for fraction in [0.1, 0.35, 0.6, 0.85] {
            let before = Self.records(manifest).filter { $0["record"] as? String == "input" }
            let doneBefore = Set(before.filter { $0["status"] as? String == "done" }.compactMap { $0["input"] as? String })
            let process = try Self.makeProcess(["redact", dir + "/in", dir + "/out"] + flags, environment: [:])
            process.standardError = FileHandle.nullDevice
            try process.run()
            let delay = duration * (fraction + 0.1 * Double(generator.next() % 1000) / 1000)
            Thread.sleep(forTimeInterval: delay)
            if process.isRunning { kill(process.processIdentifier, SIGKILL); kills += 1 }
            process.waitUntilExit()
            // Nothing partial at an output path: each visible file is the uninterrupted run's, byte for byte.
            for (name, bytes) in try Self.files(dir + "/out") { #expect(expected[name] == bytes, "\(name) after a kill at \(delay) s") }
            // This run redid only what was not recorded as done.
            let new = Self.records(manifest).filter { $0["record"] as? String == "input" }.dropFirst(before.count)
            for record in new where doneBefore.contains(record["input"] as? String ?? "") {
                #expect(record["status"] as? String == "skipped", "\(record)")
            }
        }
        #expect(kills >= 2, "the runs were killed part-way")
        let before = Self.records(manifest).filter { $0["record"] as? String == "input" }.count
        let doneBefore = Set(Self.records(manifest).filter { $0["status"] as? String == "done" }.compactMap { $0["input"] as? String })
        let last = try Self.run(["redact", dir + "/in", dir + "/out"] + flags)
        #expect(last.status == 0, "\(last.stderr)")
        #expect(try Self.files(dir + "/out") == expected)
        let final = Self.records(manifest).filter { $0["record"] as? String == "input" }.dropFirst(before)
        #expect(final.count == 11)
        for record in final {
            let input = record["input"] as? String ?? ""
            #expect(record["status"] as? String == (doneBefore.contains(input) ? "skipped" : "done"), "\(record)")
        }
        // No temporary file is left behind either.
        let hidden = try FileManager.default.subpathsOfDirectory(atPath: dir + "/out").filter {
            ($0 as NSString).lastPathComponent.hasPrefix(".") && !$0.hasPrefix(".blazeface")
        }
        #expect(hidden.isEmpty, "\(hidden)")
        // --force redoes everything.
        let forced = try Self.run(["redact", dir + "/in", dir + "/out", "--force"] + flags)
        #expect(forced.status == 0 && Self.records(manifest).suffix(12).dropLast().allSatisfy { $0["status"] as? String == "done" })
    }

    /// A failure that is not the input's (an output folder that cannot be made, a manifest that
    /// cannot be written) exits 75, worth a retry; the input is recorded as failed, not refused.
    @Test func aMachineFailureExits75() throws {
        let dir = try Self.folder("shard-retry")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/in/sub", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.fixtures + "/astronaut_tiny48.png", toPath: dir + "/in/sub/a.png")
        try FileManager.default.copyItem(atPath: Self.fixtures + "/astronaut_tiny48.png", toPath: dir + "/in/b.png")
        try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: dir + "/out/sub"))   // a file where the subfolder must go
        let run = try Self.run(["redact", dir + "/in", dir + "/out", "--no-tiles", "--no-progress"])
        #expect(run.status == 75, "\(run.stderr)")
        let records = Self.records(dir + "/out/.blazeface/manifest-0-of-1.jsonl")
        let failed = records.first { $0["input"] as? String == "sub/a.png" }
        #expect(failed?["status"] as? String == "failed" && failed?["retry"] as? Bool == true, "\(records)")
        #expect(records.first { $0["input"] as? String == "b.png" }?["status"] as? String == "done")
        // Once the obstacle is gone, the rerun does the failed input only.
        try FileManager.default.removeItem(atPath: dir + "/out/sub")
        let again = try Self.run(["redact", dir + "/in", dir + "/out", "--no-tiles", "--no-progress"])
        #expect(again.status == 0 && again.stderr.contains("1 picture(s)") && again.stderr.contains("1 already done"), "\(again.stderr)")
        // A manifest that cannot be written: 75 before any input is touched.
        let noManifest = try Self.run(["redact", dir + "/in", dir + "/out2", "--manifest", dir + "/in/b.png/m.jsonl", "--no-tiles"])
        #expect(noManifest.status == 75 && !FileManager.default.fileExists(atPath: dir + "/out2/b.png"), "\(noManifest.stderr)")
    }
}
