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
