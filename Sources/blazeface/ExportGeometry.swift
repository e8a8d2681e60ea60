import ArgumentParser
import BlazeModel
import FaceGeometry
import Foundation
import TFLiteImport

/// `blazeface export-geometry`: MediaPipe's face geometry metadata (binarypb) to the flat format.
struct ExportGeometry: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-geometry",
        abstract: "Convert MediaPipe's geometry_pipeline_metadata_landmarks.binarypb into the flat weights format.")

    @Argument(help: "The .binarypb file (from face_landmarker.task).")
    var metadata: String

    @Option(name: .shortAndLong, help: "The weights file to write.")
    var output: String

    func run() throws {
        guard let data = FileManager.default.contents(atPath: metadata) else {
            throw ToolError("cannot read '\(metadata)'")
        }
        let bytes = [UInt8](data)
        let source = URL(fileURLWithPath: metadata).lastPathComponent
        let file: ModelFile
        do {
            let parsed = try GeometryMetadata(protobuf: bytes)
            file = parsed.modelFile(metadata: [
                ("name", "face_geometry"),
                ("source", source),
                ("source_sha256", SHA256.hex(bytes)),
                ("exporter", "blazeface export-geometry (format version \(WeightsFormat.version))"),
                ("license", "Apache-2.0 (MediaPipe models)"),
            ])
            // Refuse to write what the runtime would not read back identically.
            guard try GeometryMetadata(modelFile: file) == parsed else { throw ToolError("round trip through the weights format differs") }
        } catch let error as GeometryError { throw ToolError("\(metadata): \(error.description)") }
        do { try WeightsFormat.write(file, to: output) } catch { throw ToolError(error.description) }
        let written = FileManager.default.contents(atPath: output).map { SHA256.hex([UInt8]($0)) } ?? "?"
        print("wrote \(output): \(file.tensors.map { "\($0.name) \($0.tensor.shape)" }.joined(separator: ", ")), sha256 \(written)")
    }
}
