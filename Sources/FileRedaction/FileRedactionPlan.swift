import BlazeImageIO
import FaceRedaction
import Foundation
import MediaFiles

/// A masks file to write beside a redaction (`redact --masks FILE`): where, and what its header
/// records besides the input and the mask options (`MasksFileWriter`).
public struct MasksFileRequest: Sendable, Equatable {
    public var path: String
    /// The SHA-256 of the picture pasted over faces (`RedactionOptions.Mode.image`), if any.
    public var replacementSHA256: String?
    /// The settings that found the masks, as manifests record them.
    public var settings: String

    public init(path: String, replacementSHA256: String? = nil, settings: String = "") {
        (self.path, self.replacementSHA256, self.settings) = (path, replacementSHA256, settings)
    }

    /// The writer of this file, started with its header for `input` and frames of `width` x `height`.
    func writer(input: String, width: Int, height: Int, options: RedactionOptions) throws(MasksFileWriteError) -> MasksFileWriter {
        try MasksFileWriter(path: path, input: input, width: width, height: height, options: options,
                            replacementSHA256: replacementSHA256, settings: settings)
    }
}

extension FaceRedactor {
    /// `redactPhoto(at:to:options:policy:beforeWriting:)` that also writes the masks drawn to
    /// `masksFile` (nil: none), renamed into place once the photo is written; a failure leaves neither.
    ///
    /// ```swift
    /// try redactor.redactPhoto(at: "party.jpg", to: "party-redacted.jpg", writingMasks: MasksFileRequest(path: "party.masks.jsonl"))
    /// ```
    @discardableResult
    public func redactPhoto(at input: String, to output: String, options: PhotoRedactionOptions = .init(),
                            policy: (_ width: Int, _ height: Int) throws -> MaskPolicy = { _, _ in MaskPolicy() },
                            writingMasks masksFile: MasksFileRequest?, beforeWriting: (RedactedPhoto) throws -> Void = { _ in }) throws -> RedactedPhoto {
        var writer: MasksFileWriter?
        defer { writer?.discard() }
        let redacted = try redactPhoto(at: input, to: output, options: options, policy: policy) { found in
            writer = try masksFile?.writer(input: input, width: found.width, height: found.height, options: self.options.mask)
            writer?.frame(index: 0, timestampInMilliseconds: nil, masks: found.masks)
            try beforeWriting(found)
        }
        try writer?.commit()
        return redacted
    }

    /// `redactVideo(at:to:kind:options:policy:starting:progress:masks:shouldStop:)` that also
    /// writes every frame's masks to `masksFile` (nil: none), renamed into place once the video is
    /// written; a failure leaves neither.
    @discardableResult
    public func redactVideo(at input: String, to output: String, kind: MediaKind? = nil, options: VideoRedactionOptions = .init(),
                            policy: (_ width: Int, _ height: Int) throws -> MaskPolicy = { _, _ in MaskPolicy() },
                            writingMasks masksFile: MasksFileRequest?, starting: (VideoRedactionStart) throws -> Void = { _ in },
                            progress: ((Int) -> Void)? = nil, masks: ((RecordingRedactor.MaskedFrame) -> Void)? = nil,
                            shouldStop: () throws -> Void = {}) throws -> RedactedVideo {
        var writer: MasksFileWriter?
        defer { writer?.discard() }
        let done = try redactVideo(at: input, to: output, kind: kind, options: options, policy: policy, starting: { start in
            try starting(start)
            writer = try masksFile?.writer(input: input, width: start.width ?? 0, height: start.height ?? 0, options: self.options.mask)
        }, progress: progress, masks: masksFile == nil && masks == nil ? nil : { frame in
            writer?.frame(index: frame.index, timestampInMilliseconds: frame.timestampInMilliseconds, masks: frame.masks)
            masks?(frame)
        }, shouldStop: shouldStop)
        try writer?.commit()
        return done
    }
}

/// One photo or video file redacted into one output, as `blazeface redact INPUT OUTPUT` plans
/// it: the output named (a file, or the input's name in a folder), checked and made ready
/// before anything is read. Then `FaceRedactor.redactPhoto` or `redactVideo` with `writingMasks`.
///
/// ```swift
/// let plan = try FileRedactionPlan.prepare(input: "clip.mov", kind: try MediaKind.of("clip.mov"), output: "out/",
///                                          masks: MasksFileRequest(path: "clip.masks.jsonl"))
/// try redactor.redactVideo(at: plan.input, to: plan.output, kind: plan.kind, writingMasks: plan.masks)
/// ```
public struct FileRedactionPlan: Sendable {
    public var input: String
    /// The input's kind: `.photo`, `.video` or `.y4m`.
    public var kind: MediaKind
    /// Where the redacted file goes ("-": stdout).
    public var output: String
    /// The masks file to write, if any.
    public var masks: MasksFileRequest?

    /// Refuses masks options that a folder cannot take (one masks file is one photo or video),
    /// or writing and drawing a masks file at once; asked before the file drawn is read.
    public static func checkMasksOptions(kind: MediaKind, writingMasks: Bool, drawingMasks: Bool) throws(FileRedactionPlanError) {
        if writingMasks, kind == .folder { throw .init(.masksOptions, "--masks takes one photo or video, not a folder") }
        if drawingMasks, kind == .folder { throw .init(.masksOptions, "--apply-masks takes one photo or video, not a folder") }
        if drawingMasks, writingMasks { throw .init(.masksOptions, "--apply-masks draws a masks file; --masks writes one: give one of them") }
    }

    /// Refuses, for a folder input, an output that names a file type and is not there yet: a
    /// file the user meant, where a folder is needed.
    public static func checkFolderOutput(_ output: String) throws(FileRedactionPlanError) {
        let ext = (output as NSString).pathExtension.lowercased()
        if !FileManager.default.fileExists(atPath: output), !output.hasSuffix("/"),
           VideoFiles.containerExtensions.contains(ext) || ext == "y4m" || ImageFormat.forOutput(path: output) != nil {
            throw .init(.output, "\(output): INPUT is a folder, so OUTPUT must be a folder too, not a .\(ext) file")
        }
    }

    /// The plan for `input` (of `kind`, not a folder) into `output`, a file or a folder (one that
    /// exists, or a name ending in /; `BatchInputs.target`). Refuses an output (or masks file)
    /// that is the input or the replacement picture, or an output name of no type written here;
    /// then makes the folders above the outputs and removes a killed run's temporaries.
    public static func prepare(input: String, kind: MediaKind, output: String, masks: MasksFileRequest? = nil,
                               replacementPath: String? = nil) throws(FileRedactionPlanError) -> FileRedactionPlan {
        if let masks { try refuseOverwriting(input: input, with: masks.path) }
        let target = BatchInputs.target(for: input, in: output, kind: kind)
        try refuseOverwriting(input: input, with: target)
        if let replacementPath { try refuseOverwriting(input: replacementPath, with: target) }
        if kind == .photo {
            guard ImageFormat.forOutput(path: target) != nil else {
                throw .init(.output, "\(target): unknown photo type; use " + ImageFormat.outputExtensions.joined(separator: ", ")
                                     + ", or give a folder (one that exists, or a name ending in /)")
            }
        } else {
            do { try VideoFiles.checkOutput(target) } catch { throw .init(.output, error.description) }
        }
        try makeParentFolders(of: target)
        if let masks {
            guard PathIdentity.resolved(masks.path) != PathIdentity.resolved(target) else { throw .init(.output, "--masks \(masks.path) is the output") }
            try makeParentFolders(of: masks.path)
            BatchOutputs.removeStaleTemporaries(of: masks.path)
        }
        if target != "-" { BatchOutputs.removeStaleTemporaries(of: target) }
        return FileRedactionPlan(input: input, kind: kind, output: target, masks: masks)
    }

    private static func refuseOverwriting(input: String, with output: String) throws(FileRedactionPlanError) {
        do { try PathIdentity.refuseOverwriting(input: input, with: output) } catch { throw .init(.output, error.description) }
    }

    /// Makes the folders above `output` that do not exist yet (as a folder run makes its output folder).
    private static func makeParentFolders(of output: String) throws(FileRedactionPlanError) {
        guard output != "-" else { return }
        let parent = (output as NSString).deletingLastPathComponent
        guard !parent.isEmpty, !FileManager.default.fileExists(atPath: parent) else { return }
        do { try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true) } catch {
            throw .init(.folder, "\(output): cannot create its folder \(parent): \((error as NSError).localizedDescription)")
        }
    }
}

/// A single-file redaction that cannot go ahead, said as `blazeface redact` says it.
public struct FileRedactionPlanError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The masks options do not fit the input (a folder) or each other.
        case masksOptions
        /// An output that is an input, the masks file that is the output, or a name of no type written here.
        case output
        /// A folder above an output that cannot be made.
        case folder
    }
    public var kind: Kind
    public var description: String
    public init(_ kind: Kind, _ description: String) { (self.kind, self.description) = (kind, description) }
}
