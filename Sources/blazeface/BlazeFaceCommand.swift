import ArgumentParser
import BlazeTensor
import Foundation

/// `blazeface`: face detection with BlazeFace in pure Swift.
@main
struct BlazeFaceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blazeface",
        abstract: "Face detection with BlazeFace, in pure Swift.",
        subcommands: [Detect.self, Analyze.self, Track.self, Redact.self, Landmarks.self, Bench.self, BenchLandmarks.self, BenchAnalyze.self, Export.self,
                      ExportGeometry.self, Describe.self])

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
            let message = self.message(for: error).split(separator: "\n").first.map(String.init) ?? "\(error)"
            FileHandle.standardError.write(Data("blazeface: \(message)\n".utf8))
            Foundation.exit(code.rawValue)
        }
    }
}

/// A failure the tool reports as one line.
struct ToolError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func printError(_ message: String) {
    FileHandle.standardError.write(Data("blazeface: \(message)\n".utf8))
}
