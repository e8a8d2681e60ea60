import ArgumentParser
import BlazeTensor
import Foundation

/// `blazeface`: face detection with BlazeFace in pure Swift.
@main
struct BlazeFaceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blazeface",
        abstract: "Face detection with BlazeFace, in pure Swift.",
        subcommands: [Detect.self, Analyze.self, Track.self, Redact.self, Review.self, Landmarks.self, Bench.self, BenchLandmarks.self, BenchAnalyze.self, Export.self,
                      ExportGeometry.self, Describe.self, ManifestCommand.self])

    /// Parses and runs, reporting any failure as one line on stderr and a non-zero exit.
    static func main() {
        if let message = BuildTarget.unsupportedCPUMessage {
            FileHandle.standardError.write(Data("blazeface: \(message)\n".utf8))
            Foundation.exit(1)
        }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            if let exit = error as? ExitCode { Foundation.exit(exit.rawValue) }
            let code = exitCode(for: error)
            if code == .success {   // --help, --version
                print(fullMessage(for: error))
                Foundation.exit(0)
            }
            let message = oneLine(self.message(for: error)) ?? "\(error)"
            FileHandle.standardError.write(Data("blazeface: \(message)\n".utf8))
            Foundation.exit(code.rawValue)
        }
    }
}

/// ArgumentParser's message on one line: its first line, and where that introduces a list ("one
/// of the following:", then a value a line), the list joined.
private func oneLine(_ message: String) -> String? {
    let lines = message.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
    guard let first = lines.first else { return nil }
    guard first.hasSuffix(":"), lines.count > 1 else { return first }
    return first + " " + lines.dropFirst().map { $0.hasPrefix("- ") ? String($0.dropFirst(2)) : $0 }.joined(separator: ", ")
}

/// A failure the tool reports as one line.
struct ToolError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func printError(_ message: String) {
    printLine("blazeface: \(message)")
}

/// One line on stderr (a JSON line of `--progress json`, a summary).
func printLine(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}
