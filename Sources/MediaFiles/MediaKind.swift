import BlazeImageIO
import BlazeVideoIO
import Foundation

/// What a path holds, told by its first bytes (never by its name).
public enum MediaKind: Sendable, Equatable {
    /// A folder (its files are taken one by one, each by the same rule).
    case folder
    /// A photo: PNG, JPEG, PPM/PGM, HEIF (HEIC, AVIF), WebP, TIFF or BMP.
    case photo
    /// A YUV4MPEG2 stream (also "-": a pipe from `ffmpeg -f yuv4mpegpipe`).
    case y4m
    /// A video container FFmpeg reads (MP4, MOV, MKV, WebM, AVI, MPEG-TS, ...).
    case video

    /// What `path` holds; an error that says why when it is missing, unreadable, damaged or
    /// no media at all (`MediaFileError.Kind.notMedia`: neither is nor claims to be media).
    public static func of(_ path: String) throws(MediaFileError) -> MediaKind {
        if path == "-" { return .y4m }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw MediaFileError(.missing, "\(path): no such file or folder")
        }
        if isFolder.boolValue { return .folder }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw MediaFileError(.unreadable, "\(path): cannot be read (permission denied?)")
        }
        let head = [UInt8]((try? handle.read(upToCount: 64)) ?? Data())
        try? handle.close()
        if ImageFormat(sniffing: head) != nil { return .photo }
        // Before FFmpeg's probe: a CR3 is an ISO BMFF file whose first track is a JPEG preview.
        let ext = (path as NSString).pathExtension.lowercased()
        if rawExtensions.contains(ext) {
            throw MediaFileError(.damaged, "\(path): a camera raw file (.\(ext)), not read here: export the photo as JPEG or TIFF first")
        }
        if head.starts(with: Array("YUV4MPEG2".utf8)) { return .y4m }
        if VideoFileReader.probe(path: path) { return .video }
        if let cause = VideoFileReader.unreadableCause(path: path) { throw MediaFileError(.damaged, "\(path): \(cause)") }
        let message = "\(path): not a picture (PNG, JPEG, PPM, PGM, HEIC, AVIF, WebP, TIFF, BMP) or a video FFmpeg can read"
        throw MediaFileError(mediaExtensions.contains(ext) ? .damaged : .notMedia, message)
    }

    /// Names that say video (a folder run leaves them out of its photos' output names).
    public static let videoExtensions: Set<String> = ["mp4", "m4v", "mov", "mkv", "webm", "y4m", "avi", "ts", "mts", "m2ts", "3gp",
                                                      "mpg", "mpeg", "wmv", "flv", "ogv", "gif"]

    /// Names that say picture or video: a file named so that cannot be read is a damaged input,
    /// never a stray non-media file.
    public static let mediaExtensions: Set<String> = videoExtensions.union(
        ["png", "jpg", "jpeg", "jpe", "jfif", "ppm", "pgm", "pnm", "heic", "heif", "hif", "avif", "webp", "tif", "tiff", "bmp", "dib"])
        .union(rawExtensions)

    /// Camera raw photos' names (Canon, Nikon, Sony, Fujifilm, Olympus, Panasonic, Pentax...):
    /// refused by name with what to do, since most are TIFF only around a preview, and the rest
    /// no picture format read here. (A DNG, CR2, NEF or ARW is also told by its bytes.)
    public static let rawExtensions: Set<String> = ["dng", "cr2", "cr3", "crw", "nef", "nrw", "arw", "srf", "sr2", "orf", "rw2",
                                                    "raf", "pef", "srw", "x3f", "3fr", "erf", "kdc", "mos", "mrw", "iiq", "rwl"]
}

/// Why a path cannot be opened as media, or an output name written: one sentence naming it.
public struct MediaFileError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Nothing at the path.
        case missing
        /// There, but not readable by this process.
        case unreadable
        /// Media by its name or its bytes, but damaged or cut short, or in a form not read here
        /// (a camera raw file).
        case damaged
        /// Neither is nor claims to be a picture or a video (notes, a sidecar): a folder run
        /// leaves such a file out instead of refusing it.
        case notMedia
        /// An output name that says no type written here.
        case unknownOutputType
        /// An output that is the input itself (by any name): the input is never overwritten.
        case outputIsInput
    }

    public var kind: Kind
    public var description: String

    public init(_ kind: Kind, _ description: String) { (self.kind, self.description) = (kind, description) }
}
