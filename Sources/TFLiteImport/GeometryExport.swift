import BlazeModel
import Foundation
import GeometryEstimation
import InternalUtilities

extension Exporter {
    /// Converts MediaPipe's face geometry metadata at `path` (its
    /// `geometry_pipeline_metadata_landmarks.binarypb`, or `member` of the `face_landmarker.task`
    /// bundle itself, refused unless its SHA-256 is `bundleSHA256` when that is given) and writes
    /// it to `output` as a weights file, as `blazeface export-geometry` does: with its provenance
    /// in the metadata, and only once it reads back identical.
    ///
    /// ```swift
    /// let file = try Exporter.exportGeometry(at: "face_landmarker.task", to: "face_geometry.bin")
    /// print(file.tensors.map(\.name))
    /// ```
    @discardableResult
    public static func exportGeometry(at path: String, member: String = "geometry_pipeline_metadata_landmarks.binarypb",
                                      bundleSHA256: String? = nil, to output: String) throws(ExportError) -> ModelFile {
        guard let data = FileManager.default.contents(atPath: path) else { throw ExportError("cannot read '\(path)'") }
        var bytes = [UInt8](data)
        var source = URL(fileURLWithPath: path).lastPathComponent
        var provenance: [(key: String, value: String)] = []
        if let bundle = try? TaskBundle(bytes: bytes) {   // a zip with a central directory: the .task bundle
            if let expected = bundleSHA256, expected.lowercased() != bundle.sha256 {
                throw ExportError("\(path): SHA-256 is \(bundle.sha256), expected \(expected.lowercased())")
            }
            do {
                bytes = try bundle.member(member)
                provenance = [("bundle", source), ("bundle_sha256", bundle.sha256)]
                source = member
            } catch { throw ExportError("\(path): \(error.description)") }
        } else if bundleSHA256 != nil {
            throw ExportError("\(path): --bundle-sha256 applies to a .task bundle, and this is not a zip")
        }
        let file: ModelFile, readsBack: Bool
        do throws(GeometryError) {
            let parsed = try GeometryMetadata(protobuf: bytes)
            file = parsed.modelFile(metadata: [("name", "face_geometry")] + provenance + [
                ("source", source),
                ("source_sha256", SHA256.hex(bytes)),
                ("exporter", "blazeface export-geometry (format version \(WeightsFormat.version))"),
                ("license", "Apache-2.0 (MediaPipe models)"),
            ])
            readsBack = try GeometryMetadata(modelFile: file) == parsed
        } catch { throw ExportError("\(path): \(error.description)") }
        // Refuse to write what the runtime would not read back identically.
        guard readsBack else { throw ExportError("round trip through the weights format differs") }
        do { try WeightsFormat.write(file, to: output) } catch { throw ExportError(error.description) }
        return file
    }
}
