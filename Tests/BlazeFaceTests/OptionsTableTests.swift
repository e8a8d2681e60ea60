import BlazeFace
import BlazeImageIO
import Foundation
import Testing

/// Docs/cli-and-api.md's table of the options per command is what each command's `--help` lists,
/// in its order; every command's help states each default once, and the old spellings are hidden.
@Suite(.serialized) struct OptionsTableTests {
    /// The long options in a `--help`'s OPTIONS section, in order, without --help.
    static func longOptions(help: String) -> [String] {
        guard let section = help.components(separatedBy: "\nOPTIONS:\n").last else { return [] }
        return section.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("  -") else { return nil }
            var entry = line.dropFirst(2)
            if entry.hasPrefix("-"), !entry.hasPrefix("--"), let comma = entry.range(of: ", ") { entry = entry[comma.upperBound...] }
            let name = entry.prefix { $0 == "-" || $0.isLetter || $0.isNumber }
            return name.hasPrefix("--") && name != "--help" ? String(name) : nil
        }
    }

    /// The table's rows: command -> its options.
    static func table() throws -> [(command: String, options: [String])] {
        let docs = Goldens.root.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Docs/cli-and-api.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let begin = try #require(text.range(of: "<!-- options-table begin -->"))
        let end = try #require(text.range(of: "<!-- options-table end -->"))
        return text[begin.upperBound..<end.lowerBound].split(separator: "\n").dropFirst(2).map { row in
            let cells = row.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            let words = cells[2].split(separator: " ").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "`")) }
            return (cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`")), words)
        }
    }

    @Test func theDocsTableIsTheHelp() throws {
        let rows = try Self.table()
        let top = try CLITests.run(["--help"])
        // Every subcommand has a row.
        let subcommands = top.lines.drop { $0 != "SUBCOMMANDS:" }.dropFirst().prefix { $0.hasPrefix("  ") }.compactMap { line -> String? in
            let name = line.trimmingCharacters(in: .whitespaces).split(separator: " ").first.map(String.init)
            // Not a wrapped abstract, nor the closing "See 'blazeface help <subcommand>'".
            return line.hasPrefix("  ") && !line.hasPrefix("   ") && !line.contains("blazeface help") ? name : nil
        }
        #expect(Set(rows.map(\.command)) == Set(subcommands.filter { $0 != "help" }), "\(subcommands)")
        for row in rows {
            let help = try CLITests.run([row.command, "--help"])
            #expect(help.status == 0)
            let text = help.lines.joined(separator: "\n")
            #expect(Self.longOptions(help: text) == row.options, "\(row.command): the table says \(row.options)")
            // One default each: never ArgumentParser's "(default: X)" after a help text that already says one.
            let flat = text.replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: #"\s+"#, with: " ", options: .regularExpression)
            for option in flat.components(separatedBy: " --").dropFirst() {
                let defaults = option.components(separatedBy: "default").count - 1
                #expect(defaults <= 1, "\(row.command) --\(option.prefix(60)): default stated \(defaults) times")
            }
            for old in ["--threshold", "--num-faces", "--performance-mode", "--min-face-detection-confidence", "--jobs", "--face-threads"] {
                #expect(!text.contains(old + " "), "\(row.command): \(old) is a hidden alias")
            }
        }
    }

    @Test func oldSpellingsStillWork() throws {
        let tiny = Goldens.root.appendingPathComponent("images/astronaut_tiny48.png").path
        let new = try CLITests.run(["landmarks", tiny, "--max-faces", "2", "--min-detection-confidence", "0.4"])
        let old = try CLITests.run(["landmarks", tiny, "--num-faces", "2", "--min-face-detection-confidence", "0.4"])
        #expect(new.status == 0 && new.lines == old.lines && old.status == 0)
        let both = try CLITests.run(["landmarks", tiny, "--max-faces", "2", "--num-faces", "2"])
        #expect(both.status == 64 && both.stderr.contains("--num-faces") && both.stderr.contains("--max-faces"))
        let model = try CLITests.run(["analyze", tiny, "--model", "full"])
        let mode = try CLITests.run(["analyze", tiny, "--performance-mode", "accurate"])
        #expect(model.status == 0 && model.lines == mode.lines)
        // One thread knob: --threads, with --jobs (detect, redact) and --face-threads (analyze) its old names.
        let images = Goldens.root.appendingPathComponent("images").path
        let threads = try CLITests.run(["detect", images, "--threads", "2"])
        let jobs = try CLITests.run(["detect", images, "--jobs", "2"])
        #expect(threads.status == 0 && threads.lines == jobs.lines && !threads.lines.isEmpty)
        let lanes = try CLITests.run(["analyze", images, "--face-threads", "2"])
        let pool = try CLITests.run(["analyze", images, "--threads", "2"])
        #expect(lanes.status == 0 && lanes.lines == pool.lines && !pool.lines.isEmpty)
        let twice = try CLITests.run(["detect", tiny, "--threads", "2", "--jobs", "2"])
        #expect(twice.status == 64 && twice.stderr.contains("--jobs") && twice.stderr.contains("--threads"))
    }

    @Test func badValuesNameTheFlagAndExit64() throws {
        let tiny = Goldens.root.appendingPathComponent("images/astronaut_tiny48.png").path
        for (arguments, flag, range) in [
            (["detect", "--min-detection-confidence", "2", tiny], "--min-detection-confidence", "0...1"),
            (["detect", "--max-faces", "0", tiny], "--max-faces", "at least 1"),
            (["detect", "--every", "0", tiny], "--every", "1...1000"),
            (["track", "--every", "5000", tiny], "--every", "1...1000"),
            (["redact", "--threshold", "1.5", tiny, "/tmp/x.png"], "--threshold", "0...1"),
            (["analyze", "--min-face-size", "3", tiny], "--min-face-size", "0...1"),
            (["analyze", "--max-faces", "65", tiny], "--max-faces", "1...64"),
            (["landmarks", "--min-detection-confidence", "nan", tiny], "--min-detection-confidence", "0...1"),
            (["detect", "--threads", "0", tiny], "--threads", "1...64"),
            (["redact", "--threads", "65", tiny, "/tmp/x.png"], "--threads", "1...64"),
        ] {
            let run = try CLITests.run(arguments)
            #expect(run.status == 64 && run.lines.isEmpty, "\(arguments): \(run.status)")
            #expect(run.stderr.contains(flag) && run.stderr.contains(range) && run.stderr.split(separator: "\n").count == 1,
                    "\(arguments): \(run.stderr)")
        }
        #expect(try CLITests.run(["detect", "--jobs", "auto", tiny]).status == 0)
    }

    @Test func pathErrorsAreOnePlainSentence() throws {
        let tiny = Goldens.root.appendingPathComponent("images/astronaut_tiny48.png").path
        let folder = FileManager.default.temporaryDirectory.path
        let missing = try CLITests.run(["track", "nosuch-\(UUID().uuidString).y4m"])
        #expect(missing.status == 1 && missing.stderr.contains("no such file") && missing.stderr.components(separatedBy: ".y4m").count == 2,
                "\(missing.stderr)")
        let intoFolder = try CLITests.run(["detect", tiny, "--annotate", folder])
        #expect(intoFolder.status == 1 && intoFolder.stderr.contains("is a folder") && !intoFolder.stderr.contains("rename"), "\(intoFolder.stderr)")
        let noFolder = try CLITests.run(["detect", tiny, "--annotate", "/nonexistent-\(UUID().uuidString)/a.png"])
        #expect(noFolder.status == 1 && noFolder.stderr.contains("no such folder") && !noFolder.stderr.contains("temporary"), "\(noFolder.stderr)")
    }

    /// `detect --annotate` writes the format its name says: JPEG bytes in a .jpg, PPM in a .ppm,
    /// PNG in a .png (and in a name that says none).
    @Test func annotationsAreInTheFormatTheirNameSays() throws {
        let tiny = Goldens.root.appendingPathComponent("images/astronaut_tiny48.png").path
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("annotate-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (name, magic) in [("a.jpg", [0xFF, 0xD8, 0xFF]), ("a.JPEG", [0xFF, 0xD8, 0xFF]), ("a.ppm", Array("P6".utf8)),
                              ("a.png", [0x89, 0x50, 0x4E, 0x47]), ("a.out", [0x89, 0x50, 0x4E, 0x47])] as [(String, [UInt8])] {
            let run = try CLITests.run(["detect", tiny, "--annotate", folder + "/" + name])
            #expect(run.status == 0, "\(name): \(run.stderr)")
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
            #expect(Array(bytes.prefix(magic.count)) == magic, "\(name): starts \(bytes.prefix(4))")
        }
    }

    /// `FaceDetectorResult.draw(on:)` draws what `detect --annotate` writes, pixel for pixel.
    @Test func drawingAResultIsWhatDetectAnnotateWrites() throws {
        let path = Goldens.root.appendingPathComponent("images/two_faces_1280x853.png").path
        let image = try PNG.read(contentsOf: path)
        let result = try FaceDetector(options: FaceDetectorOptions(weightsPath: Goldens.weights)).detect(image: image)
        #expect(result.detections.count == 2)
        var canvas = image
        result.draw(on: &canvas)
        #expect(canvas.pixels != image.pixels)
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("drawn-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        let run = try CLITests.run(["detect", path, "--annotate", out])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try PNG.read(contentsOf: out).pixels == canvas.pixels)
    }
}
