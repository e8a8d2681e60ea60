import ArgumentParser
import Foundation
import FileRedaction

/// `blazeface manifest merge`: the shards' manifests as one report.
struct ManifestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "manifest",
        abstract: "Batch manifests (JSON Lines, one per shard): merge them into one report.",
        subcommands: [Merge.self])

    struct Merge: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Merge shard manifests: each input's last record, sorted by input, then one totals record, on stdout.",
            discussion: "Arguments are manifest files or folders (their manifest-*.jsonl, e.g. OUTPUT/.blazeface). An input "
                + "recorded by two manifests is named on stderr and counted as \"duplicates\" in the totals; the exit status is "
                + "then 65. So it is when a completed output (in OUTPUT, beside OUTPUT/.blazeface) is missing or no longer matches "
                + "the size and SHA-256 its record holds (counted as \"stale\"). Torn lines (a killed run) are passed over.")

        @Argument(help: "Manifest files, or folders holding manifest-*.jsonl.")
        var manifests: [String]

        func run() throws {
            let merged: ManifestMerge
            do { merged = try ManifestMerge(manifests: manifests) } catch { throw ToolError(error.description) }
            for d in merged.duplicates { printError("\(d.input): in \(d.first) and \(d.second)") }
            for s in merged.stale {
                printError("\(s.input): its output \(s.output) is missing or no longer matches its record (size, SHA-256): a rerun redoes it")
            }
            for record in merged.records { print(record.line()) }
            print(merged.totalsLine)
            if !merged.duplicates.isEmpty || !merged.stale.isEmpty { throw ExitCode(BatchExit.refused) }
        }
    }
}
