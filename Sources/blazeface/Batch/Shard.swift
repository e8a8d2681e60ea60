import ArgumentParser
import Foundation
import TFLiteImport

/// One shard of a batch: inputs whose relative path hashes to `index` modulo `count`
/// (Docs/clusters.md). Every input belongs to exactly one shard, whatever the listing order,
/// the machine or the files added later.
struct Shard: Equatable, CustomStringConvertible {
    let index: Int
    let count: Int
    /// Where the index came from: "--shard", "JOB_COMPLETION_INDEX", ... or "none" (one shard).
    let source: String

    static let whole = Shard(index: 0, count: 1, source: "none")

    var description: String { "\(index)/\(count)" }
    /// The manifest's file name for this shard: manifest-I-of-N.jsonl.
    var manifestName: String { "manifest-\(index)-of-\(count).jsonl" }

    /// The shard of an input: the first 8 bytes of SHA-256 of its path relative to the input
    /// root (UTF-8, `/` between components), read as a big-endian unsigned integer, modulo the
    /// count. In a shell: `printf %s "$rel" | sha256sum | cut -c1-16`, as hex, mod N.
    static func of(key: String, count: Int) -> Int {
        guard count > 1 else { return 0 }
        let digest = SHA256.digest(Array(key.utf8))
        let head = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Int(head % UInt64(count))
    }

    func contains(key: String) -> Bool { Self.of(key: key, count: count) == index }

    /// The shard from `--shard I/N` or, when it is absent, from a cluster engine's environment,
    /// first found first: Kubernetes Indexed Jobs (JOB_COMPLETION_INDEX), Slurm job arrays
    /// (SLURM_ARRAY_TASK_ID minus SLURM_ARRAY_TASK_MIN; the count from SLURM_ARRAY_TASK_COUNT),
    /// AWS Batch array jobs (AWS_BATCH_JOB_ARRAY_INDEX). `--shard-count N` gives the count where
    /// the engine does not (Kubernetes, AWS Batch) and overrides Slurm's. Neither: one shard.
    /// Anything malformed is a usage error.
    static func resolve(flag: String?, count: Int?, environment: [String: String]) throws -> Shard {
        if let count, count < 1 { throw ValidationError("--shard-count must be at least 1, not \(count)") }
        if let flag {
            let parts = flag.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), n >= 1, (0..<n).contains(i) else {
                throw ValidationError("--shard must be I/N with 0 <= I < N (the first of 4 shards is 0/4), not \(flag)")
            }
            if let count, count != n { throw ValidationError("--shard \(flag) and --shard-count \(count) disagree: give one") }
            return Shard(index: i, count: n, source: "--shard")
        }
        func number(_ name: String) throws -> Int? {
            guard let text = environment[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
            guard let value = Int(text), value >= 0 else { throw ValidationError("\(name) must be a whole number, not \(text)") }
            return value
        }
        func make(_ index: Int, _ engineCount: Int?, _ name: String) throws -> Shard {
            guard let n = count ?? engineCount else {
                throw ValidationError("\(name) is set (\(index)) but the shard count is not known: add --shard-count N")
            }
            guard (0..<n).contains(index) else { throw ValidationError("\(name) gives shard \(index), not below the count \(n)") }
            return Shard(index: index, count: n, source: name)
        }
        if let i = try number("JOB_COMPLETION_INDEX") { return try make(i, nil, "JOB_COMPLETION_INDEX") }
        if let id = try number("SLURM_ARRAY_TASK_ID") {
            let low = try number("SLURM_ARRAY_TASK_MIN") ?? 0
            guard id >= low else { throw ValidationError("SLURM_ARRAY_TASK_ID \(id) is below SLURM_ARRAY_TASK_MIN \(low)") }
            return try make(id - low, try number("SLURM_ARRAY_TASK_COUNT"), "SLURM_ARRAY_TASK_ID")
        }
        if let i = try number("AWS_BATCH_JOB_ARRAY_INDEX") { return try make(i, nil, "AWS_BATCH_JOB_ARRAY_INDEX") }
        if let count { throw ValidationError("--shard-count \(count) needs a shard index: --shard I/\(count) or an engine's index variable") }
        return .whole
    }
}

/// How per-input progress is shown: `bar` (a terminal bar on stderr, only on a terminal) or
/// `json` (one JSON line per input on stderr, for cluster logs).
enum ProgressStyle: String, ExpressibleByArgument, CaseIterable {
    case bar, json
}

/// The options `detect`, `analyze` and `redact` share for batches over folders and lists.
struct ShardOptions: ParsableArguments {
    @Option(help: "Process only shard I of N (0 <= I < N) of the inputs, by a stable hash of each input's path relative to its folder (Docs/clusters.md). Without it: JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID or AWS_BATCH_JOB_ARRAY_INDEX, if set; else every input.")
    var shard: String?

    @Option(help: "The shard count where the engine's environment does not give it (Kubernetes, AWS Batch).")
    var shardCount: Int?

    @Option(help: "A file of inputs, one path per line (blank lines and lines starting with # ignored), besides or instead of those given as arguments.")
    var inputList: String?

    @Option(help: "Per-input progress on stderr: bar (drawn only on a terminal) or json (one JSON line per input).")
    var progress: ProgressStyle = .bar

    /// The shard this process runs.
    func resolved() throws -> Shard {
        try Shard.resolve(flag: shard, count: shardCount, environment: ProcessInfo.processInfo.environment)
    }

    /// The lines of --input-list (none without it); a list that cannot be read is a usage error.
    func listedInputs() throws -> [String] {
        guard let inputList else { return [] }
        guard let data = FileManager.default.contents(atPath: inputList) else {
            throw ValidationError("--input-list \(inputList): cannot be read")
        }
        return String(decoding: data, as: UTF8.self).split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }).map {
            $0.hasSuffix("\r") ? String($0.dropLast()) : String($0)
        }.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty && !$0.hasPrefix("#") }
    }

    func validate() throws { _ = try resolved() }
}

extension InputList {
    /// `expand`'s items, each with its shard key: its path relative to the folder argument it
    /// was found in, or the argument itself for a file named on its own ("-" for stdin).
    static func expandKeyed(_ arguments: [String]) -> [(item: Item, key: String)] {
        var out: [(Item, String)] = []
        for argument in arguments {
            var isFolder: ObjCBool = false
            if argument != "-", FileManager.default.fileExists(atPath: argument, isDirectory: &isFolder), isFolder.boolValue {
                let prefix = argument.hasSuffix("/") ? argument : argument + "/"
                for item in expand([argument]) {
                    let name = item.name
                    out.append((item, name.hasPrefix(prefix) ? String(name.dropFirst(prefix.count)) : name))
                }
            } else {
                out += expand([argument]).map { ($0, $0.name) }
            }
        }
        return out
    }

    /// The inputs of `detect` and `analyze`: the arguments, then --input-list's lines, keeping
    /// those of this process's shard.
    static func sharded(_ arguments: [String], options: ShardOptions) throws -> (items: [Item], shard: Shard) {
        let shard = try options.resolved()
        let all = expandKeyed(arguments + (try options.listedInputs()))
        return (all.filter { shard.contains(key: $0.key) }.map(\.item), shard)
    }
}
