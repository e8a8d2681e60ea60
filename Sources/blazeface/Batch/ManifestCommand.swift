import ArgumentParser
import Foundation

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
                + "then 65. Torn lines (a killed run) are passed over.")

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
            for key in final.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                let record = final[key]!.record
                totals.add(record)
                print(record.line())
            }
            print(totals.line(fields: "\"manifests\":\(files.count),\"duplicates\":\(duplicates.count),"))
            if !duplicates.isEmpty { throw ExitCode(BatchExit.refused) }
        }
    }
}
