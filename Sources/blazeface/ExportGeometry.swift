import InternalUtilities
import ArgumentParser
import BlazeModel
import GeometryEstimation
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
        guard let data = FileManager.default.contents(atPath: metadata) else {
            throw ToolError("cannot read '\(metadata)'")
        }
        var bytes = [UInt8](data)
        var source = URL(fileURLWithPath: metadata).lastPathComponent
        var provenance: [(key: String, value: String)] = []
        if let bundle = try? TaskBundle(bytes: bytes) {   // a zip with a central directory: the .task bundle
            if let expected = bundleSHA256, expected.lowercased() != bundle.sha256 {
                throw ToolError("\(metadata): SHA-256 is \(bundle.sha256), expected \(expected.lowercased())")
            }
            do {
                bytes = try bundle.member(member)
                provenance = [("bundle", source), ("bundle_sha256", bundle.sha256)]
                source = member
            } catch { throw ToolError("\(metadata): \(error.description)") }
        } else if bundleSHA256 != nil {
            throw ToolError("\(metadata): --bundle-sha256 applies to a .task bundle, and this is not a zip")
        }
        let file: ModelFile
        do {
            let parsed = try GeometryMetadata(protobuf: bytes)
            file = parsed.modelFile(metadata: [
                ("name", "face_geometry"),
            ] + provenance + [
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
