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
            var files: [String] = []
            for argument in manifests {
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: argument, isDirectory: &isFolder) else {
                    throw ToolError("\(argument): no such file or folder")
                }
                if isFolder.boolValue {
                    let names = ((try? FileManager.default.contentsOfDirectory(atPath: argument)) ?? [])
                        .filter { $0.hasPrefix("manifest-") && $0.hasSuffix(".jsonl") }.sorted()
                    files += names.map { (argument as NSString).appendingPathComponent($0) }
                } else {
                    files.append(argument)
                }
            }
            var final: [String: (file: String, record: ManifestRecord)] = [:]
            var duplicates = Set<String>()
            for file in files {
                for record in Manifest.read(file) {
                    if let seen = final[record.input], seen.file != file {
                        if !duplicates.contains(record.input) { printError("\(record.input): in \(seen.file) and \(file)") }
                        duplicates.insert(record.input)
                    }
                    final[record.input] = (file, record)
                }
            }
            var totals = ManifestTotals()
            var stale = 0
            for key in final.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                let (file, record) = final[key]!
                // A manifest in OUTPUT/.blazeface: each completed output checked against its record's size and SHA-256.
                let folder = (file as NSString).deletingLastPathComponent
                if record.status == .done || record.status == .skipped, (folder as NSString).lastPathComponent == ".blazeface",
                   let out = record.output, record.outputSize != nil {
                    let path = ((folder as NSString).deletingLastPathComponent as NSString).appendingPathComponent(out)
                    if !BatchOutputs.outputMatches(record, path) {
                        printError("\(record.input): its output \(path) is missing or no longer matches its record (size, SHA-256): a rerun redoes it")
                        stale += 1
                    }
                }
                totals.add(record)
                print(record.line())
            }
            print(totals.line(counts: [("manifests", files.count), ("duplicates", duplicates.count), ("stale", stale)]))
            if !duplicates.isEmpty || stale > 0 { throw ExitCode(BatchExit.refused) }
        }
    }
}
