import ArgumentParser
import BlazeFace
import BlazeImageIO
import FaceRedaction
import MediaFiles
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
            ("mode", filling.rawValue), ("boxes", "\(boxes)"), ("mask-scale", "\(maskScale)"), ("min-detection-confidence", confidence),
            ("model", model.canonical), ("linger", "\(linger)"), ("every", "\(every)"), ("look-behind", lookBehind.map { "\($0)" } ?? "default"),
            ("tiles", noTiles ? "off" : tiles), ("confirmation-score", "\(confirmationScore)"), ("second-opinion", noSecondOpinion ? "off" : "on"),
            ("keep-metadata", "\(keepMetadata)"), ("keep-location", "\(keepLocation)"), ("jpeg-quality", jpegQuality.map { "\($0)" } ?? "input"),
            ("audio", noAudio ? "off" : "copy"), ("video-codec", videoCodec.rawValue), ("crf", crf.map { "\($0)" } ?? "default"),
            ("preset", preset ?? "default")] + (acceptTruncated ? [("accept-truncated", "true")] : [])
            + (skipDamagedFrames ? [("skip-damaged-frames", "true")] : [])
            + (blurRadius.map { [("blur-radius", "\($0)")] } ?? []) + (blockSize.map { [("block-size", "\($0)")] } ?? [])
            + (replaceWith.map { [("replace-with", SHA256.hexDigest(ofFile: $0) ?? "unreadable")] } ?? [])
            + maskRegion.map { ("mask-region", $0) } + keepTrack.map { ("keep-track", "\($0)") } + keepRegion.map { ("keep-region", $0) }
        return (parts + centerfaceSettings).map { "\($0.0)=\($0.1)" }.joined(separator: " ")
    }

    /// The hidden CenterFace tuning options, where given (none by default, so that the settings of
    /// earlier manifests still match).
    private var centerfaceSettings: [(String, String)] {
        var out: [(String, String)] = noCenterface ? [("centerface", "off")] : []
        if let centerfaceMinScore { out.append(("centerface-min-score", "\(centerfaceMinScore)")) }
        if let centerfaceConfirmationScore { out.append(("centerface-confirmation-score", "\(centerfaceConfirmationScore)")) }
        if let centerfaceEvery { out.append(("centerface-every", "\(centerfaceEvery)")) }
        return out
    }

    /// The inputs' keys: paths relative to INPUT, `/`-separated, in byte order; hidden files
    /// and folders left out, and so is whatever lies in the output folder (compared as resolved
    /// paths, however either is spelled, when it lies inside INPUT). A file reached through a
    /// symbolic link that leads out of INPUT is refused (`refused`: its key and the reason).
    /// `hidden` counts the hidden files and folders left out (a hidden folder once, however
    /// much it holds).
    static func walk(_ root: String, excluding output: String) -> (keys: [String], refused: [(String, String)], hidden: Int) {
        let rootReal = PathIdentity.resolved(root), outReal = PathIdentity.resolved(output)
        let outputInside = outReal != rootReal && PathIdentity.isInside(outReal, rootReal)
        var keys: [String] = [], refused: [(String, String)] = [], hidden = 0
        guard let walker = FileManager.default.enumerator(atPath: root) else { return ([], [], 0) }
        while let relative = walker.nextObject() as? String {
            let path = (root as NSString).appendingPathComponent(relative)
            let real = PathIdentity.resolved(path)
            if outputInside, PathIdentity.isInside(real, outReal) {
                walker.skipDescendants()
                continue
            }
            if (relative as NSString).lastPathComponent.hasPrefix(".") {
                hidden += 1
                walker.skipDescendants()
                continue
            }
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue else { continue }
            if !PathIdentity.isInside(real, rootReal) {
                refused.append((relative, "a symbolic link that leads out of the input folder (to \(real))"))
                continue
            }
            keys.append(relative)
        }
        let byteOrder: (String, String) -> Bool = { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        return (keys.sorted(by: byteOrder), refused.sorted { byteOrder($0.0, $1.0) }, hidden)
    }

    /// A listed path as a key relative to `root`; nil when it lies outside it. An absolute path
    /// is compared with ROOT made absolute, then with both resolved (links followed), so a
    /// relative ROOT takes absolute entries under it.
    static func key(listed line: String, root: String) -> String? {
        var path = line
        if path.hasPrefix("/") {
            let rootPath = PathIdentity.absolute(root), standard = PathIdentity.absolute(path)
            let rootReal = PathIdentity.resolved(root), real = PathIdentity.resolved(path)
            if rootPath == "/" || rootReal == "/" {
                path = String(standard.dropFirst())
            } else if standard.hasPrefix(rootPath + "/") {
                path = String(standard.dropFirst(rootPath.count + 1))
            } else if real.hasPrefix(rootReal + "/") {
                path = String(real.dropFirst(rootReal.count + 1))
            } else {
                return nil
            }
        }
        let parts = path.split(separator: "/").filter { $0 != "." }
        guard !parts.isEmpty, !parts.contains("..") else { return nil }
        return parts.joined(separator: "/")
    }

    /// Every photo's output key, planned from the whole input list (before sharding, so that
    /// shards agree): the same relative path, or `photoTarget`'s `.jpg` name for a format not
    /// written (HEIC, JFIF). Two inputs that would write one output get distinct names: the one
    /// whose name is already the output's keeps it, each other takes its full input name plus
    /// `.jpg` (`IMG_1.heic` beside `IMG_1.jpg` writes `IMG_1.heic.jpg`), whatever the order
    /// found. Videos keep their own name, which is always their key.
    static func planPhotoOutputs(_ keys: [String]) -> [String: String] {
        var plan: [String: String] = [:]
        for key in keys where !MediaKind.videoExtensions.contains((key as NSString).pathExtension.lowercased()) { plan[key] = photoTarget(key) }
        // Until no name is taken twice (a renamed one may meet a real input of that name).
        for _ in 0..<8 {
            var claims: [String: [String]] = [:]
            for (key, target) in plan { claims[target, default: []].append(key) }
            let clashes = claims.filter { $0.value.count > 1 }
            if clashes.isEmpty { break }
            for (target, owners) in clashes {
                for key in owners where key != target {
                    plan[key] = plan[key]! == photoTarget(key) ? key + ".jpg" : plan[key]! + ".jpg"
                }
            }
        }
        return plan
    }

    /// Removes what a killed run left behind for `target`: its hidden temporary files
    /// (.NAME.partial-PID-XXXXXX from AtomicFile, .STEM.partial-PID-XXXXXXXX.EXT from the video
    /// writer, and the older forms without a PID), but never those of a process still running
    /// (another run writing the same output keeps its file).
    static func removeStaleTemporaries(of target: String) {
        let folder = (target as NSString).deletingLastPathComponent, name = (target as NSString).lastPathComponent
        let stem = (name as NSString).deletingPathExtension, ext = (name as NSString).pathExtension
        /// The writer's process id in what follows "partial-", if the name holds one.
        func writer(_ rest: Substring) -> pid_t? {
            guard let dash = rest.firstIndex(of: "-") else { return nil }
            return pid_t(rest[..<dash])
        }
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: folder.isEmpty ? "." : folder)) ?? [] {
            let photoPrefix = "." + name + ".partial-", videoPrefix = "." + stem + ".partial-"
            let legacyPhoto = entry.hasPrefix("." + name + ".") && entry.count == name.count + 8 && !entry.hasPrefix(photoPrefix)
            let rest: Substring? = entry.hasPrefix(photoPrefix) ? entry.dropFirst(photoPrefix.count)
                : entry.hasPrefix(videoPrefix) && entry.hasSuffix("." + ext) ? entry.dropFirst(videoPrefix.count) : nil
            guard legacyPhoto || rest != nil else { continue }
            if let rest, let pid = writer(rest), pid != getpid(), kill(pid, 0) == 0 || errno == EPERM { continue }   // alive
            try? FileManager.default.removeItem(atPath: (folder as NSString).appendingPathComponent(entry))
        }
    }

    /// An output's size and SHA-256 (nil, nil when it cannot be read).
    static func fingerprint(_ path: String) -> (Int?, String?) {
        let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
        return (size, size == nil ? nil : SHA256.hexDigest(ofFile: path))
    }

    /// Whether the output a record vouches for is still there as it was written: the same size
    /// and SHA-256 (a record without them, from an older version, vouches for nothing).
    static func outputMatches(_ record: ManifestRecord, _ path: String) -> Bool {
        guard let size = record.outputSize, let digest = record.outputSHA256 else { return false }
        let (now, nowDigest) = fingerprint(path)
        return now == size && nowDigest == digest
    }

    /// Makes `path` and the folders above it that are missing, one mkdir(2) at a time, so that
    /// a failure names the folder that could not be made and the system's reason.
    static func makeFolders(_ path: String) throws(CannotCreate) {
        var info = stat()
        if stat(path, &info) == 0 {
            guard Int(info.st_mode) & Int(S_IFMT) == Int(S_IFDIR) else { throw CannotCreate(path: path, code: ENOTDIR) }
            return
        }
        let parent = (path as NSString).deletingLastPathComponent
        if !parent.isEmpty, parent != path { try makeFolders(parent) }
        if mkdir(path, 0o755) != 0, errno != EEXIST { throw CannotCreate(path: path, code: errno) }
    }

    /// The run over a folder or a list (`INPUT` is then the folder the listed paths are relative to).
    func redactBatch(_ redactor: FaceRedactor, pool: ThreadPool) throws {
        let shard = try batch.resolved()
        var keys: [String] = []
        var refusedKeys: [(String, String)] = []   // listed paths outside INPUT
        var hidden = 0   // hidden files and folders a walk left out
        // Inputs and outputs compared as files: resolved paths (links followed), devices and inodes.
        let rootReal = PathIdentity.resolved(input), outReal = PathIdentity.resolved(output)
        let outputInsideInput = outReal != rootReal && PathIdentity.isInside(outReal, rootReal)
        if batch.inputList != nil {
            var seen = Set<String>()
            for line in try batch.listedInputs() {
                if let key = Self.key(listed: line, root: input) {
                    let real = PathIdentity.resolved((input as NSString).appendingPathComponent(key))
                    if !PathIdentity.isInside(real, rootReal) {
                        refusedKeys.append((line, "a symbolic link that leads out of the input folder (to \(real))"))
                    } else if outputInsideInput, PathIdentity.isInside(real, outReal) {
                        refusedKeys.append((line, "inside the output folder \(output)"))
                    } else if seen.insert(key).inserted {
                        keys.append(key)
                    }
                } else {
                    refusedKeys.append((line, "outside the input folder \(input)"))
                }
            }
        } else {
            (keys, refusedKeys, hidden) = Self.walk(input, excluding: output)
        }
        // Every input's identity, and every photo's output, planned from the whole list before sharding.
        let inputIDs = Set(keys.compactMap { PathIdentity.fileID((input as NSString).appendingPathComponent($0)) })
        let photoPlan = Self.planPhotoOutputs(keys)
        /// Why `target` (relative to OUTPUT) may not be written, if it may not: it resolves to an
        /// input, out of the output folder, or into the input tree being read.
        func unsafeTarget(_ relative: String) -> String? {
            let target = (output as NSString).appendingPathComponent(relative)
            let real = PathIdentity.resolved(target)
            if let id = PathIdentity.fileID(target), inputIDs.contains(id) { return "its output \(target) is an input (\(real))" }
            if !PathIdentity.isInside(real, outReal) { return "its output \(target) leads out of the output folder (to \(real))" }
            if !outputInsideInput, PathIdentity.isInside(real, rootReal) { return "its output \(target) lies in the input folder (\(real))" }
            return nil
        }
        let mine = keys.filter { shard.contains(key: $0) }
        let refusedHere = refusedKeys.filter { shard.contains(key: $0.0) }
        let manifestPath = manifest ?? (output as NSString).appendingPathComponent(".blazeface/" + shard.manifestName)
        let writer: ManifestWriter, lock: ManifestLock
        do {
            try Self.makeFolders(output)
            try Self.makeFolders((manifestPath as NSString).deletingLastPathComponent)
            lock = try ManifestLock(manifest: manifestPath)
            writer = try ManifestWriter(path: manifestPath)
        } catch let error as CannotCreate {
            // A read-only file system or a folder without permission: a retry cannot help (73).
            printError("\(error)")
            throw ExitCode(error.retryHelps ? BatchExit.retry : BatchExit.cannotCreate)
        } catch let error as ManifestLockError {
            printError("\(error)")
            if case let .cannotOpen(_, code) = error, !CannotCreate.retryHelps(code) { throw ExitCode(BatchExit.cannotCreate) }
            throw ExitCode(BatchExit.retry)
        } catch {
            printError("\(error)")
            throw ExitCode(BatchExit.retry)
        }
        defer { withExtendedLifetime(lock) {} }
        let trusted = force ? [:] : Self.trustedRecords(manifestPath)
        let settings = settingsString, shardName = shard.description
        let total = mine.count + refusedHere.count
        let bar = batch.progress == .bar && ProgressBar.wanted(count: total, disabled: noProgress) ? ProgressBar(total: total, unit: "files") : nil
        defer { bar?.clear() }
        var totals = ManifestTotals()
        var pictures = 0, videos = 0
        func settle(_ record: ManifestRecord, _ n: Int) throws {
            totals.add(record)
            if record.status == .refused || record.status == .failed || record.status == .ignored, batch.progress != .json {
                bar?.clear()
                let shown = record.input.hasPrefix("/") || record.input.hasPrefix("..") ? record.input : (input as NSString).appendingPathComponent(record.input)
                let verb = switch record.status { case .refused: "refused"; case .ignored: "left out"; default: "failed (worth a retry)" }
                printError("redact: \(verb) \(shown): \(record.reason ?? "")")
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
            try Interruption.check()
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
               Self.outputMatches(old, (output as NSString).appendingPathComponent(out)) {
                var skipped = record(.skipped, size: size, sha: sha, output: out, faces: old.faces, frames: old.frames)
                (skipped.outputSize, skipped.outputSHA256, skipped.truncated) = (old.outputSize, old.outputSHA256, old.truncated)
                skipped.damaged = old.damaged
                try settle(skipped, n)
                continue
            }
            do {
                guard sha != nil else { throw ToolError("\(path): cannot be read (permission denied?)") }
                let kind = try MediaKind.of(path)
                if kind == .folder { throw ToolError("\(path): a folder, not a file") }
                let outputKey = kind == .photo ? photoPlan[key] ?? Self.photoTarget(key) : key
                if let unsafe = unsafeTarget(outputKey) { throw ToolError("\(unsafe): refused, the input is never overwritten") }
                let target = (output as NSString).appendingPathComponent(key)
                do { try Self.makeFolders((target as NSString).deletingLastPathComponent) } catch {
                    if error.retryHelps { throw RetryableError("\(target): \(error)") }
                    throw ToolError("\(target): \(error)")
                }
                if kind == .photo {
                    let photoTarget = (output as NSString).appendingPathComponent(outputKey)
                    Self.removeStaleTemporaries(of: photoTarget)
                    let faces = try redactPhoto(redactor, path, photoTarget)
                    pictures += 1
                    var done = record(.done, size: size, sha: sha, output: outputKey, faces: faces)
                    (done.outputSize, done.outputSHA256) = Self.fingerprint(photoTarget)
                    try settle(done, n)
                } else {
                    bar?.clear()
                    Self.removeStaleTemporaries(of: target)
                    let (frames, faces, truncation, damage) = try redactVideo(try makeRedactor(pool), path, target, kind: kind)
                    videos += 1
                    var done = record(.done, size: size, sha: sha, output: key, faces: faces, frames: frames)
                    (done.truncated, done.damaged) = (truncation, damage)
                    (done.outputSize, done.outputSHA256) = Self.fingerprint(target)
                    try settle(done, n)
                }
            } catch let error as ExitCode {
                throw error
            } catch let error as Interrupted {
                throw error   // no record: the input is not settled, a rerun does it
            } catch let error as MediaFileError where error.kind == .notMedia && batch.inputList == nil {
                // A stray file in a walked folder (notes, a sidecar): listed, not refused. A listed
                // path was asked for by name, so it is refused as before.
                try settle(record(.ignored, size: size, sha: sha, reason: Self.reason(error, path)), n)
            } catch let error as RetryableError {
                try settle(record(.failed, size: size, sha: sha, reason: Self.reason(error, path)), n)
            } catch {
                let reason = Self.reason(error, path)
                try settle(record(RetryableError.looksTransient(reason) ? .failed : .refused, size: size, sha: sha, reason: reason), n)
            }
        }
        let totalsLine = totals.line(strings: [("shard", shardName), ("settings", settings), ("version", ToolVersion.string)])
        try? writer.append(totalsLine)
        bar?.clear()
        if batch.progress == .json {
            FileHandle.standardError.write(Data((totalsLine + "\n").utf8))
        } else {
            FileHandle.standardError.write(Data(("redact: shard \(shardName): " + Self.summary(totals, pictures: pictures, videos: videos, hidden: hidden) + "\n").utf8))
        }
        try BatchExit.finish(refused: totals.refused, failed: totals.failed)
    }

    /// The closing line of a batch run: what this run did, and what it found already done, left
    /// out or refused; a rerun that had nothing to do says so instead of counting old work as new.
    static func summary(_ totals: ManifestTotals, pictures: Int, videos: Int, hidden: Int) -> String {
        var parts: [String]
        if pictures + videos == 0, totals.skipped > 0, totals.refused + totals.failed == 0 {
            parts = ["nothing to do, \(totals.skipped) input(s) already done with these settings (their outputs unchanged; --force redoes them)"]
        } else {
            parts = ["\(pictures) picture(s), \(totals.faces) face(s) masked, \(videos) video(s), \(totals.skipped) already done, "
                     + "\(totals.refused) refused, \(totals.failed) failed"]
        }
        if totals.ignored > 0 { parts.append("\(totals.ignored) not a picture or video (left out, listed above)") }
        if hidden > 0 { parts.append("\(hidden) hidden file(s) or folder(s) left out") }
        return parts.joined(separator: "; ")
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
