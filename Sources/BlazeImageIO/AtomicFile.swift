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
        let file = try PendingFile(destination: path)
        defer { file.discard() }
        var written = 0
        while written < bytes.count {
            let n = bytes.withUnsafeBytes { all in
                let rest = UnsafeRawBufferPointer(rebasing: all[written...])
                return writeSome(file.descriptor, rest.baseAddress, rest.count)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw .io(path: path, reason: "cannot write: \(systemError())")
            }
            written += n
        }
        try file.commit()
    }
}

/// A file being written under a hidden temporary name in its destination's folder (streamed
/// outputs: videos, long JSON): `commit()` flushes it to disk and renames it over the
/// destination; `discard()`, or dropping it uncommitted, removes it. A failed or killed run
/// leaves nothing at the destination. `AtomicFile.write` is its one-shot form.
public final class PendingFile {
    /// Where the file goes once complete.
    public let destination: String
    /// Where it is written meanwhile (in the destination's folder, so the rename is atomic).
    public let temporaryPath: String
    /// The temporary file, open for writing (closed by `commit` and `discard`).
    public let descriptor: Int32
    private var settled = false

    /// Creates the temporary file, after plain checks of the destination: "no such folder: F",
    /// "is a folder", "not a folder: F", "cannot write: ...".
    public init(destination path: String) throws(ImageError) {
        guard !path.isEmpty else { throw .io(path: path, reason: "cannot write: the path is empty") }
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard !name.isEmpty, name != ".", name != ".." else { throw .io(path: path, reason: "is a folder") }
        var info = stat()
        if stat(path, &info) == 0, isFolder(info) { throw .io(path: path, reason: "is a folder") }
        if stat(folder, &info) != 0 {
            throw .io(path: path, reason: errno == ENOENT ? "no such folder: \(folder)" : "cannot write: \(systemError())")
        }
        guard isFolder(info) else { throw .io(path: path, reason: "not a folder: \(folder)") }
        // `.NAME.partial-PID-XXXXXX`: the process id in it, so that a cleanup of stale files by
        // another process (a killed run's) can tell a live writer's file from a dead one's.
        var template = Array("\(folder)/.\(name).partial-\(getpid())-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress.map { mkstemp($0) } ?? -1
        }
        guard fd >= 0 else { throw .io(path: path, reason: "cannot write: \(systemError())") }
        fchmod(fd, 0o644)  // mkstemp makes it 0600
        (destination, descriptor) = (path, fd)
        temporaryPath = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Flushes the file to disk, closes it and renames it over the destination.
    public func commit() throws(ImageError) {
        guard !settled else { return }
        settled = true
        guard fsync(descriptor) == 0 else { let reason = systemError(); abandon(); throw .io(path: destination, reason: "cannot write: \(reason)") }
        guard close(descriptor) == 0 else {
            let reason = systemError()
            unlink(temporaryPath)
            throw .io(path: destination, reason: "cannot write: \(reason)")
        }
        guard rename(temporaryPath, destination) == 0 else {
            let reason = errno == EISDIR ? "is a folder" : "cannot write: \(systemError())"
            unlink(temporaryPath)
            throw .io(path: destination, reason: reason)
        }
        // The rename itself reaches the disk with the folder's entry; best effort.
        let folder = (destination.lastIndex(of: "/").map { $0 == destination.startIndex ? "/" : String(destination[..<$0]) }) ?? "."
        let folderFD = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folderFD >= 0 { _ = fsync(folderFD); close(folderFD) }
    }

    /// Removes the temporary file (nothing after a commit).
    public func discard() {
        guard !settled else { return }
        settled = true
        abandon()
    }

    private func abandon() {
        close(descriptor)
        unlink(temporaryPath)
    }

    deinit { discard() }
}

/// POSIX write(2), out of reach of `AtomicFile.write`'s own name.
private func writeSome(_ fd: Int32, _ bytes: UnsafeRawPointer?, _ count: Int) -> Int {
    write(fd, bytes, count)
}

/// Whether `stat` describes a folder.
private func isFolder(_ info: stat) -> Bool {
    Int(info.st_mode) & Int(S_IFMT) == Int(S_IFDIR)
}
