import InternalUtilities
import ArgumentParser
import BlazeFace
import BlazeImageIO
import FaceRedaction
import MediaFiles
import Foundation
import FileRedaction

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
            + (uprightOnly ? [("upright-only", "true")] : [])
        return (parts + centerfaceSettings).map { "\($0.0)=\($0.1)" }.joined(separator: " ")
    }

    /// The hidden CenterFace tuning options, where given (none by default, so that the settings of
    /// earlier manifests still match).
    private var centerfaceSettings: [(String, String)] {
        var out: [(String, String)] = noCenterface ? [("centerface", "off")] : []
        if let centerfaceMinScore { out.append(("centerface-min-score", "\(centerfaceMinScore)")) }
        if let centerfaceConfirmationScore { out.append(("centerface-confirmation-score", "\(centerfaceConfirmationScore)")) }
        if let centerfaceEvery { out.append(("centerface-every", "\(centerfaceEvery)")) }
        if let centerfacePrecision { out.append(("centerface-precision", centerfacePrecision)) }
        return out
    }

    /// The run over a folder or a list (`INPUT` is then the folder the listed paths are relative
    /// to): `RedactionBatch` with this command's redaction of one photo or video, its messages
    /// and progress.
    func redactBatch(_ redactor: FaceRedactor, pool: ThreadPool, replacement: ReplacementPicture?) throws {
        let run = RedactionBatch(input: input, output: output, listed: batch.inputList == nil ? nil : try batch.listedInputs(),
                                 shard: try batch.resolved(), manifest: manifest, force: force, settings: settingsString)
        let json = batch.progress == .json
        var bar: ProgressBar?   // made once the shard's inputs are known
        defer { bar?.clear() }
        let summary: RedactionBatch.Summary
        do {
            summary = try run.run(redact: { work in
                switch work {
                case let .photo(source, target):
                    return .init(faces: try redactPhoto(redactor, source, target).faces)
                case let .video(source, target, kind):
                    bar?.clear()
                    let (frames, faces, truncation, damage) = try redactVideo(try makeRedactor(pool, replacement: replacement), source, target, kind: kind)
                    return .init(faces: faces, frames: frames, truncated: truncation, damaged: damage)
                }
            }, events: { event in
                switch event {
                case let .starting(total):
                    bar = batch.progress == .bar && ProgressBar.wanted(count: total, disabled: noProgress) ? ProgressBar(total: total, unit: "files") : nil
                case let .settling(record):
                    guard [.refused, .failed, .ignored].contains(record.status), !json else { return }
                    bar?.clear()
                    let shown = record.input.hasPrefix("/") || record.input.hasPrefix("..") ? record.input : (input as NSString).appendingPathComponent(record.input)
                    let verb = switch record.status { case .refused: "refused"; case .ignored: "left out"; default: "failed (worth a retry)" }
                    printError("redact: \(verb) \(shown): \(record.reason ?? "")")
                case let .settled(record, index, total):
                    if json { printLine(record.line(index: index, of: total)) }
                    bar?.update(done: index)
                }
            }, shouldStop: StopSignals.check)
        } catch let failure as RedactionBatch.Failure {
            printError(failure.description)
            throw ExitCode(failure.exitStatus)
        }
        bar?.clear()
        if json {
            printLine(summary.totalsLine)
        } else {
            printLine("redact: shard \(run.shard): " + summary.sentence)
        }
        try BatchExit.finish(refused: summary.totals.refused, failed: summary.totals.failed)
    }
}
