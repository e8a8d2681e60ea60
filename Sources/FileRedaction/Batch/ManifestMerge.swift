import Foundation
import MediaFiles

/// The shards' manifests as one report (`blazeface manifest merge`): each input's last record,
/// sorted by input, the inputs two manifests record, and the completed outputs that no longer
/// match their records. Torn lines (a killed run) are passed over.
///
/// ```swift
/// let merged = try ManifestMerge(manifests: ["out/.blazeface"])
/// for record in merged.records { print(record.line()) }
/// print(merged.totalsLine)
/// ```
public struct ManifestMerge: Sendable {
    /// The manifest files read, in order: files as given, a folder's `manifest-*.jsonl` sorted.
    public var files: [String] = []
    /// Each input's last record, sorted by input (by UTF-8).
    public var records: [ManifestRecord] = []
    /// An input recorded by two manifests: the first two files that record it.
    public var duplicates: [(input: String, first: String, second: String)] = []
    /// A completed output (for a manifest in `OUTPUT/.blazeface`) missing or no longer matching
    /// the size and SHA-256 its record holds: its input and its path. A rerun redoes it.
    public var stale: [(input: String, output: String)] = []
    /// The records counted.
    public var totals = ManifestTotals()

    /// The closing line: the totals, the manifests read, the duplicates and the stale outputs.
    public var totalsLine: String {
        totals.line(counts: [("manifests", files.count), ("duplicates", duplicates.count), ("stale", stale.count)])
    }

    /// Reads `manifests` (manifest files, or folders holding `manifest-*.jsonl`); one that does
    /// not exist throws `MediaFileError.Kind.missing`.
    public init(manifests: [String]) throws(MediaFileError) {
        for argument in manifests {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: argument, isDirectory: &isFolder) else {
                throw MediaFileError(.missing, "\(argument): no such file or folder")
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
        var seenTwice = Set<String>()
        for file in files {
            for record in Manifest.read(file) {
                if let seen = final[record.input], seen.file != file, !seenTwice.contains(record.input) {
                    duplicates.append((record.input, seen.file, file))
                    seenTwice.insert(record.input)
                }
                final[record.input] = (file, record)
            }
        }
        for key in final.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            let (file, record) = final[key]!
            // A manifest in OUTPUT/.blazeface: each completed output checked against its record's size and SHA-256.
            let folder = (file as NSString).deletingLastPathComponent
            if record.status == .done || record.status == .skipped, (folder as NSString).lastPathComponent == ".blazeface",
               let out = record.output, record.outputSize != nil {
                let path = ((folder as NSString).deletingLastPathComponent as NSString).appendingPathComponent(out)
                if !BatchOutputs.outputMatches(record, path) { stale.append((record.input, path)) }
            }
            totals.add(record)
            records.append(record)
        }
    }
}
