import BlazeImage
import BlazeImageIO
import FaceRedaction
import Foundation
import InternalUtilities
import MediaFiles

extension MasksFile {
    /// Why these masks are not for the file at `path`, or nil when they are. A masks file names
    /// its input by size and SHA-256 (one written from stdin names neither, and fits any input):
    /// masks drawn on another file would leave its faces visible, so `FaceRedactor.drawPhoto` and
    /// `drawVideo` refuse such a file with this reason, before anything is written.
    ///
    /// ```swift
    /// if let reason = reviewed.mismatch(withInputAt: "party.mp4") { print("party.masks.jsonl \(reason), not party.mp4") }
    /// ```
    public func mismatch(withInputAt path: String) -> String? {
        guard let expected = inputSize else { return nil }
        let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
        guard expected != size || inputSHA256.map({ $0 != SHA256.hexDigest(ofFile: path) }) == true else { return nil }
        return "is for another input (\(expected) bytes, SHA-256 \(inputSHA256 ?? "?"))"
    }

    /// The masks file at `path` (what `redact --masks` writes, reviewed or not), ready to draw.
    /// A file drawn with a picture (mode image) names it by SHA-256 and takes `replacement`, which
    /// must be that picture; without one it is refused, unless `requiringPicture` is false (a
    /// review page shows such masks black). Which input it fits is checked where it is drawn
    /// (`drawPhoto`, `drawVideo`) or by `mismatch(withInputAt:)`.
    ///
    /// ```swift
    /// let reviewed = try MasksFile.read(at: "party.masks.jsonl")
    /// try FaceRedactor.drawPhoto(masks: reviewed, at: "party.jpg", to: "party-redacted.jpg")
    /// ```
    public static func read(at path: String, replacement: ReplacementPicture? = nil,
                            requiringPicture: Bool = true) throws(MasksFileReadError) -> MasksFile {
        var file: MasksFile
        do { file = try MasksFile(data: try ImageFile.contents(of: path)) } catch {
            throw MasksFileReadError(.unreadable, "\(error)")
        }
        guard file.options.mode == .image else { return file }
        guard let replacement else {
            if !requiringPicture { return file }
            throw MasksFileReadError(.needsPicture, "pastes a picture over faces: give it (SHA-256 \(file.replacementSHA256 ?? "?"))",
                                     pictureSHA256: file.replacementSHA256)
        }
        guard replacement.sha256 == file.replacementSHA256 else {
            throw MasksFileReadError(.otherPicture, "was drawn with another picture (SHA-256 \(file.replacementSHA256 ?? "?")), "
                                     + "not the one given (\(replacement.sha256))", pictureSHA256: file.replacementSHA256)
        }
        file.options.replacement = replacement.picture
        return file
    }
}

/// A masks file that cannot be drawn (`MasksFile.read(at:replacement:requiringPicture:)`).
public struct MasksFileReadError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The file cannot be read, or is no masks file.
        case unreadable
        /// Its masks paste a picture over faces, and none was given.
        case needsPicture
        /// Its masks were drawn with another picture than the one given.
        case otherPicture
    }
    public var kind: Kind
    /// Why, as a phrase that follows the file's name.
    public var description: String
    /// The SHA-256 of the picture the file's masks were drawn with (mode image), as it names it.
    public var pictureSHA256: String?
    public init(_ kind: Kind, _ description: String, pictureSHA256: String? = nil) {
        (self.kind, self.description, self.pictureSHA256) = (kind, description, pictureSHA256)
    }
}

/// The picture pasted over faces (`RedactionOptions.Mode.image`, `redact --replace-with`),
/// upright, and its file's SHA-256, by which masks files and manifests name it.
public struct ReplacementPicture: Sendable {
    public var picture: RGBImage
    public var sha256: String

    public init(picture: RGBImage, sha256: String) { (self.picture, self.sha256) = (picture, sha256) }

    /// The picture at `path` (PNG, JPEG, HEIC, AVIF, WebP, TIFF or BMP, turned upright) and its file's SHA-256.
    public init(contentsOf path: String) throws(ImageError) {
        picture = try Pictures.read(contentsOf: path, upright: true)
        guard let digest = SHA256.hexDigest(ofFile: path) else { throw .io(path: path, reason: "cannot be read") }
        sha256 = digest
    }
}
