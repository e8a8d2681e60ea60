#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whole-file writes that never leave a partial file: the bytes go to a hidden temporary file
/// in the destination's folder, are flushed to disk, then renamed over the destination. Every
/// image writer of this module goes through it; so can any other output (reports, JSON).
public enum AtomicFile {
    /// Writes `bytes` to `path` atomically (an existing file is replaced whole, or left as it
    /// was). Errors are `.io` naming `path` with a plain sentence: "no such folder: F",
    /// "is a folder", "cannot write: Permission denied"... The temporary file is removed on
    /// every failure. The new file's permissions are rw-r--r--.
    public static func write(_ bytes: [UInt8], to path: String) throws(ImageError) {
        guard !path.isEmpty else { throw .io(path: path, reason: "cannot write: the path is empty") }
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard !name.isEmpty, name != ".", name != ".." else { throw .io(path: path, reason: "is a folder") }

        // Plain reasons for the common failures, before creating anything.
        var info = stat()
        if stat(path, &info) == 0, isFolder(info) { throw .io(path: path, reason: "is a folder") }
        if stat(folder, &info) != 0 {
            throw .io(path: path, reason: errno == ENOENT ? "no such folder: \(folder)" : "cannot write: \(systemError())")
        }
        guard isFolder(info) else { throw .io(path: path, reason: "not a folder: \(folder)") }

        var template = Array("\(folder)/.\(name).XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { mkstemp($0) } ?? -1
        }
        guard fd >= 0 else { throw .io(path: path, reason: "cannot write: \(systemError())") }
        let temporaryPath = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        var isOpen = true
        var renamed = false
        defer {
            if isOpen { close(fd) }
            if !renamed { unlink(temporaryPath) }
        }

        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { all in
                let rest = UnsafeRawBufferPointer(rebasing: all[written...])
                return writeSome(fd, rest.baseAddress, rest.count)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(path: path, reason: "cannot write: \(systemError())")
            }
            written += n
        }
        fchmod(fd, 0o644)  // mkstemp makes it 0600
        guard fsync(fd) == 0 else { throw .io(path: path, reason: "cannot write: \(systemError())") }
        isOpen = false
        guard close(fd) == 0 else { throw .io(path: path, reason: "cannot write: \(systemError())") }
        guard rename(temporaryPath, path) == 0 else {
            throw .io(path: path, reason: errno == EISDIR ? "is a folder" : "cannot write: \(systemError())")
        }
        renamed = true
        // The rename itself reaches the disk with the folder's entry; best effort.
        let folderFD = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderFD >= 0 { _ = fsync(folderFD); close(folderFD) }
    }
}

/// POSIX write(2), out of reach of `AtomicFile.write`'s own name.
private func writeSome(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    write(fd, bytes, count)
}

/// Whether `stat` describes a folder.
private func isFolder(_ info: stat) -> Bool {
    Int(info.st_mode) & Int(S_IFMT) == Int(S_IFDIR)
}
