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

    /// Every input's output key, planned by name from the whole input list (before sharding, so
    /// that shards agree): the same relative path, or for a format not written the name a folder
    /// run gives it (`photoTarget`: HEIC as `.jpg`; `videoTarget`: AVI, MTS, 3GP, GIF as `.mp4`,
    /// or as `container(key)` says: `VideoFiles.folderContainer(forInput:)`).
    /// Two inputs that would write one output get distinct names: the one whose name is already
    /// the output's keeps it, each other takes its full input name plus the output's extension
    /// (`IMG_1.heic` beside `IMG_1.jpg` writes `IMG_1.heic.jpg`, `cam.avi` beside `cam.mp4`
    /// `cam.avi.mp4`), whatever the order found.
    public static func planOutputs(_ keys: [String], container: (String) -> String = { _ in "mp4" }) -> [String: String] {
        var plan: [String: String] = [:]
        for key in keys {
            let ext = (key as NSString).pathExtension.lowercased()
            if ext == "y4m" || VideoFiles.containerExtensions.contains(ext) {
                plan[key] = key
            } else {
                plan[key] = MediaKind.videoExtensions.contains(ext) ? videoTarget(key, kind: .video, container: container(key)) : photoTarget(key)
            }
        }
        // Until no name is taken twice (a renamed one may meet a real input of that name).
        for _ in 0..<8 {
            var claims: [String: [String]] = [:]
            for (key, target) in plan { claims[target, default: []].append(key) }
            let clashes = claims.filter { $0.value.count > 1 }
            if clashes.isEmpty { break }
            for (target, owners) in clashes {
                let ext = "." + (target as NSString).pathExtension
                for key in owners where key != target {
                    plan[key] = plan[key]! == (key as NSString).deletingPathExtension + ext ? key + ext : plan[key]! + ext
                }
            }
        }
        return plan
    }

    /// The output key of an input of `kind` (told by its content): its planned one
    /// (`planOutputs`) where that is a name its kind is written to, else (a photo named .avi)
    /// the name its kind gives it.
    public static func outputKey(_ key: String, kind: MediaKind, planned: String?) -> String {
        if let planned {
            let ext = (planned as NSString).pathExtension.lowercased()
            if kind == .photo ? ImageFormat.forOutput(path: planned) != nil : VideoFiles.containerExtensions.contains(ext) || ext == "y4m" {
                return planned
            }
        }
        return kind == .photo ? photoTarget(key) : videoTarget(key, kind: kind)
    }

    /// Where a folder's photo goes: the same relative path, or for a format this tool does not
    /// write (HEIC) or a name that says no format, the same name as .jpg.
    public static func photoTarget(_ target: String) -> String {
        ImageFormat.forOutput(path: target) != nil ? target : (target as NSString).deletingPathExtension + ".jpg"
    }

    /// Where a folder's video goes: the same relative path in a container this tool writes
    /// (MP4, M4V, MOV, MKV, WebM), else the same name in `container` (AVI, MTS, 3GP, WMV, GIF...
    /// as .mp4, or .mkv for audio MP4 cannot hold); a YUV4MPEG2 stream (`kind` .y4m) as .y4m.
    public static func videoTarget(_ target: String, kind: MediaKind, container: String = "mp4") -> String {
        let ext = (target as NSString).pathExtension.lowercased(), stem = (target as NSString).deletingPathExtension
        if kind == .y4m { return ext == "y4m" ? target : stem + ".y4m" }
        return VideoFiles.containerExtensions.contains(ext) ? target : stem + "." + container
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
        if kind == .photo { return photoTarget(inside) }
        let written = VideoFiles.containerExtensions.contains((name as NSString).pathExtension.lowercased())
        return videoTarget(inside, kind: kind, container: kind == .video && !written ? VideoFiles.folderContainer(forInput: input) : "mp4")
    }
}
