import BlazeFace
import FileRedaction
import Foundation

/// A JSON line per input on stderr (`--progress json`): the manifest's record with its place in
/// the shard ("index" from 1, "of").
enum ProgressLine {
    static func emit(_ record: ManifestRecord, index: Int, of total: Int) {
        FileHandle.standardError.write(Data((record.line(index: index, of: total) + "\n").utf8))
    }
}

extension ProgressLine {
    /// `detect`'s and `analyze`'s line: {"input":P,"status":"done"|"refused","faces":N,"index":I,"of":T}.
    static func item(input: String, faces: Int?, error: String?, index: Int, of total: Int) {
        var json = JSONWriter(capacity: 160)
        json.literal("{\"input\":")
        json.string(input)
        json.literal(",\"status\":")
        json.string(error == nil ? "done" : "refused")
        if let faces { json.literal(",\"faces\":"); json.integer(faces) }
        if let error { json.literal(",\"reason\":"); json.string(error) }
        json.literal(",\"index\":"); json.integer(index)
        json.literal(",\"of\":"); json.integer(total)
        json.literal("}\n")
        FileHandle.standardError.write(Data(json.bytes))
    }
}

