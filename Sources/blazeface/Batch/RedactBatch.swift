import ArgumentParser
import BlazeFace
import BlazeImageIO
import FaceRedaction
import Foundation
import TFLiteImport

/// `redact` over a folder or an --input-list: the shard's inputs, each redacted to the same
/// relative path under OUTPUT (written under a temporary name, renamed when complete), each
/// recorded in the shard's manifest as soon as it is settled; a rerun reuses the outputs its
/// manifests vouch for (Docs/clusters.md).
extension Redact {
    /// The settings that shape the outputs' bytes, as manifests record them (not --threads, which
    /// does not change them, nor --no-progress).
    var settingsString: String {
        let confidence = (try? aliased(minDetectionConfidence, threshold, "", "")).flatMap { $0.map { "\($0)" } } ?? "default"
        let parts: [(String, String)] = [
            ("mode", (preview ? .outline : mode).rawValue), ("boxes", "\(boxes)"), ("mask-scale", "\(maskScale)"), ("min-detection-confidence", confidence),
            ("model", model.canonical), ("linger", "\(linger)"), ("every", "\(every)"), ("look-behind", lookBehind.map { "\($0)" } ?? "default"),
            ("tiles", noTiles ? "off" : tiles), ("confirmation-score", "\(confirmationScore)"), ("second-opinion", noSecondOpinion ? "off" : "on"),
            ("keep-metadata", "\(keepMetadata)"), ("keep-location", "\(keepLocation)"), ("jpeg-quality", jpegQuality.map { "\($0)" } ?? "input"),
            ("audio", noAudio ? "off" : "copy"), ("video-codec", videoCodec.rawValue), ("crf", crf.map { "\($0)" } ?? "default"),
            ("preset", preset ?? "default")]
        return parts.map { "\($0.0)=\($0.1)" }.joined(separator: " ")
    }

    /// The inputs' keys: paths relative to INPUT, `/`-separated, in byte order; hidden files
    /// and folders, and the output folder if it lies inside INPUT, left out.
    static func walk(_ root: String, excluding output: String) -> [String] {
        let rootPath = (root as NSString).standardizingPath, outPath = (output as NSString).standardizingPath
        let inside = outPath.hasPrefix(rootPath + "/") ? String(outPath.dropFirst(rootPath.count + 1)) : nil
        let all = FileManager.default.enumerator(atPath: root)?.compactMap { $0 as? String } ?? []
        return all.filter { relative in
            if relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) { return false }
            if let inside, relative == inside || relative.hasPrefix(inside + "/") { return false }
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: (root as NSString).appendingPathComponent(relative), isDirectory: &isFolder)
                && !isFolder.boolValue
        }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// A listed path as a key relative to `root`; nil when it lies outside it.
    static func key(listed line: String, root: String) -> String? {
        let rootPath = (root as NSString).standardizingPath
        var path = line
        if path.hasPrefix("/") {
            let standard = (path as NSString).standardizingPath
            if rootPath == "/" { path = String(standard.dropFirst()) } else {
                guard standard.hasPrefix(rootPath + "/") else { return nil }
                path = String(standard.dropFirst(rootPath.count + 1))
            }
        }
        let parts = path.split(separator: "/").filter { $0 != "." }
        guard !parts.isEmpty, !parts.contains("..") else { return nil }
        return parts.joined(separator: "/")
    }

    /// Removes what a killed run left behind for `target`: its hidden temporary files
    /// (.NAME.XXXXXX from AtomicFile, .STEM.partial-*.EXT from the video writer).
    static func removeStaleTemporaries(of target: String) {
        let folder = (target as NSString).deletingLastPathComponent, name = (target as NSString).lastPathComponent
        let stem = (name as NSString).deletingPathExtension, ext = (name as NSString).pathExtension
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? [] {
            let photoTemp = entry.hasPrefix("." + name + ".") && entry.count == name.count + 8
            let videoTemp = entry.hasPrefix("." + stem + ".partial-") && entry.hasSuffix("." + ext)
            if photoTemp || videoTemp { try? FileManager.default.removeItem(atPath: (folder as NSString).appendingPathComponent(entry)) }
        }
    }

    /// The run over a folder or a list (`INPUT` is then the folder the listed paths are relative to).
    func redactBatch(_ redactor: FaceRedactor, pool: ThreadPool) throws {
        let shard = try batch.resolved()
        var keys: [String] = []
        var refusedKeys: [(String, String)] = []   // listed paths outside INPUT
        if batch.inputList != nil {
            for line in try batch.listedInputs() {
                if let key = Self.key(listed: line, root: input) {
                    if !keys.contains(key) { keys.append(key) }
                } else {
                    refusedKeys.append((line, "outside the input folder \(input)"))
                }
            }
        } else {
            keys = Self.walk(input, excluding: output)
        }
        let mine = keys.filter { shard.contains(key: $0) }
        let refusedHere = refusedKeys.filter { shard.contains(key: $0.0) }
        let manifestPath = manifest ?? (output as NSString).appendingPathComponent(".blazeface/" + shard.manifestName)
        let trusted = force ? [:] : Self.trustedRecords(manifestPath)
        let writer: ManifestWriter
        do {
            try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            writer = try ManifestWriter(path: manifestPath)
        } catch {
            printError("\(error)")
            throw ExitCode(BatchExit.retry)
        }
        let settings = settingsString, shardName = shard.description
        let total = mine.count + refusedHere.count
        let bar = batch.progress == .bar && ProgressBar.wanted(count: total, disabled: noProgress) ? ProgressBar(total: total, unit: "files") : nil
        defer { bar?.clear() }
        var totals = ManifestTotals()
        var pictures = 0, videos = 0
        func settle(_ record: ManifestRecord, _ n: Int) throws {
            totals.add(record)
            if record.status == .refused || record.status == .failed, batch.progress != .json {
                bar?.clear()
                let shown = record.input.hasPrefix("/") || record.input.hasPrefix("..") ? record.input : (input as NSString).appendingPathComponent(record.input)
                printError("redact: \(record.status == .refused ? "refused" : "failed (worth a retry)") \(shown): \(record.reason ?? "")")
            }
            do { try writer.append(record.line()) } catch {
                printError("\(error)")
                throw ExitCode(BatchExit.retry)
            }
            if batch.progress == .json { ProgressLine.emit(record, index: n, of: total) }
            bar?.update(done: n)
        }
        var n = 0
        for (line, reason) in refusedHere {
            n += 1
            try settle(ManifestRecord(input: line, size: nil, sha256: nil, output: nil, status: .refused, reason: reason, seconds: 0,
                                      shard: shardName, settings: settings), n)
        }
        for key in mine {
            n += 1
            let start = ContinuousClock.now
            let path = (input as NSString).appendingPathComponent(key)
            func seconds() -> Double {
                let d = ContinuousClock.now - start
                return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
            }
            func record(_ status: ManifestRecord.Status, size: Int?, sha: String?, output: String? = nil, reason: String? = nil,
                        faces: Int? = nil, frames: Int? = nil) -> ManifestRecord {
                ManifestRecord(input: key, size: size, sha256: sha, output: output, status: status, reason: reason, faces: faces,
                               frames: frames, seconds: seconds(), shard: shardName, settings: settings)
            }
            let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
            guard let size else {
                try settle(record(.refused, size: nil, sha: nil, reason: "no such file"), n)
                continue
            }
            let sha = SHA256.hexDigest(ofFile: path)
            if let old = trusted[key], old.size == size, old.sha256 != nil, old.sha256 == sha, old.settings == settings,
               old.version == ToolVersion.string, let out = old.output,
               FileManager.default.fileExists(atPath: (output as NSString).appendingPathComponent(out)) {
                try settle(record(.skipped, size: size, sha: sha, output: out, faces: old.faces, frames: old.frames), n)
                continue
            }
            do {
                guard sha != nil else { throw ToolError("\(path): cannot be read (permission denied?)") }
                let kind = try MediaKind.of(path)
                if kind == .folder { throw ToolError("\(path): a folder, not a file") }
                let target = (output as NSString).appendingPathComponent(key)
                do {
                    try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                } catch { throw RetryableError("\(target): cannot make its folder: \(error.localizedDescription)") }
                if kind == .photo {
                    let photoTarget = Self.photoTarget(target)
                    Self.removeStaleTemporaries(of: photoTarget)
                    let faces = try redactPhoto(redactor, path, photoTarget)
                    pictures += 1
                    try settle(record(.done, size: size, sha: sha, output: Self.photoTarget(key), faces: faces), n)
                } else {
                    bar?.clear()
                    Self.removeStaleTemporaries(of: target)
                    let (frames, faces) = try redactVideo(try makeRedactor(pool), path, target, kind: kind)
                    videos += 1
                    try settle(record(.done, size: size, sha: sha, output: key, faces: faces, frames: frames), n)
                }
            } catch let error as ExitCode {
                throw error
            } catch let error as RetryableError {
                try settle(record(.failed, size: size, sha: sha, reason: Self.reason(error, path)), n)
            } catch {
                let reason = Self.reason(error, path)
                try settle(record(RetryableError.looksTransient(reason) ? .failed : .refused, size: size, sha: sha, reason: reason), n)
            }
        }
        let totalsLine = totals.line(fields: "\"shard\":\"\(shardName)\",\"settings\":\(DetectionJSON.string(settings)),"
                                                + "\"version\":\(DetectionJSON.string(ToolVersion.string)),")
        try? writer.append(totalsLine)
        bar?.clear()
        if batch.progress == .json {
            FileHandle.standardError.write(Data((totalsLine + "\n").utf8))
        } else {
            FileHandle.standardError.write(Data(("redact: shard \(shardName): \(pictures) picture(s), \(totals.faces) face(s) masked, "
            + "\(videos) video(s), \(totals.skipped) already done, \(totals.refused) refused, \(totals.failed) failed\n").utf8))
        }
        try BatchExit.finish(refused: totals.refused, failed: totals.failed)
    }

    /// An error's message without the input's path in front (the record names the input).
    private static func reason(_ error: Error, _ path: String) -> String {
        let message = "\(error)"
        for prefix in [path + ": ", "Error: " + path + ": "] where message.hasPrefix(prefix) { return String(message.dropFirst(prefix.count)) }
        return message
    }

    /// The last done or skipped record of each input in the manifest at `path` and the other
    /// shards' manifests beside it (manifest-*-of-*.jsonl): what a rerun may reuse. A later
    /// refused or failed record of the same input withdraws it.
    static func trustedRecords(_ path: String) -> [String: ManifestRecord] {
        let folder = (path as NSString).deletingLastPathComponent
        var files = [path]
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? []).sorted()
        where name.hasPrefix("manifest-") && name.hasSuffix(".jsonl") && name.contains("-of-") {
            let file = (folder as NSString).appendingPathComponent(name)
            if file != path { files.append(file) }
        }
        var trusted: [String: ManifestRecord] = [:]
        for file in files {
            for r in Manifest.read(file) {
                if r.status == .done || r.status == .skipped { trusted[r.input] = r } else if file == path { trusted[r.input] = nil }
            }
        }
        return trusted
    }
}
