import InternalUtilities
import ArgumentParser
import BlazeModel
import BlazeTensor
import Foundation
import TFLiteImport

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert a TFLite model into the flat weights format (Weights/README.md).")

    @Argument(help: "The .tflite model, or a MediaPipe .task bundle with --member.")
    var model: String

    @Option(help: "The model inside a .task bundle (a zip of stored members), e.g. face_landmarks_detector.tflite.")
    var member: String?

    @Option(help: "Refuse the .task bundle unless its SHA-256 is this (hex).")
    var bundleSHA256: String?

    @Option(name: .shortAndLong, help: "The weights file to write.")
    var output: String

    @Option(help: "A name recorded in the file's metadata (default: the model's file name).")
    var name: String?

    func run() throws {
        let bytes: [UInt8]
        var source = URL(fileURLWithPath: model).lastPathComponent
        var provenance: [(key: String, value: String)] = []
        if let member {
            do {
                let bundle = try TaskBundle(contentsOf: model, expectedSHA256: bundleSHA256)
                bytes = try bundle.member(member)
                provenance = [("bundle", source), ("bundle_sha256", bundle.sha256)]
                source = member
            } catch { throw ToolError("\(model): \(error.description)") }
        } else {
            guard let data = FileManager.default.contents(atPath: model) else {
                throw ToolError("cannot read '\(model)'")
            }
            bytes = [UInt8](data)
        }
        let file: ModelFile
        do {
            let tflite = try TFLiteModel(bytes: bytes)
            file = try Exporter.convert(tflite, metadata: [
                ("name", name ?? source.replacingOccurrences(of: ".tflite", with: "")),
                ("source", source),
                ("source_sha256", SHA256.hex(bytes)),
            ] + provenance + [
                ("exporter", "blazeface export (format version \(WeightsFormat.version))"),
                ("license", "Apache-2.0 (MediaPipe models)"),
            ])
        } catch { throw ToolError("\(model): \(error.description)") }
        do {
            _ = try Network(model: file)   // refuse to write a graph the runtime cannot run
            try WeightsFormat.write(file, to: output)
        } catch { throw ToolError(error.description) }
        let written = FileManager.default.contents(atPath: output).map { SHA256.hex([UInt8]($0)) } ?? "?"
        print("wrote \(output): \(file.tensors.count) tensors, \(file.nodes.count) nodes, sha256 \(written)")
    }
}

struct Describe: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print a weights file's metadata and layer graph, one line per layer.")

    @Argument(help: "A weights file.")
    var weights: String

    func run() throws {
        do {
            let file = try WeightsFormat.read(contentsOf: weights)
            for (k, v) in file.metadata { print("\(k): \(v)") }
            let network = try Network(model: file)
            print("input \(network.inputShapes), outputs \(network.outputShapes)")
            print("build: \(BuildTarget.summary)")
            print(network.describe())
        } catch { throw ToolError(error.description) }
    }
}
