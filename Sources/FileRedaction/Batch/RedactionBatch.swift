import InternalUtilities
import Foundation
import MediaFiles

/// One shard of a folder (or of a list of paths under it) redacted into an output folder: each
/// input to the same relative path (a photo in a format not written, as .jpg), each recorded in
/// the shard's manifest as soon as it is settled, so that a killed run resumes and a rerun
/// redoes only what its manifests do not vouch for (Docs/clusters.md). The redaction of one
/// input is the caller's (`run(redact:events:shouldStop:)`): `blazeface redact` is one caller.
public struct RedactionBatch: Sendable {
    /// The input folder (the root the listed paths are relative to).
    public var input: String
    /// The output folder (made if missing).
    public var output: String
    /// An input list's lines (paths relative to `input`, or absolute under it); nil: every file
    /// of `input`, hidden ones and the output folder left out.
    public var listed: [String]?
    public var shard: Shard
    /// The shard's manifest; nil: OUTPUT/.blazeface/manifest-I-of-N.jsonl.
    public var manifest: String?
    /// Redo every input, even those a manifest records as done.
    public var force: Bool
    /// The settings that shape the outputs' bytes: an output is reused only if they match.
    public var settings: String
    /// The version that makes the outputs: an output is reused only if it matches.
    public var version: String

    public init(input: String, output: String, listed: [String]? = nil, shard: Shard = .whole, manifest: String? = nil, force: Bool = false,
                settings: String, version: String = ToolVersion.string) {
        (self.input, self.output, self.listed, self.shard, self.manifest) = (input, output, listed, shard, manifest)
        (self.force, self.settings, self.version) = (force, settings, version)
    }

    /// The manifest this run writes.
    public var manifestPath: String { manifest ?? (output as NSString).appendingPathComponent(".blazeface/" + shard.manifestName) }

    /// One input to redact: a photo into `target`, or a video (`kind`: Y4M or a container).
    public enum Work: Sendable {
        case photo(source: String, target: String)
        case video(source: String, target: String, kind: MediaKind)
    }

    /// What redacting one input made: the faces masked, and for a video its frames and what a
    /// kept truncation or skipped damage cost.
    public struct Outcome: Sendable {
        public var faces: Int
        public var frames: Int?
        public var truncated: String?
        public var damaged: String?
        public init(faces: Int, frames: Int? = nil, truncated: String? = nil, damaged: String? = nil) {
            (self.faces, self.frames, self.truncated, self.damaged) = (faces, frames, truncated, damaged)
        }
    }

    /// What a run reports as it goes: `.starting` once the shard's inputs are known and the
    /// manifest is held, `.settling` before an input's record is written (a refused, failed or
    /// left-out input's reason is shown then), `.settled` after, with its place.
    public enum Event: Sendable {
        case starting(inputs: Int)
        case settling(ManifestRecord)
        case settled(ManifestRecord, index: Int, of: Int)
    }

    /// What a run did: its totals, the pictures and videos it redacted itself, the hidden files
    /// left out, and the totals record it appended to the manifest.
    public struct Summary: Sendable {
        public var totals: ManifestTotals
        public var pictures: Int, videos: Int, hidden: Int
        public var totalsLine: String
        /// The exit status a batch command ends with (`BatchExit`).
        public var exitStatus: Int32 { BatchExit.code(refused: totals.refused, failed: totals.failed) }

        /// The closing sentence: what this run did, and what it found already done, left out or
        /// refused; a rerun that had nothing to do says so instead of counting old work as new.
        public var sentence: String {
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
    }

    /// The run could not start or record: the output or manifest folder cannot be made, the
    /// shard is held by another process, the manifest cannot be written. `exitStatus`: 73 when
    /// a retry cannot help (read-only, no permission), 75 when it may.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var description: String
        public var exitStatus: Int32
    }

    /// Runs the shard: every input's record in the manifest, then the totals record. `redact`
    /// redacts one input (the output folders above its target exist, a killed run's temporary
    /// files of it are removed); an error it throws settles the input as refused (bad input) or
    /// failed (`RetryableError`, or a message that names an I/O failure: worth a retry), except
    /// a `BatchStop`, which ends the run with no record for that input. `shouldStop` is asked
    /// before each input (a signal: throw a `BatchStop`).
    public func run(redact: (Work) throws -> Outcome, events: (Event) -> Void = { _ in },
                    shouldStop: () throws -> Void = {}) throws -> Summary {
        var keys: [String] = []
        var refusedKeys: [(String, String)] = []   // listed paths outside INPUT
        var hidden = 0   // hidden files and folders a walk left out
        // Inputs and outputs compared as files: resolved paths (links followed), devices and inodes.
        let rootReal = PathIdentity.resolved(input), outReal = PathIdentity.resolved(output)
        let outputInsideInput = outReal != rootReal && PathIdentity.isInside(outReal, rootReal)
        if let listed {
            var seen = Set<String>()
            for line in listed {
                if let key = BatchInputs.key(listed: line, root: input) {
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
            (keys, refusedKeys, hidden) = BatchInputs.walk(input, excluding: output)
        }
        // Every input's identity, and every output, planned from the whole list before sharding.
        let inputIDs = Set(keys.compactMap { PathIdentity.fileID((input as NSString).appendingPathComponent($0)) })
        let plan = BatchInputs.planOutputs(keys) { VideoFiles.folderContainer(forInput: (input as NSString).appendingPathComponent($0)) }
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
        let manifestPath = manifestPath
        let writer: ManifestWriter, lock: ManifestLock
        do {
            try BatchOutputs.makeFolders(output)
            try BatchOutputs.makeFolders((manifestPath as NSString).deletingLastPathComponent)
            lock = try ManifestLock(manifest: manifestPath)
            writer = try ManifestWriter(path: manifestPath)
        } catch let error as CannotCreate {
            // A read-only file system or a folder without permission: a retry cannot help (73).
            throw Failure(description: "\(error)", exitStatus: error.retryHelps ? BatchExit.retry : BatchExit.cannotCreate)
        } catch let error as ManifestLockError {
            if case let .cannotOpen(_, code) = error, !CannotCreate.retryHelps(code) {
                throw Failure(description: "\(error)", exitStatus: BatchExit.cannotCreate)
            }
            throw Failure(description: "\(error)", exitStatus: BatchExit.retry)
        } catch {
            throw Failure(description: "\(error)", exitStatus: BatchExit.retry)
        }
        defer { withExtendedLifetime(lock) {} }
        let trusted = force ? [:] : Manifest.trustedRecords(manifestPath)
        let shardName = shard.description
        let total = mine.count + refusedHere.count
        var summary = Summary(totals: ManifestTotals(), pictures: 0, videos: 0, hidden: hidden, totalsLine: "")
        events(.starting(inputs: total))
        func settle(_ record: ManifestRecord, _ n: Int) throws {
            summary.totals.add(record)
            events(.settling(record))
            do { try writer.append(record.line()) } catch { throw Failure(description: "\(error)", exitStatus: BatchExit.retry) }
            events(.settled(record, index: n, of: total))
        }
        var n = 0
        for (line, reason) in refusedHere {
            n += 1
            try settle(ManifestRecord(input: line, size: nil, sha256: nil, output: nil, status: .refused, reason: reason, seconds: 0,
                                      shard: shardName, settings: settings, version: version), n)
        }
        for key in mine {
            try shouldStop()
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
                               frames: frames, seconds: seconds(), shard: shardName, settings: settings, version: version)
            }
            let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
            guard let size else {
                try settle(record(.refused, size: nil, sha: nil, reason: "no such file"), n)
                continue
            }
            let sha = SHA256.hexDigest(ofFile: path)
            if let old = trusted[key], old.size == size, old.sha256 != nil, old.sha256 == sha, old.settings == settings,
               old.version == version, let out = old.output,
               BatchOutputs.outputMatches(old, (output as NSString).appendingPathComponent(out)) {
                var skipped = record(.skipped, size: size, sha: sha, output: out, faces: old.faces, frames: old.frames)
                (skipped.outputSize, skipped.outputSHA256, skipped.truncated) = (old.outputSize, old.outputSHA256, old.truncated)
                skipped.damaged = old.damaged
                try settle(skipped, n)
                continue
            }
            do {
                guard sha != nil else { throw BatchInputError("\(path): cannot be read (permission denied?)") }
                let kind = try MediaKind.of(path)
                if kind == .folder { throw BatchInputError("\(path): a folder, not a file") }
                let outputKey = BatchInputs.outputKey(key, kind: kind, planned: plan[key])
                if let unsafe = unsafeTarget(outputKey) { throw BatchInputError("\(unsafe): refused, the input is never overwritten") }
                let target = (output as NSString).appendingPathComponent(outputKey)
                do { try BatchOutputs.makeFolders((target as NSString).deletingLastPathComponent) } catch {
                    if error.retryHelps { throw RetryableError("\(target): \(error)") }
                    throw BatchInputError("\(target): \(error)")
                }
                BatchOutputs.removeStaleTemporaries(of: target)
                if kind == .photo {
                    let made = try redact(.photo(source: path, target: target))
                    summary.pictures += 1
                    var done = record(.done, size: size, sha: sha, output: outputKey, faces: made.faces)
                    (done.outputSize, done.outputSHA256) = BatchOutputs.fingerprint(target)
                    try settle(done, n)
                } else {
                    let made = try redact(.video(source: path, target: target, kind: kind))
                    summary.videos += 1
                    var done = record(.done, size: size, sha: sha, output: outputKey, faces: made.faces, frames: made.frames)
                    (done.truncated, done.damaged) = (made.truncated, made.damaged)
                    (done.outputSize, done.outputSHA256) = BatchOutputs.fingerprint(target)
                    try settle(done, n)
                }
            } catch let error as BatchStop {
                throw error   // no record: the input is not settled, a rerun does it
            } catch let error as Failure {
                throw error
            } catch let error as MediaFileError where error.kind == .notMedia && listed == nil {
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
        summary.totalsLine = summary.totals.line(strings: [("shard", shardName), ("settings", settings), ("version", version)])
        try? writer.append(summary.totalsLine)
        return summary
    }

    /// An error's message without the input's path in front (the record names the input).
    private static func reason(_ error: Error, _ path: String) -> String {
        let message = "\(error)"
        for prefix in [path + ": ", "Error: " + path + ": "] where message.hasPrefix(prefix) { return String(message.dropFirst(prefix.count)) }
        return message
    }
}

/// An error that ends a batch run instead of settling the input being redacted (a signal: the
/// input gets no record, and a rerun does it).
public protocol BatchStop: Error {}

/// Why one input of a batch is refused, as a sentence naming it.
public struct BatchInputError: Error, Sendable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
