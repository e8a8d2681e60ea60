import ArgumentParser
import FileRedaction
import Foundation

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
        do { return try Shard.resolve(flag: shard, count: shardCount, environment: ProcessInfo.processInfo.environment) } catch {
            throw ValidationError(error.description)
        }
    }

    /// The lines of --input-list (none without it); a list that cannot be read is a usage error.
    func listedInputs() throws -> [String] {
        guard let inputList else { return [] }
        guard let lines = InputList.lines(ofListAt: inputList) else { throw ValidationError("--input-list \(inputList): cannot be read") }
        return lines
    }

    func validate() throws { _ = try resolved() }
}

extension InputList {
    /// The inputs of `detect` and `analyze`: the arguments, then --input-list's lines, keeping
    /// those of this process's shard.
    static func sharded(_ arguments: [String], options: ShardOptions) throws -> (items: [Item], shard: Shard) {
        let shard = try options.resolved()
        return (sharded(arguments + (try options.listedInputs()), shard: shard), shard)
    }
}
