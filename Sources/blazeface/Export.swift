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
        let file: ModelFile
        do { file = try Exporter.export(modelAt: model, member: member, bundleSHA256: bundleSHA256, name: name, to: output) } catch {
            throw ToolError(error.description)
        }
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
