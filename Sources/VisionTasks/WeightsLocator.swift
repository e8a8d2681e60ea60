import BlazeWeights
import Foundation

/// Finds a bundled weights file, looking in order in: `$BLAZEFACE_WEIGHTS` (a folder), the
/// package's resource bundle (`BundledWeights`: beside the executable, in an app's or a
/// framework's resources), `./Weights`, the package's own `Weights/` folder (known at build
/// time), and `Weights/` beside the executable. An explicit path in the options skips all of
/// this. Every task (the detector, the landmarker, the face analysis) finds its weights this way.
public enum WeightsLocator {
    /// The first readable path for `file` in the order above; throws `weightsNotFound` with
    /// every path tried.
    public static func path(for file: String) throws(VisionTaskError) -> String {
        var candidates: [String] = []
        if let env = ProcessInfo.processInfo.environment["BLAZEFACE_WEIGHTS"], !env.isEmpty {
            candidates.append(env + "/" + file)
        }
        if let bundled = BundledWeights.folder {
            candidates.append(bundled.appendingPathComponent(file).path)
        } else {
            candidates += BundledWeights.searchedPaths.map { $0 + "/" + file }
        }
        candidates.append(FileManager.default.currentDirectoryPath + "/Weights/" + file)
        let source = URL(fileURLWithPath: #filePath)   // <package>/Sources/VisionTasks/WeightsLocator.swift
        candidates.append(source.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Weights").appendingPathComponent(file).path)
        if let exe = Bundle.main.executableURL?.deletingLastPathComponent() {
            candidates.append(exe.appendingPathComponent("Weights").appendingPathComponent(file).path)
        }
        guard let found = candidates.first(where: { FileManager.default.isReadableFile(atPath: $0) }) else {
            throw .weightsNotFound(searched: candidates)
        }
        return found
    }
}
