import BlazeFace
import InternalUtilities
import Foundation

/// The tool's version as manifests record it: an output is reused by a rerun only if it was
/// made by the same version with the same settings. Bump it whenever an output's bytes change.
public enum ToolVersion {
    public static let string = "blazeface 1.0.0"
}

/// One line of a batch manifest (JSON Lines, Docs/clusters.md): an input's record, or a run's
/// totals (`record` "totals").
public struct ManifestRecord: Sendable {
    /// `ignored`: a file in a walked folder that is no picture or video (no known signature, no
    /// media name), left out without an output; it does not change the exit status.
    public enum Status: String, Sendable { case done, skipped, refused, failed, ignored }

    public var input: String             // relative to the input folder (or as listed)
    public var size: Int?                // bytes
    public var sha256: String?
    public var output: String?           // relative to the output folder
    public var status: Status
    public var reason: String?
    public var faces: Int?
    public var frames: Int?
    /// With --accept-truncated: what a video that stopped short was missing.
    public var truncated: String?
    /// With --skip-damaged-frames: what was dropped from a damaged video.
    public var damaged: String?
    /// The output's size and SHA-256 when it was written: a rerun reuses it only while it matches.
    public var outputSize: Int?
    public var outputSHA256: String?
    public var seconds: Double
    public var shard: String
    public var settings: String
    public var version: String

    /// The record as one JSON line (no newline), in a fixed key order; with its place in a
    /// shard ("index" from 1, "of") for `--progress json`.
    public func line(index: Int? = nil, of total: Int? = nil) -> String {
        var json = JSONWriter(capacity: 320)
        json.literal("{\"record\":\"input\",\"input\":")
        json.string(input)
        if let size { json.literal(",\"size\":"); json.integer(size) }
        if let sha256 { json.literal(",\"sha256\":"); json.string(sha256) }
        if let output { json.literal(",\"output\":"); json.string(output) }
        if let outputSize { json.literal(",\"output_size\":"); json.integer(outputSize) }
        if let outputSHA256 { json.literal(",\"output_sha256\":"); json.string(outputSHA256) }
        json.literal(",\"status\":")
        json.string(status.rawValue)
        if let reason { json.literal(",\"reason\":"); json.string(reason) }
        if status == .failed { json.literal(",\"retry\":true") }
        if let faces { json.literal(",\"faces\":"); json.integer(faces) }
        if let frames { json.literal(",\"frames\":"); json.integer(frames) }
        if let truncated { json.literal(",\"truncated\":"); json.string(truncated) }
        if let damaged { json.literal(",\"damaged\":"); json.string(damaged) }
        json.literal(",\"seconds\":")
        json.write(Self.decimal(seconds))
        json.literal(",\"shard\":")
        json.string(shard)
        json.literal(",\"settings\":")
        json.string(settings)
        json.literal(",\"version\":")
        json.string(version)
        if let index, let total {
            json.literal(",\"index\":"); json.integer(index)
            json.literal(",\"of\":"); json.integer(total)
        }
        json.byte("}")
        return json.text
    }

    /// From a parsed line (nil: a totals record, or not a record: a torn line).
    public init?(json: [String: Any]) {
        guard (json["record"] as? String) == "input", let input = json["input"] as? String,
              let status = (json["status"] as? String).flatMap(Status.init(rawValue:)) else { return nil }
        (self.input, self.status) = (input, status)
        size = (json["size"] as? NSNumber)?.intValue
        sha256 = json["sha256"] as? String
        output = json["output"] as? String
        reason = json["reason"] as? String
        faces = (json["faces"] as? NSNumber)?.intValue
        frames = (json["frames"] as? NSNumber)?.intValue
        truncated = json["truncated"] as? String
        damaged = json["damaged"] as? String
        outputSize = (json["output_size"] as? NSNumber)?.intValue
        outputSHA256 = json["output_sha256"] as? String
        seconds = (json["seconds"] as? NSNumber)?.doubleValue ?? 0
        shard = json["shard"] as? String ?? ""
        settings = json["settings"] as? String ?? ""
        version = json["version"] as? String ?? ""
    }

    public init(input: String, size: Int?, sha256: String?, output: String?, status: Status, reason: String? = nil, faces: Int? = nil,
         frames: Int? = nil, seconds: Double, shard: String, settings: String, version: String = ToolVersion.string) {
        (self.input, self.size, self.sha256, self.output, self.status, self.reason) = (input, size, sha256, output, status, reason)
        (self.faces, self.frames, self.seconds, self.shard, self.settings, self.version) = (faces, frames, seconds, shard, settings, version)
    }

    public static func decimal(_ v: Double) -> String {
        let ms = (v * 1000).rounded()
        return String(format: "%.3f", ms / 1000)
    }
}

/// The totals of a set of input records: the final record of a run, and of `manifest merge`.
public struct ManifestTotals: Sendable {
    public var inputs = 0, done = 0, skipped = 0, refused = 0, failed = 0, ignored = 0, faces = 0, frames = 0
    public var seconds = 0.0

    public init() {}

    public mutating func add(_ r: ManifestRecord) {
        inputs += 1
        switch r.status {
        case .done: done += 1
        case .skipped: skipped += 1
        case .refused: refused += 1
        case .failed: failed += 1
        case .ignored: ignored += 1
        }
        if r.status == .done || r.status == .skipped { faces += r.faces ?? 0; frames += r.frames ?? 0 }
        seconds += r.seconds
    }

    /// {"record":"totals", the run's or the merge's own fields (`strings`, then `counts`), then
    /// the totals}: `completed` is done + skipped (the inputs whose output is there).
    public func line(strings: [(String, String)] = [], counts: [(String, Int)] = []) -> String {
        var json = JSONWriter(capacity: 320)
        json.literal("{\"record\":\"totals\",")
        for (key, value) in strings {
            json.string(key)
            json.byte(":")
            json.string(value)
            json.byte(",")
        }
        for (key, value) in counts + [("inputs", inputs), ("completed", done + skipped), ("done", done), ("skipped", skipped),
                                      ("refused", refused), ("failed", failed), ("ignored", ignored), ("faces", faces), ("frames", frames)] {
            json.string(key)
            json.byte(":")
            json.integer(value)
            json.byte(",")
        }
        json.literal("\"seconds\":")
        json.write(ManifestRecord.decimal(seconds))
        json.byte("}")
        return json.text
    }
}

/// Reading manifests back.
public enum Manifest {
    /// Every parsable input record of a manifest file, in order; torn or foreign lines (a run
    /// killed mid-write) are passed over. A missing file has none.
    public static func read(_ path: String) -> [ManifestRecord] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return data.split(separator: UInt8(ascii: "\n")).compactMap { line in
            guard let json = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else { return nil }
            return ManifestRecord(json: json)
        }
    }

    /// The last done or skipped record of each input in the manifest at `path` and the other
    /// shards' manifests beside it (manifest-*-of-*.jsonl): what a rerun may reuse. A later
    /// refused or failed record of the same input withdraws it.
    public static func trustedRecords(_ path: String) -> [String: ManifestRecord] {
        let folder = (path as NSString).deletingLastPathComponent
        var files = [path]
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []).sorted()
        where name.hasPrefix("manifest-") && name.hasSuffix(".jsonl") && name.contains("-of-") {
            let file = (folder as NSString).appendingPathComponent(name)
            if file != path { files.append(file) }
        }
        var trusted: [String: ManifestRecord] = [:]
        for file in files {
            for r in Manifest.read(file) {
                if r.status == .done || r.status == .skipped { trusted[r.input] = r } else if file == path { trusted[r.input] = nil }
            }
        }
        return trusted
    }
}

/// A manifest open for appending: each record is one write(2) of a whole line, so a kill loses
/// at most the inputs in flight, and a line torn by a kill ends before the next run's first.
public final class ManifestWriter {
    public let path: String
    private let fd: Int32

    public init(path: String) throws {
        self.path = path
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty { try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw RetryableError("\(path): the manifest cannot be written: \(String(cString: strerror(errno)))") }
        // A torn last line (a killed run) gets its newline, so that the next record stands alone.
        var info = stat()
        if fstat(fd, &info) == 0, info.st_size > 0, let reader = FileHandle(forReadingAtPath: path) {
            try? reader.seek(toOffset: UInt64(info.st_size - 1))
            let last = (try? reader.read(upToCount: 1)) ?? nil
            try? reader.close()
            if last != Data("\n".utf8) { try append("") }
        }
    }

    public func append(_ line: String) throws {
        let bytes = Array((line + "\n").utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw RetryableError("\(path): the manifest cannot be written: \(String(cString: strerror(errno)))")
            }
            written += n
        }
    }

    deinit { close(fd) }
}

/// The lock a run holds on its shard's manifest (`MANIFEST.lock`, flock(2)) for as long as it
/// runs, so that two processes on one shard never both run: the second is told the first's
/// process id. Released when the process ends, however it ends.
public final class ManifestLock {
    private let fd: Int32

    /// Takes the lock, or throws `RetryableError` naming the holder (a retry after it ends works).
    public init(manifest: String) throws {
        let path = manifest + ".lock"
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw ManifestLockError.cannotOpen("\(path): cannot open the manifest's lock: \(String(cString: strerror(errno)))", errno) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            var bytes = [UInt8](repeating: 0, count: 32)
            let n = pread(fd, &bytes, bytes.count, 0)
            close(fd)
            guard code == EWOULDBLOCK else { throw ManifestLockError.cannotOpen("\(path): cannot lock: \(String(cString: strerror(code)))", code) }
            let holder = String(decoding: bytes.prefix(max(0, n)), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw RetryableError("\(manifest): another blazeface (process \(holder.isEmpty ? "unknown" : holder)) is running this shard "
                                 + "and holds \(path); run again once it has ended")
        }
        let pid = Array("\(getpid())\n".utf8)
        ftruncate(fd, 0)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    }

    deinit { close(fd) }
}

/// The lock file cannot be made (a read-only folder): a plain message and the errno.
public enum ManifestLockError: Error, Sendable, CustomStringConvertible {
    case cannotOpen(String, Int32)
    public var description: String { switch self { case let .cannotOpen(message, _): message } }
}
