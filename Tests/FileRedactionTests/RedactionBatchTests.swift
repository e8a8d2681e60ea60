import BlazeImageIO
import FaceRedaction
import FileRedaction
import Foundation
import Testing

/// A folder redacted as a resumable batch through the public API alone (no `@testable`): two
/// shards, each stopped part-way and run again, the outputs byte for byte the CLI's.
@Suite struct RedactionBatchTests {
    /// Ends a run as a signal would.
    struct Stop: BatchStop {}

    @Test func aFolderRunsAsTwoShardsStoppedAndResumedWithTheCLIsBytes() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("redaction-batch-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let images = PhotoRedactionTests.root.appendingPathComponent("Tests/Fixtures/images")
        try FileManager.default.createDirectory(atPath: dir + "/in/sub", withIntermediateDirectories: true)
        try JPEG.write(try PNG.read(contentsOf: images.appendingPathComponent("astronaut_223x231.png").path), to: dir + "/in/portrait.jpg",
                       quality: 80, exif: try PhotoRedactionTests.exifWithGPS())
        try FileManager.default.copyItem(atPath: images.appendingPathComponent("face_off_edge_320x240.png").path, toPath: dir + "/in/sub/edge.png")
        try PNM.write(try PNG.read(contentsOf: images.appendingPathComponent("head_71x139.png").path), to: dir + "/in/sub/head.ppm")
        try FileManager.default.copyItem(atPath: images.appendingPathComponent("astronaut_tiny48.png").path, toPath: dir + "/in/tiny.png")
        try Data("notes".utf8).write(to: URL(fileURLWithPath: dir + "/in/readme.txt"))
        let photos = ["portrait.jpg", "sub/edge.png", "sub/head.ppm", "tiny.png"]

        let redactor = try FaceRedactor()
        func redact(_ work: RedactionBatch.Work) throws -> RedactionBatch.Outcome {
            guard case let .photo(source, target) = work else { throw BatchInputError("no video here") }
            return .init(faces: try redactor.redactPhoto(at: source, to: target).faces)
        }
        var settledAtFirst = 0
        for index in 0..<2 {
            try #require((photos + ["readme.txt"]).filter { Shard.of(key: $0, count: 2) == index }.count >= 2, "a stop part-way needs two inputs")
            let batch = RedactionBatch(input: dir + "/in", output: dir + "/library", shard: Shard(index: index, count: 2, source: "test"),
                                       settings: "defaults")
            // Killed before its second input: the first is recorded, nothing else is.
            var asked = 0, done = 0
            #expect(throws: Stop.self) {
                try batch.run(redact: redact, events: { if case let .settled(r, _, _) = $0, r.status == .done { done += 1 } },
                              shouldStop: { asked += 1; if asked == 2 { throw Stop() } })
            }
            let recorded = Manifest.read(batch.manifestPath)
            #expect(recorded.count == 1 && recorded.allSatisfy { $0.status == .done || $0.status == .ignored })
            settledAtFirst += done
            // Run again: what was done is reused, the rest is done, the stray file is left out.
            let resumed = try batch.run(redact: redact)
            #expect(resumed.totals.skipped == done && resumed.exitStatus == BatchExit.ok)
            #expect(resumed.pictures + resumed.totals.skipped + resumed.totals.ignored == resumed.totals.inputs)
        }
        #expect(settledAtFirst >= 1, "a stop came after an input was settled")
        let merged = Set(["manifest-0-of-2.jsonl", "manifest-1-of-2.jsonl"].flatMap {
            Manifest.read(dir + "/library/.blazeface/" + $0).filter { $0.status == .done || $0.status == .skipped }.map(\.input)
        })
        #expect(merged == Set(photos), "every photo done once, by one shard")
        // Merged as `manifest merge` merges them: one record per input, no duplicate, nothing stale.
        let report = try ManifestMerge(manifests: [dir + "/library/.blazeface"])
        #expect(report.files.count == 2 && report.duplicates.isEmpty && report.stale.isEmpty)
        #expect(Set(report.records.filter { $0.status == .done || $0.status == .skipped }.map(\.input)) == Set(photos))

        // The CLI over the same folder, in one run: the same bytes for every photo.
        let run = try PhotoRedactionTests.cli(["redact", dir + "/in", dir + "/cli"])
        #expect(run.status == 0, "\(run.stderr)")
        for photo in photos {
            let mine = FileManager.default.contents(atPath: dir + "/library/" + photo), theirs = FileManager.default.contents(atPath: dir + "/cli/" + photo)
            #expect(mine != nil && mine == theirs, "\(photo)")
        }
        #expect(EXIFBlock(file: [UInt8](FileManager.default.contents(atPath: dir + "/library/portrait.jpg") ?? Data())) == nil, "no EXIF, no GPS")
    }

    /// SIGTERM during an input, through `StopSignals` as the CLI uses it: the input in hand is
    /// finished and recorded, the run stops before the next one with 143, and nothing else is
    /// recorded; `remove()` forgets the signal.
    @Test func aSignalStopsTheBatchBeforeTheNextInput() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("redaction-batch-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/in", withIntermediateDirectories: true)
        for name in ["a.png", "b.png", "c.png"] {
            try FileManager.default.copyItem(atPath: VideoRedactionTests.fixtures + "/astronaut_tiny48.png", toPath: dir + "/in/" + name)
        }
        let batch = RedactionBatch(input: dir + "/in", output: dir + "/out", settings: "defaults")
        let redactor = try FaceRedactor()
        StopSignals.install()
        defer { StopSignals.remove() }
        var redacted: [String] = []
        let error = #expect(throws: StoppedBySignal.self) {
            try batch.run(redact: { work in
                guard case let .photo(source, target) = work else { throw BatchInputError("no video here") }
                redacted.append(source)
                if redacted.count == 1 { raise(SIGTERM) }   // delivered to this thread before raise returns
                return .init(faces: try redactor.redactPhoto(at: source, to: target).faces)
            }, shouldStop: StopSignals.check)
        }
        #expect(error?.exitStatus == 143 && error?.description == "stopped by SIGTERM")
        #expect(redacted.count == 1 && Manifest.read(batch.manifestPath).map(\.status) == [.done])
        StopSignals.remove()
        #expect(StopSignals.receivedSignal == 0)
    }

    /// A folder of a photo and a video redacted with the batch's own redaction of each input
    /// (`run(redactor:)`), as the CLI redacts the folder, byte for byte; a rerun reuses both.
    @Test func aFolderWithAVideoIsRedactedAsTheCLIRedactsIt() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("redaction-batch-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/in/clips", withIntermediateDirectories: true)
        try VideoRedactionTests.makeClip(dir + "/in/clips/pan.mp4", frames: 12)
        try FileManager.default.copyItem(atPath: VideoRedactionTests.fixtures + "/astronaut_223x231.png", toPath: dir + "/in/portrait.png")

        let batch = RedactionBatch(input: dir + "/in", output: dir + "/library", settings: "defaults")
        var made = 0
        let summary = try batch.run(redactor: { made += 1; return try FaceRedactor() })
        #expect(summary.pictures == 1 && summary.videos == 1 && summary.exitStatus == BatchExit.ok && summary.totals.faces >= 25)
        #expect(made == 2, "one redactor for the photos, one for the video")
        let again = try batch.run(redactor: { try FaceRedactor() })
        #expect(again.totals.skipped == 2 && again.pictures + again.videos == 0)

        let run = try PhotoRedactionTests.cli(["redact", dir + "/in", dir + "/cli"])
        #expect(run.status == 0, "\(run.stderr)")
        for file in ["portrait.png", "clips/pan.mp4"] {
            let mine = FileManager.default.contents(atPath: dir + "/library/" + file), theirs = FileManager.default.contents(atPath: dir + "/cli/" + file)
            #expect(mine != nil && mine == theirs, "\(file)")
        }
    }
}

/// `InputList.Item.message(for:)`: the message of a failed read names its input.
@Suite struct InputListMessageTests {
    @Test func standardInputsErrorsAreNamedAndFilesKeepTheirs() {
        let unknown = ImageError.unknownFormat(firstBytes: "67 61")
        #expect(InputList.Item.standardInput.message(for: unknown) == "-: " + unknown.description)
        #expect(InputList.Item.standardInput.message(for: .io(path: "-", reason: "too long")) == "-: too long")
        let named = ImageError.file(path: "a.png", unknown)
        #expect(InputList.Item.file("a.png").message(for: named) == "a.png: " + unknown.description)
    }
}
