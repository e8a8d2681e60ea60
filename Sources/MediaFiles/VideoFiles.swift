import BlazeImageIO
import BlazeVideoIO
import Foundation

/// Video sources by content and sinks by output name: a YUV4MPEG2 stream read and written
/// directly, anything else through FFmpeg (`BlazeVideoIO`). What a caller needs of the streams
/// is on the protocols (`VideoFrameSource.streamInfo`, `truncation`, `damage`;
/// `VideoFrameSink.warnings`).
public enum VideoFiles {
    /// The containers written, by extension (besides .y4m).
    public static let containerExtensions = VideoFileWriter.supportedExtensions

    /// The container a video goes into when its own is not written (AVI, MTS, 3GP, WMV, GIF...):
    /// "mp4", or "mkv" where MP4 cannot hold its audio as it is (PCM, WMA), since the audio is
    /// copied, not re-encoded. "mp4" for a file that cannot be opened (it is refused later).
    public static func folderContainer(forInput path: String) -> String {
        guard let reader = try? VideoFileReader(path: path) else { return "mp4" }
        return VideoFileWriter.canHoldAudio(of: reader, inContainer: "mp4") ? "mp4" : "mkv"
    }

    /// A source over `path` ("-": Y4M on stdin) of `kind` (`MediaKind.of`).
    public static func open(_ path: String, kind: MediaKind, options: VideoReadOptions = .init()) throws -> any VideoFrameSource {
        switch kind {
        case .y4m: return try Y4MFrameSource(path: path)
        default: return try VideoFileReader(path: path, options: options)
        }
    }

    /// Refuses an output name that says no video type written here, before anything is read.
    public static func checkOutput(_ path: String) throws(MediaFileError) {
        let ext = (path as NSString).pathExtension.lowercased()
        guard path == "-" || ext == "y4m" || containerExtensions.contains(ext) else {
            let types = ".y4m (or -), or " + containerExtensions.map { "." + $0 }.joined(separator: ", ")
            if ext.isEmpty {
                throw MediaFileError(.unknownOutputType, "\(path): the output's name says no video type; end it with \(types), "
                                     + "or give a folder (one that exists, or a name ending in /)")
            }
            throw MediaFileError(.unknownOutputType, "\(path): unknown output type .\(ext); use \(types)")
        }
    }

    /// The sink for `path`, by its extension: `.y4m` or "-" (Y4M), or a container FFmpeg
    /// writes. `source` (one `open` made) gives the frame size and rate, and from a file the
    /// streams to copy (audio, subtitles, as `options` says).
    public static func sink(_ path: String, for source: any VideoFrameSource, options: VideoWriteOptions) throws -> any VideoFrameSink {
        try checkOutput(path)
        if path == "-" || (path as NSString).pathExtension.lowercased() == "y4m" {
            return try Y4MFrameSink(path: path, header: y4mHeader(for: source))
        }
        if let video = source as? VideoFileReader { return try VideoFileWriter(path: path, copying: video, options: options) }
        guard let info = source.streamInfo else { throw MediaFileError(.unknownOutputType, "\(path): no video to write from") }
        var color = VideoColor.unspecified
        if info.fullRange { color.range = 2 }
        return try VideoFileWriter(path: path, width: info.width, height: info.height,
                                   timeBase: .init(numerator: Int32(info.frameRateDenominator), denominator: Int32(info.frameRateNumerator)),
                                   frameRate: .init(numerator: Int32(info.frameRateNumerator), denominator: Int32(info.frameRateDenominator)),
                                   color: color, options: options)
    }

    /// A Y4M header for `source`'s frames: a Y4M source's own (as C420jpeg when its frames come
    /// out as RGB), else C420jpeg at the stream's size, rate and range; the field order of either.
    public static func y4mHeader(for source: any VideoFrameSource) throws -> Y4MHeader {
        if let y4m = source as? Y4MFrameSource {
            var header = y4m.header
            if ![.c420jpeg, .c420paldv, .c420mpeg2, .c420, .mono].contains(header.colorSpace) {
                header = Y4MHeader(width: header.width, height: header.height, frameRateNumerator: header.frameRateNumerator,
                                   frameRateDenominator: header.frameRateDenominator)   // RGB frames, written as C420jpeg
                header.fieldOrder = y4m.header.fieldOrder
            }
            return header
        }
        guard let info = source.streamInfo else { throw MediaFileError(.unknownOutputType, "no Y4M header for this source") }
        var header = Y4MHeader(width: info.width, height: info.height, frameRateNumerator: info.frameRateNumerator,
                               frameRateDenominator: info.frameRateDenominator)
        header.fullRange = info.fullRange
        if let video = source as? VideoFileReader { header.fieldOrder = video.info.fieldOrder }
        return header
    }
}
