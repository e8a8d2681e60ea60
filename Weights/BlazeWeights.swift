import Foundation

/// The bundled weights files (this folder's `*.bin`), copied into the package's resource bundle
/// so that a dependent, an app or a binary copied with its bundle finds them. `WeightsLocator`
/// (BlazeFace) looks here after any explicit path.
public enum BundledWeights {
    /// The folder holding the bundled weights, or nil where the resource bundle is missing (a
    /// binary copied without it). Looks where SwiftPM's `Bundle.module` looks, but never traps:
    /// the generated accessor calls `fatalError` when the bundle is not found.
    public static var folder: URL? {
        for base in candidateFolders {
            for name in bundleNames {
                let url = base.appendingPathComponent(name)
                if let bundle = Bundle(url: url), let resources = bundle.resourceURL,
                   FileManager.default.fileExists(atPath: resources.appendingPathComponent(probe).path) {
                    return resources
                }
                if FileManager.default.fileExists(atPath: url.appendingPathComponent(probe).path) { return url }
            }
        }
        return nil
    }

    /// Where `folder` looks, in order (for error messages).
    public static var searchedPaths: [String] {
        candidateFolders.flatMap { base in bundleNames.map { base.appendingPathComponent($0).path } }
    }

    private static let probe = "face_detection_short_range.bin"

    /// SwiftPM names a resource bundle `<package>_<target>`; the package part is the manifest's
    /// name in a checkout of its own and the dependency's identity (its URL's last component)
    /// in a dependent's build, so both are tried.
    private static var bundleNames: [String] {
        var names: [String] = []
        for folder in candidateFolders {
            let found = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            names += found.filter { $0.hasSuffix("_BlazeWeights.resources") || $0.hasSuffix("_BlazeWeights.bundle") }
        }
        return names.isEmpty ? ["BlazeFace_BlazeWeights.resources", "BlazeFace_BlazeWeights.bundle"] : names
    }

    /// Beside the executable (SwiftPM on Linux), the main bundle's resources (apps), and beside
    /// this module's own image (frameworks, test bundles).
    private static var candidateFolders: [URL] {
        var folders: [URL] = []
        if let exe = Bundle.main.executableURL?.resolvingSymlinksInPath().deletingLastPathComponent() { folders.append(exe) }
        folders.append(Bundle.main.bundleURL)
        if let resources = Bundle.main.resourceURL { folders.append(resources) }
        #if canImport(Darwin)
        let own = Bundle(for: Marker.self)
        folders.append(own.bundleURL.deletingLastPathComponent())
        if let resources = own.resourceURL { folders.append(resources) }
        #endif
        var seen = Set<String>()
        return folders.filter { seen.insert($0.standardizedFileURL.path).inserted }
    }

    #if canImport(Darwin)
    private final class Marker {}
    #endif
}
