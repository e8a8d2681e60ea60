import InternalUtilities
import ArgumentParser
import BlazeModel
import Foundation
import TFLiteImport

/// `blazeface export-geometry`: MediaPipe's face geometry metadata (binarypb) to the flat format.
struct ExportGeometry: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-geometry",
        abstract: "Convert MediaPipe's geometry_pipeline_metadata_landmarks.binarypb into the flat weights format.")

    @Argument(help: "The .binarypb file, or the face_landmarker.task bundle itself (its geometry member is read).")
    var metadata: String

    @Option(help: "The member to read when the input is a .task bundle.")
    var member = "geometry_pipeline_metadata_landmarks.binarypb"

    @Option(help: "Refuse the .task bundle unless its SHA-256 is this (hex).")
    var bundleSHA256: String?

    @Option(name: .shortAndLong, help: "The weights file to write.")
    var output: String

    func run() throws {
        let file: ModelFile
        do { file = try Exporter.exportGeometry(at: metadata, member: member, bundleSHA256: bundleSHA256, to: output) } catch {
            throw ToolError(error.description)
        }
        let written = FileManager.default.contents(atPath: output).map { SHA256.hex([UInt8]($0)) } ?? "?"
        print("wrote \(output): \(file.tensors.map { "\($0.name) \($0.tensor.shape)" }.joined(separator: ", ")), sha256 \(written)")
    }
}
