import FaceRedaction
import FileRedaction
import Foundation
import MediaFiles
import Testing

/// Videos redacted through the public API alone, as a Swift program calls it (no `@testable`),
/// byte for byte as `blazeface redact` writes them.
@Suite struct VideoRedactionTests {
    static let fixtures = PhotoRedactionTests.root.appendingPathComponent("Tests/Fixtures/images").path

    /// Runs `program` (found on the PATH); its exit status and stderr.
    static func sh(_ program: String, _ arguments: [String]) throws -> (status: Int32, stderr: String) {
        try PhotoRedactionTests.run("/usr/bin/env", [program] + arguments)
    }

    /// A 320x180 pan over the two-face photo (faces of 52 and 89 pixels) at 25 fps with a sine
    /// tone, H.264 + AAC, made by the ffmpeg command (Tools/install-deps.sh installs it).
    static func makeClip(_ path: String, frames: Int) throws {
        let made = try sh("ffmpeg", ["-v", "error", "-y", "-loop", "1", "-framerate", "25", "-i", fixtures + "/two_faces_1280x853.png",
                                     "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
                                     "-vf", "scale=320:-2,crop=320:180:0:'min(n,33)'", "-frames:v", "\(frames)", "-shortest",
                                     "-pix_fmt", "yuv420p", "-c:v", "libx264", "-c:a", "aac", path])
        try #require(made.status == 0, "ffmpeg makes the test clip: \(made.stderr)")
    }

    static func folder() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("video-redaction-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func aClipWithAudioIsRedactedAsTheCLIRedactsIt() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = dir + "/clip.mp4"
        try Self.makeClip(input, frames: 16)

        let redactor = try FaceRedactor()
        var start: VideoRedactionStart?, progress: [Int] = [], recorded: [RecordingRedactor.MaskedFrame] = []
        let done = try redactor.redactVideo(at: input, to: dir + "/library.mp4", starting: { start = $0 }, progress: { progress.append($0) },
                                            masks: { recorded.append($0) })
        let run = try PhotoRedactionTests.cli(["redact", input, dir + "/cli.mp4"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/library.mp4")) == Data(contentsOf: URL(fileURLWithPath: dir + "/cli.mp4")),
                "the CLI's bytes")
        // Told before the first frame; every frame searched, written and its masks reported in order.
        let s = try #require(start)
        #expect(s.width == 320 && s.height == 180 && s.expectedFrames == 16 && s.lookBehind == s.requestedLookBehind)
        #expect(done.frames == 16 && progress == Array(1...16) && recorded.map(\.index) == Array(0..<16))
        #expect(done.facesMasked == recorded.reduce(0) { $0 + $1.masks.filter { $0.reason == .detected }.count })
        #expect(done.facesMasked >= 32, "both faces in every frame")
        #expect(done.truncation == nil && done.damage == nil && done.appliedMasks == nil && done.warnings.isEmpty)
        // The command says the same figures.
        #expect(run.stderr.contains("16 frame(s), \(done.facesMasked) face mask(s), \(done.lingeringMasks) bridged by lingering, "
                                    + "\(done.backfilledMasks) drawn before a face was found, \(done.regionsSearched) region(s) searched"), "\(run.stderr)")
        // And with --progress json, the run's line is the result's.
        let json = try PhotoRedactionTests.cli(["redact", input, dir + "/cli-json.mp4", "--progress", "json"])
        #expect(json.stderr.split(separator: "\n").last.map(String.init) == done.jsonLine(input: input, output: dir + "/cli-json.mp4"), "\(json.stderr)")
    }

    /// A run stopped part-way (as a signal stops the command) throws the stop and leaves nothing:
    /// no output, no temporary file.
    @Test func aStoppedRunLeavesNothingAtTheOutput() throws {
        struct Stopped: Error {}
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.makeClip(dir + "/clip.mp4", frames: 12)
        var asked = 0
        #expect(throws: Stopped.self) {
            try FaceRedactor().redactVideo(at: dir + "/clip.mp4", to: dir + "/out.mp4", shouldStop: {
                asked += 1
                if asked > 5 { throw Stopped() }
            })
        }
        #expect(asked == 7, "before each of six frames, and once more when the failure is told apart from a stop")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["clip.mp4"])
    }

    /// A memory budget too small even for the smallest run is refused before any frame is read,
    /// saying what the run needs; one that fits keeps the whole look-behind.
    @Test func aBudgetTooSmallIsRefusedBeforeAFrameIsRead() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.makeClip(dir + "/clip.mp4", frames: 4)
        let redactor = try FaceRedactor()
        var started = false
        let error = try #require(throws: VideoRedactionError.self) {
            try redactor.redactVideo(at: dir + "/clip.mp4", to: dir + "/out.mp4", options: VideoRedactionOptions(memoryBudget: 256 << 20),
                                     starting: { _ in started = true })
        }
        #expect(error.kind == .memory && !started)
        let needed = try #require(error.tooLittleMemory)
        #expect(needed.neededBytes == VideoMemoryPlan.fixedBytes + needed.frames * 320 * 180 * 3 / 2 && needed.budget == 256 << 20)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["clip.mp4"])
        let plan = try VideoMemoryPlan.fitting(budget: 3 << 30, width: 320, height: 180, frameBytes: 320 * 180 * 3 / 2, requested: 60)
        #expect(plan == VideoMemoryPlan(lookBehind: 60, singleThreadedCodecs: false))
    }

    /// An output that is the input, by its name or through a link, is refused before anything
    /// is read or written: the input stays as it was.
    @Test func theInputIsNeverTheOutput() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.makeClip(dir + "/clip.mp4", frames: 4)
        try FileManager.default.createSymbolicLink(atPath: dir + "/link.mp4", withDestinationPath: dir + "/clip.mp4")
        try FileManager.default.copyItem(atPath: PhotoRedactionTests.root.appendingPathComponent("Tests/Fixtures/images/astronaut_223x231.png").path,
                                         toPath: dir + "/face.png")
        let before = try Data(contentsOf: URL(fileURLWithPath: dir + "/clip.mp4")), photo = try Data(contentsOf: URL(fileURLWithPath: dir + "/face.png"))
        let redactor = try FaceRedactor()
        for output in [dir + "/clip.mp4", dir + "/link.mp4", dir + "/./clip.mp4"] {
            let error = try #require(throws: MediaFileError.self) { try redactor.redactVideo(at: dir + "/clip.mp4", to: output) }
            #expect(error.kind == .outputIsInput)
        }
        let error = try #require(throws: MediaFileError.self) { try redactor.redactPhoto(at: dir + "/face.png", to: dir + "/../" + (dir as NSString).lastPathComponent + "/face.png") }
        #expect(error.kind == .outputIsInput)
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/clip.mp4")) == before && Data(contentsOf: URL(fileURLWithPath: dir + "/face.png")) == photo)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: dir)) == ["clip.mp4", "link.mp4", "face.png"])
        // Into a folder, the input's name inside it.
        try FileManager.default.createDirectory(atPath: dir + "/out", withIntermediateDirectories: false)
        #expect(BatchInputs.target(for: dir + "/clip.mp4", in: dir + "/out", kind: .video) == dir + "/out/clip.mp4")
        #expect(BatchInputs.target(for: "/x/IMG.HEIC", in: dir + "/new/", kind: .photo) == dir + "/new/IMG.jpg")
        #expect(BatchInputs.target(for: "/x/clip.mp4", in: dir + "/named.mp4", kind: .video) == dir + "/named.mp4")
    }
}
