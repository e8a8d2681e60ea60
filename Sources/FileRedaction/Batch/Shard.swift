import InternalUtilities
import Foundation

/// One shard of a batch: inputs whose relative path hashes to `index` modulo `count`
/// (Docs/clusters.md). Every input belongs to exactly one shard, whatever the listing order,
/// the machine or the files added later.
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    public let index: Int
    public let count: Int
    /// Where the index came from: "--shard", "JOB_COMPLETION_INDEX", ... or "none" (one shard).
    public let source: String

    public init(index: Int, count: Int, source: String) { (self.index, self.count, self.source) = (index, count, source) }

    public static let whole = Shard(index: 0, count: 1, source: "none")

    public var description: String { "\(index)/\(count)" }
    /// The manifest's file name for this shard: manifest-I-of-N.jsonl.
    public var manifestName: String { "manifest-\(index)-of-\(count).jsonl" }

    /// The shard of an input: the first 8 bytes of SHA-256 of its path relative to the input
    /// root (UTF-8, `/` between components), read as a big-endian unsigned integer, modulo the
    /// count. In a shell: `printf %s "$rel" | sha256sum | cut -c1-16`, as hex, mod N.
    public static func of(key: String, count: Int) -> Int {
        guard count > 1 else { return 0 }
        let digest = SHA256.digest(Array(key.utf8))
        let head = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Int(head % UInt64(count))
    }

    public func contains(key: String) -> Bool { Self.of(key: key, count: count) == index }

    /// The shard from `--shard I/N` or, when it is absent, from a cluster engine's environment,
    /// first found first: Kubernetes Indexed Jobs (JOB_COMPLETION_INDEX), Slurm job arrays
    /// (SLURM_ARRAY_TASK_ID minus SLURM_ARRAY_TASK_MIN; the count from SLURM_ARRAY_TASK_COUNT),
    /// AWS Batch array jobs (AWS_BATCH_JOB_ARRAY_INDEX). `--shard-count N` gives the count where
    /// the engine does not (Kubernetes, AWS Batch) and overrides Slurm's. Neither: one shard.
    /// Anything malformed is a usage error.
    public static func resolve(flag: String?, count: Int?, environment: [String: String]) throws(BatchUsageError) -> Shard {
        if let count, count < 1 { throw BatchUsageError("--shard-count must be at least 1, not \(count)") }
        if let flag {
            let parts = flag.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), n >= 1, (0..<n).contains(i) else {
                throw BatchUsageError("--shard must be I/N with 0 <= I < N (the first of 4 shards is 0/4), not \(flag)")
            }
            if let count, count != n { throw BatchUsageError("--shard \(flag) and --shard-count \(count) disagree: give one") }
            return Shard(index: i, count: n, source: "--shard")
        }
        func number(_ name: String) throws(BatchUsageError) -> Int? {
            guard let text = environment[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
            guard let value = Int(text), value >= 0 else { throw BatchUsageError("\(name) must be a whole number, not \(text)") }
            return value
        }
        func make(_ index: Int, _ engineCount: Int?, _ name: String) throws(BatchUsageError) -> Shard {
            guard let n = count ?? engineCount else {
                throw BatchUsageError("\(name) is set (\(index)) but the shard count is not known: add --shard-count N")
            }
            guard (0..<n).contains(index) else { throw BatchUsageError("\(name) gives shard \(index), not below the count \(n)") }
            return Shard(index: index, count: n, source: name)
        }
        if let i = try number("JOB_COMPLETION_INDEX") { return try make(i, nil, "JOB_COMPLETION_INDEX") }
        if let id = try number("SLURM_ARRAY_TASK_ID") {
            let low = try number("SLURM_ARRAY_TASK_MIN") ?? 0
            guard id >= low else { throw BatchUsageError("SLURM_ARRAY_TASK_ID \(id) is below SLURM_ARRAY_TASK_MIN \(low)") }
            return try make(id - low, try number("SLURM_ARRAY_TASK_COUNT"), "SLURM_ARRAY_TASK_ID")
        }
        if let i = try number("AWS_BATCH_JOB_ARRAY_INDEX") { return try make(i, nil, "AWS_BATCH_JOB_ARRAY_INDEX") }
        if let count { throw BatchUsageError("--shard-count \(count) needs a shard index: --shard I/\(count) or an engine's index variable") }
        return .whole
    }
}


/// A batch asked for with settings that cannot work (a malformed shard, a count that disagrees):
/// a usage error, with the sentence to show.
public struct BatchUsageError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
