import Foundation
import MediaFiles

/// Paths compared as files, not as text (issue 40): a path resolved with its symbolic links
/// followed (realpath), and a file's device and inode.
public enum PathIdentity {
    /// `path` made absolute (against the working folder) with `.` and `..` removed, without
    /// following links.
    public static func absolute(_ path: String) -> String {
        let full = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var parts: [Substring] = []
        for part in full.split(separator: "/") {
            if part == "." || part.isEmpty { continue }
            if part == ".." { if !parts.isEmpty { parts.removeLast() } } else { parts.append(part) }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// Where `path` really is: its longest existing prefix resolved by realpath (every symbolic
    /// link followed), the rest (not there yet) appended. Absolute.
    public static func resolved(_ path: String) -> String {
        var head = absolute(path)
        var tail: [String] = []
        while true {
            if let real = realpath(head, nil) {
                defer { free(real) }
                let base = String(cString: real)
                if tail.isEmpty { return base }
                return (base == "/" ? "" : base) + "/" + tail.reversed().joined(separator: "/")
            }
            guard head != "/" else { return absolute(path) }
            tail.append((head as NSString).lastPathComponent)
            head = (head as NSString).deletingLastPathComponent
            if head.isEmpty { head = "/" }
        }
    }

    /// Whether `path` is `folder` or lies inside it (both resolved, absolute).
    public static func isInside(_ path: String, _ folder: String) -> Bool {
        path == folder || folder == "/" || path.hasPrefix(folder + "/")
    }

    /// A file's identity (device, inode), following links; nil when it does not exist.
    public struct FileID: Hashable, Sendable {
        public let device: UInt64
        public let inode: UInt64
    }

    public static func fileID(_ path: String) -> FileID? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    /// Whether `a` and `b` are one file: the same device and inode (by any name or link), or,
    /// for files not there yet, the same path once standardised. "-" (a pipe) is no file.
    public static func isSameFile(_ a: String, _ b: String) -> Bool {
        guard a != "-", b != "-" else { return false }
        if let x = fileID(a), let y = fileID(b), x == y { return true }
        return (a as NSString).standardizingPath == (b as NSString).standardizingPath
    }

    /// Refuses an output that is its input (`isSameFile`) before anything is read or written.
    public static func refuseOverwriting(input: String, with output: String) throws(MediaFileError) {
        guard isSameFile(input, output) else { return }
        let named = fileID(input).map { $0 == fileID(output) } ?? false ? " \(input)" : ""
        throw MediaFileError(.outputIsInput, "\(output) is the input\(named): choose another output (the input is never overwritten)")
    }
}
