import InternalUtilities
import Foundation

/// The outputs of a batch: folders made one at a time, a killed run's temporary files removed,
/// an output's fingerprint, and whether a manifest's record still vouches for it.
public enum BatchOutputs {
    /// Removes what a killed run left behind for `target`: its hidden temporary files
    /// (.NAME.partial-PID-XXXXXX from AtomicFile, .STEM.partial-PID-XXXXXXXX.EXT from the video
    /// writer, and the older forms without a PID), but never those of a process still running
    /// (another run writing the same output keeps its file).
    public static func removeStaleTemporaries(of target: String) {
        let folder = (target as NSString).deletingLastPathComponent, name = (target as NSString).lastPathComponent
        let stem = (name as NSString).deletingPathExtension, ext = (name as NSString).pathExtension
        /// The writer's process id in what follows "partial-", if the name holds one.
        func writer(_ rest: Substring) -> pid_t? {
            guard let dash = rest.firstIndex(of: "-") else { return nil }
            return pid_t(rest[..<dash])
        }
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? [] {
            let photoPrefix = "." + name + ".partial-", videoPrefix = "." + stem + ".partial-"
            let legacyPhoto = entry.hasPrefix("." + name + ".") && entry.count == name.count + 8 && !entry.hasPrefix(photoPrefix)
            let rest: Substring? = entry.hasPrefix(photoPrefix) ? entry.dropFirst(photoPrefix.count)
                : entry.hasPrefix(videoPrefix) && entry.hasSuffix("." + ext) ? entry.dropFirst(videoPrefix.count) : nil
            guard legacyPhoto || rest != nil else { continue }
            if let rest, let pid = writer(rest), pid != getpid(), kill(pid, 0) == 0 || errno == EPERM { continue }   // alive
            try? FileManager.default.removeItem(atPath: (folder as NSString).appendingPathComponent(entry))
        }
    }

    /// An output's size and SHA-256 (nil, nil when it cannot be read).
    public static func fingerprint(_ path: String) -> (Int?, String?) {
        let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
        return (size, size == nil ? nil : SHA256.hexDigest(ofFile: path))
    }

    /// Whether the output a record vouches for is still there as it was written: the same size
    /// and SHA-256 (a record without them, from an older version, vouches for nothing).
    public static func outputMatches(_ record: ManifestRecord, _ path: String) -> Bool {
        guard let size = record.outputSize, let digest = record.outputSHA256 else { return false }
        let (now, nowDigest) = fingerprint(path)
        return now == size && nowDigest == digest
    }

    /// Makes `path` and the folders above it that are missing, one mkdir(2) at a time, so that
    /// a failure names the folder that could not be made and the system's reason.
    public static func makeFolders(_ path: String) throws(CannotCreate) {
        var info = stat()
        if stat(path, &info) == 0 {
            guard Int(info.st_mode) & Int(S_IFMT) == Int(S_IFDIR) else { throw CannotCreate(path: path, code: ENOTDIR) }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path { try makeFolders(parent) }
        if mkdir(path, 0o755) != 0, errno != EEXIST { throw CannotCreate(path: path, code: errno) }
    }
}
