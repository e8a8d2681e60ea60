import BlazeImageIO
import Foundation
import MediaFiles

/// The inputs of a batch over a folder or a list: their keys (paths relative to the input
/// folder, which shards hash and manifests record) and where each one's output goes.
public enum BatchInputs {
    /// The inputs' keys: paths relative to INPUT, `/`-separated, in byte order; hidden files
    /// and folders left out, and so is whatever lies in the output folder (compared as resolved
    /// paths, however either is spelled, when it lies inside INPUT). A file reached through a
    /// symbolic link that leads out of INPUT is refused (`refused`: its key and the reason).
    /// `hidden` counts the hidden files and folders left out (a hidden folder once, however
    /// much it holds).
    public static func walk(_ root: String, excluding output: String) -> (keys: [String], refused: [(String, String)], hidden: Int) {
        let rootReal = PathIdentity.resolved(root), outReal = PathIdentity.resolved(output)
        let outputInside = outReal != rootReal && PathIdentity.isInside(outReal, rootReal)
        var keys: [String] = [], refused: [(String, String)] = [], hidden = 0
        guard let walker = FileManager.default.enumerator(atPath: root) else { return ([], [], 0) }
        while let relative = walker.nextObject() as? String {
            let path = (root as NSString).appendingPathComponent(relative)
            let real = PathIdentity.resolved(path)
            if outputInside, PathIdentity.isInside(real, outReal) {
                walker.skipDescendants()
                continue
            }
            if (relative as NSString).lastPathComponent.hasPrefix(".") {
                hidden += 1
                walker.skipDescendants()
                continue
            }
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            if !PathIdentity.isInside(real, rootReal) {
                refused.append((relative, "a symbolic link that leads out of the input folder (to \(real))"))
                continue
            }
            keys.append(relative)
        }
        let byteOrder: (String, String) -> Bool = { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        return (keys.sorted(by: byteOrder), refused.sorted { byteOrder($0.0, $1.0) }, hidden)
    }

    /// A listed path as a key relative to `root`; nil when it lies outside it. An absolute path
    /// is compared with ROOT made absolute, then with both resolved (links followed), so a
    /// relative ROOT takes absolute entries under it.
    public static func key(listed line: String, root: String) -> String? {
        var path = line
        if path.hasPrefix("/") {
            let rootPath = PathIdentity.absolute(root), standard = PathIdentity.absolute(path)
            let rootReal = PathIdentity.resolved(root), real = PathIdentity.resolved(path)
            if rootPath == "/" || rootReal == "/" {
                path = String(standard.dropFirst())
            } else if standard.hasPrefix(rootPath + "/") {
                path = String(standard.dropFirst(rootPath.count + 1))
            } else if real.hasPrefix(rootReal + "/") {
                path = String(real.dropFirst(rootReal.count + 1))
            } else {
                return nil
            }
        }
        let parts = path.split(separator: "/").filter { $0 != "." }
        guard !parts.isEmpty, !parts.contains("..") else { return nil }
        return parts.joined(separator: "/")
    }

    /// Every photo's output key, planned from the whole input list (before sharding, so that
    /// shards agree): the same relative path, or `photoTarget`'s `.jpg` name for a format not
    /// written (HEIC, JFIF). Two inputs that would write one output get distinct names: the one
    /// whose name is already the output's keeps it, each other takes its full input name plus
    /// `.jpg` (`IMG_1.heic` beside `IMG_1.jpg` writes `IMG_1.heic.jpg`), whatever the order
    /// found. Videos keep their own name, which is always their key.
    public static func planPhotoOutputs(_ keys: [String]) -> [String: String] {
        var plan: [String: String] = [:]
        for key in keys where !MediaKind.videoExtensions.contains((key as NSString).pathExtension.lowercased()) { plan[key] = photoTarget(key) }
        // Until no name is taken twice (a renamed one may meet a real input of that name).
        for _ in 0..<8 {
            var claims: [String: [String]] = [:]
            for (key, target) in plan { claims[target, default: []].append(key) }
            let clashes = claims.filter { $0.value.count > 1 }
            if clashes.isEmpty { break }
            for (target, owners) in clashes {
                for key in owners where key != target {
                    plan[key] = plan[key]! == photoTarget(key) ? key + ".jpg" : plan[key]! + ".jpg"
                }
            }
        }
        return plan
    }

    /// Where a folder's photo goes: the same relative path, or for a format this tool does not
    /// write (HEIC) or a name that says no format, the same name as .jpg.
    public static func photoTarget(_ target: String) -> String {
        ImageFormat.forOutput(path: target) != nil ? target : (target as NSString).deletingPathExtension + ".jpg"
    }

    /// Where one input file of `kind` goes when the output given is `output`: `output` itself,
    /// or, when `output` is a folder that exists or a name ending in "/", the input's name inside
    /// it (a photo in a format not written, or a video in a container not written, with the
    /// extension a folder run gives it: .jpg, .mp4; Y4M stays .y4m).
    public static func target(for input: String, in output: String, kind: MediaKind) -> String {
        guard output != "-" else { return output }
        var isFolder: ObjCBool = false
        let folder = output.hasSuffix("/") || (FileManager.default.fileExists(atPath: output, isDirectory: &isFolder) && isFolder.boolValue)
        guard folder, input != "-" else { return output }
        let name = (input as NSString).lastPathComponent
        let inside = (output as NSString).appendingPathComponent(name)
        switch kind {
        case .photo: return photoTarget(inside)
        case .y4m: return (inside as NSString).pathExtension.lowercased() == "y4m" ? inside : (inside as NSString).deletingPathExtension + ".y4m"
        default:
            let ext = (name as NSString).pathExtension.lowercased()
            return VideoFiles.containerExtensions.contains(ext) ? inside : (inside as NSString).deletingPathExtension + ".mp4"
        }
    }
}
