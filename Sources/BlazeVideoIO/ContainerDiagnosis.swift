import Foundation

extension VideoFileReader {
    /// Why a file FFmpeg cannot open was nonetheless a video, when its bytes say so; nil when
    /// they do not. Today: an MP4 or MOV (ISO BMFF, `ftyp` first) with media data (`mdat`) but
    /// no index (`moov`), which recorders and `ffmpeg` write last: the file was cut short
    /// (recording stopped, copy cut off) and no frame can be located without its index.
    public static func unreadableCause(path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let end = try? handle.seekToEnd(), end >= 16 else { return nil }
        var offset: UInt64 = 0, types: [String] = [], mediaBytes: UInt64 = 0, cutInside: String?
        while offset + 8 <= end, types.count < 10_000 {
            guard (try? handle.seek(toOffset: offset)) != nil, let head = try? handle.read(upToCount: 16), head.count >= 8 else { break }
            let bytes = [UInt8](head)
            var size = UInt64(bytes[0]) << 24 | UInt64(bytes[1]) << 16 | UInt64(bytes[2]) << 8 | UInt64(bytes[3])
            let type = String(decoding: bytes[4..<8], as: UTF8.self)
            guard type.utf8.allSatisfy({ (0x20...0x7E).contains($0) }) else { break }
            if size == 1, bytes.count >= 16 { size = bytes[8..<16].reduce(0) { $0 << 8 | UInt64($1) } }
            if size == 0 { size = end - offset }   // to the end of the file
            guard size >= 8 else { break }
            types.append(type)
            if type == "mdat" { mediaBytes += min(size, end - offset) }
            if offset + size > end { cutInside = type; break }
            offset += size
        }
        guard types.first == "ftyp", !types.contains("moov"), types.contains("mdat") else { return nil }
        let where_ = cutInside.map { " and ends inside its '\($0)' box" } ?? ""
        return "an MP4/MOV cut short before its index: it holds \(mediaBytes) bytes of media data\(where_), but no 'moov' box, "
            + "which the recorder or copy writes last (a recording stopped early, a copy cut off); without it no frame can be located"
    }
}
