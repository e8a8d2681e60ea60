import BlazeImageIO
import FaceRedaction
import MediaFiles

/// How a redacted photo is written.
public struct PhotoRedactionOptions: Sendable, Equatable {
    /// What of the EXIF block is kept: nothing by default (camera, dates and places identify
    /// people too); with `.keep(location:)` all of it, Orientation set to 1 (the pixels are
    /// written upright), and GPS only with `location`. The colour profile is always kept.
    public var metadata: MetadataPolicy
    /// JPEG quality (1...100); nil: the input JPEG's own, estimated from its tables, else 90.
    public var jpegQuality: Int?

    public init(metadata: MetadataPolicy = .strip, jpegQuality: Int? = nil) {
        (self.metadata, self.jpegQuality) = (metadata, jpegQuality)
    }
}

/// What `FaceRedactor.redactPhoto(at:to:options:policy:beforeWriting:)` did.
public struct RedactedPhoto: Sendable {
    /// The upright picture's size.
    public var width: Int, height: Int
    /// Every mask drawn (and those a policy kept), as a masks file records them.
    public var masks: [DrawnMask]
    /// What could not be kept, as sentences (a colour profile the encoder refused).
    public var warnings: [String]
    /// The faces masked.
    public var faces: Int { masks.filter { $0.reason == .detected }.count }

    public init(width: Int, height: Int, masks: [DrawnMask], warnings: [String] = []) {
        (self.width, self.height, self.masks, self.warnings) = (width, height, masks, warnings)
    }
}

extension FaceRedactor {
    /// Redacts the photo at `input` (PNG, JPEG, PPM, PGM or HEIC, told by its content) into
    /// `output`, in the format its name says (`ImageFormat.outputExtensions`): the picture
    /// upright, every face masked (`redactReportingMasks`, after `policy`), its alpha,
    /// grayness and colour profile kept, its EXIF block as `options.metadata` says. The output
    /// is written under a temporary name and renamed when complete. `beforeWriting` sees what
    /// was found before anything is written: throwing there writes nothing.
    @discardableResult
    public func redactPhoto(at input: String, to output: String, options: PhotoRedactionOptions = .init(), policy: MaskPolicy = .init(),
                            beforeWriting: (RedactedPhoto) throws -> Void = { _ in }) throws -> RedactedPhoto {
        try redactPhoto(at: input, to: output, options: options, policy: { _, _ in policy }, beforeWriting: beforeWriting)
    }

    /// `redactPhoto(at:to:options:policy:beforeWriting:)` with a policy made for the upright
    /// picture's size (regions given in pixels).
    @discardableResult
    public func redactPhoto(at input: String, to output: String, options: PhotoRedactionOptions = .init(),
                            policy: (_ width: Int, _ height: Int) throws -> MaskPolicy,
                            beforeWriting: (RedactedPhoto) throws -> Void = { _ in }) throws -> RedactedPhoto {
        let format = try Self.photoFormat(output, options)
        try PathIdentity.refuseOverwriting(input: input, with: output)
        var photo = try Pictures.readPhoto(contentsOf: input)
        let policy = try policy(photo.image.width, photo.image.height)
        let masks: [DrawnMask]
        do { masks = try redactReportingMasks(image: &photo.image, policy: policy) } catch {
            throw PhotoRedactionError("\(input): \(error.description)")
        }
        var result = RedactedPhoto(width: photo.image.width, height: photo.image.height, masks: masks, warnings: [])
        try beforeWriting(result)
        result.warnings = try ImageFile.write(photo, to: output, format: format, metadata: options.metadata, jpegQuality: options.jpegQuality)
        return result
    }

    /// Draws exactly `masks`, a masks file for one photo (`redactPhoto`'s, reviewed or not), on
    /// the photo at `input` with no search, and writes it to `output` as `redactPhoto` does: the
    /// same bytes every time. A file for another input (`MasksFile.mismatch(withInputAt:)`), for
    /// a picture of another size, or of more than one frame, throws a `PhotoRedactionError` of
    /// kind `.masksFile` and writes nothing.
    ///
    /// ```swift
    /// let reviewed = try MasksFile(data: Array(try Data(contentsOf: URL(fileURLWithPath: "party.masks.jsonl"))))
    /// try FaceRedactor.drawPhoto(masks: reviewed, at: "party.jpg", to: "party-redacted.jpg")
    /// ```
    @discardableResult
    public static func drawPhoto(masks: MasksFile, at input: String, to output: String, options: PhotoRedactionOptions = .init()) throws -> RedactedPhoto {
        let format = try photoFormat(output, options)
        try PathIdentity.refuseOverwriting(input: input, with: output)
        if input != "-", let mismatch = masks.mismatch(withInputAt: input) {
            throw PhotoRedactionError("the masks file \(mismatch), not \(input)", kind: .masksFile)
        }
        var photo = try Pictures.readPhoto(contentsOf: input)
        let (width, height) = (photo.image.width, photo.image.height)
        guard masks.frames.count == 1, masks.width == width, masks.height == height else {
            throw PhotoRedactionError("the masks file is for a \(masks.width)x\(masks.height) picture of \(masks.frames.count) frame(s), "
                                      + "\(input) is a \(width)x\(height) photo", kind: .masksFile)
        }
        FaceMask.apply(to: &photo.image, masks: masks.frames[0], options: masks.options)
        let warnings = try ImageFile.write(photo, to: output, format: format, metadata: options.metadata, jpegQuality: options.jpegQuality)
        return RedactedPhoto(width: width, height: height, masks: masks.frames[0], warnings: warnings)
    }

    /// The format `output`'s name says, refused before anything is read when there is none or
    /// it cannot hold the metadata to keep.
    private static func photoFormat(_ output: String, _ options: PhotoRedactionOptions) throws(MediaFileError) -> ImageFormat {
        guard let format = ImageFormat.forOutput(path: output) else {
            throw MediaFileError(.unknownOutputType, "\(output): unknown photo type; use " + ImageFormat.outputExtensions.joined(separator: ", "))
        }
        if case .keep = options.metadata, format == .pnm {
            throw MediaFileError(.unknownOutputType, "\(output): PPM holds no metadata; keeping it needs JPEG or PNG output")
        }
        return format
    }
}

/// A photo redaction that failed: its search (naming the photo), or a masks file that does not
/// fit it (`drawPhoto`).
public struct PhotoRedactionError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The search for faces failed.
        case search
        /// The masks file drawn is for another input, or another picture.
        case masksFile
    }
    public var kind: Kind
    public var description: String
    public init(_ description: String, kind: Kind = .search) { (self.description, self.kind) = (description, kind) }
}
