import Foundation

/// Finds the bundled weights: `$BLAZEFACE_WEIGHTS` (a folder), `./Weights`, the package's
/// own `Weights/` folder (known at build time), and `Weights/` beside the executable.
/// Public so that the modules built on BlazeFace (FaceLandmarks) find their weights the same way.
public enum WeightsLocator {
    public static func path(for file: String) throws(DetectorError) -> String {
        var folders: [String] = []
        if let env = ProcessInfo.processInfo.environment["BLAZEFACE_WEIGHTS"], !env.isEmpty { folders.append(env) }
        folders.append(FileManager.default.currentDirectoryPath + "/Weights")
        let source = URL(fileURLWithPath: #filePath)   // <package>/Sources/BlazeFace/WeightsLocator.swift
        folders.append(source.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Weights").path)
        if let exe = Bundle.main.executableURL?.deletingLastPathComponent() {
            folders.append(exe.appendingPathComponent("Weights").path)
        }
        let candidates = folders.map { $0 + "/" + file }
        guard let found = candidates.first(where: { FileManager.default.isReadableFile(atPath: $0) }) else {
            throw .weightsNotFound(searched: candidates)
        }
        return found
    }
}
