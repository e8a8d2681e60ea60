@_exported import BlazeImage
// The C glue's headers include FFmpeg's, but only a Swift import of the CFFmpeg module links
// its libraries (the module map's `link` lines); nothing of it is used here.
internal import CFFmpeg
import CFFmpegSupport

/// A video file that cannot be read or written. Each description is one plain sentence that
/// names the file (and, for decoding failures, the frame), FFmpeg's own words in it.
public enum VideoError: Error, Equatable, CustomStringConvertible {
    /// The file cannot be opened, read, written, synced or moved into place; the system's reason.
    case io(path: String, reason: String)
    /// FFmpeg does not recognise the content as a video it can decode; why.
    case notVideo(path: String, reason: String)
    /// The pictures are larger than the reader's limits: refused before any is decoded.
    case tooLarge(path: String, width: Int, height: Int, maxSide: Int, maxPixels: Int)
    /// The container could not be read past some point, or a packet did not decode; `frame` is
    /// the index of the frame that was being read.
    case decode(path: String, frame: Int, reason: String)
    /// The file ends before the frames its container lists (a cut or unfinished copy).
    case truncated(path: String, reason: String)
    /// The output's extension names no container the writer makes.
    case unsupportedContainer(path: String, extension: String)
    /// One of the input's streams that the output's container cannot hold.
    case streamNotSupported(path: String, stream: Int, kind: String, codec: String, container: String)
    /// The encoder is missing, cannot be opened or refused a frame.
    case encode(path: String, reason: String)
    /// The muxer could not write the output.
    case write(path: String, reason: String)
    /// A call with bad arguments or out of order; what.
    case invalidArgument(String)

    public var description: String {
        switch self {
        case let .io(path, reason): "\(path): \(reason)"
        case let .notVideo(path, reason) where reason.hasPrefix("moov atom not found"):
            "\(path): moov atom not found (an MP4 or MOV file whose recording never finished, or a cut copy)"
        case let .notVideo(path, reason): "\(path): not a video FFmpeg can read (\(reason))"
        case let .tooLarge(path, width, height, maxSide, maxPixels):
            "\(path): \(width)x\(height) pictures are over the limit (each side at most \(maxSide), at most \(maxPixels) pixels)"
        case let .decode(path, frame, reason): "\(path): frame \(frame): \(reason)"
        case let .truncated(path, reason): "\(path): truncated: \(reason)"
        case let .unsupportedContainer(path, ext):
            "\(path): cannot write \(ext.isEmpty ? "files without an extension" : ".\(ext) files"); "
                + "name the output .mp4, .m4v, .mov, .mkv or .webm"
        case let .streamNotSupported(path, stream, kind, codec, container):
            "\(path): the input's \(kind) stream \(stream) (\(codec)) cannot go into a \(container) file; "
                + "write .mkv instead, or leave the \(kind) out"
        case let .encode(path, reason): "\(path): \(reason)"
        case let .write(path, reason): "\(path): \(reason)"
        case let .invalidArgument(what): what
        }
    }
}

extension BFVError {
    /// av_strerror's sentence, with the first error FFmpeg logged in parentheses when it adds
    /// something ("Invalid data found when processing input (stream 0, offset 0xb1d5: partial file)").
    var reason: String {
        let (message, detail) = (cString(self.message), cString(self.detail))
        if detail.isEmpty || detail == message { return message }
        if message.isEmpty { return detail }
        return "\(message) (\(detail))"
    }

    /// The log's error alone when there is one (on open it is the precise reason), else the message.
    var specificReason: String {
        let detail = cString(self.detail)
        return detail.isEmpty ? cString(self.message) : detail
    }
}

/// A C string out of a fixed-size C array (which Swift imports as a tuple).
func cString<T>(_ tuple: T) -> String {
    withUnsafeBytes(of: tuple) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
}
