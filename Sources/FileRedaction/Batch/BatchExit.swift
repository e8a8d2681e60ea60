import Foundation

/// The exit statuses of batch runs (`detect`, `analyze`, `redact`), as sysexits.h names them,
/// so that a cluster engine can tell "retry me" from "this input is bad" (Docs/clusters.md):
/// 0 every input done (or already done); 64 usage error (as every command); 65 some inputs
/// refused as bad input (the rest done; retrying will not help); 75 some inputs failed for a
/// reason worth a retry (I/O error, disk full, another process holding the shard); a retry
/// resumes; 73 the output or manifest folder cannot be made or written (a read-only file system,
/// permission denied: a retry cannot help); 130 / 143 stopped by SIGINT / SIGTERM.
public enum BatchExit {
    public static let ok: Int32 = 0
    public static let usage: Int32 = 64      // EX_USAGE
    public static let refused: Int32 = 65    // EX_DATAERR
    public static let cannotCreate: Int32 = 73   // EX_CANTCREAT: the output or manifest folder cannot be made (read-only, no permission)
    public static let retry: Int32 = 75      // EX_TEMPFAIL

    /// The status of a batch with these counts: a retry-worthy failure outranks a refusal.
    public static func code(refused: Int, failed: Int) -> Int32 {
        failed > 0 ? retry : refused > 0 ? Self.refused : ok
    }
}

/// A failure of one input that is not the input's fault: worth a retry (an output that cannot
/// be written, a full disk). Its description is the message.
public struct RetryableError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }

    /// Whether a message names an I/O failure of the machine rather than of the input.
    public static func looksTransient(_ message: String) -> Bool {
        let signs = ["No space left", "Input/output error", "Disk quota", "Cannot allocate memory",
                     "Too many open files", "Stale file handle", "cannot write"]
        return signs.contains { message.localizedCaseInsensitiveContains($0) }
    }
}

/// A folder that cannot be made: "cannot create PATH: REASON" with the system's reason for the
/// very folder that failed.
public struct CannotCreate: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let code: Int32
    public init(path: String, code: Int32) { (self.path, self.code) = (path, code) }
    public var description: String { "cannot create \(path): \(String(cString: strerror(code)))" }
    /// Whether a retry may succeed: not for a read-only file system or a permission denied.
    public var retryHelps: Bool { Self.retryHelps(code) }
    public static func retryHelps(_ code: Int32) -> Bool { ![EROFS, EACCES, EPERM].contains(code) }
}
