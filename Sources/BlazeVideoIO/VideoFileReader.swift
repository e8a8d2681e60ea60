import CFFmpegSupport

/// How a `VideoFileReader` decodes.
public struct VideoReadOptions: Sendable, Equatable {
    /// Turn each frame upright by its display rotation (phones record sideways and say so in
    /// the container); when false, frames come as stored and `VideoInfo.rotation` says how to turn them.
    public var appliesRotation: Bool
    /// Each side of the stored picture at most this many pixels (default 16384, `1 << 14`).
    public var maxSide: Int
    /// Width x height at most this (default `1 << 26`, 67 Mpx: 8K is 33 Mpx).
    public var maxPixels: Int
    /// Decoding threads; 0 lets FFmpeg choose (one per core).
    public var decoderThreads: Int
    /// A file that stops short ends the frames instead of failing, once at least one frame
    /// decoded: `VideoFileReader.truncation` then says what was missing. Off by default.
    public var acceptsTruncation: Bool
    /// A damaged packet or frame in the middle of the file (a read or decode failure that is not
    /// its end) is dropped and the reading goes on, as the `ffmpeg` tool does, instead of
    /// failing: `VideoFileReader.damage` then counts what was dropped. Off by default.
    public var skipsDamagedFrames: Bool
    /// Frames come as packed RGB (`VideoFrame` `.rgb`) converted from the decoder's pixels
    /// directly, with no trip through 4:2:0: a picture's colours (a WebP, TIFF or BMP read as a
    /// one-frame video) kept. Only without `appliesRotation`; off by default (frames as I420).
    public var deliversRGB: Bool

    public init(appliesRotation: Bool = true, maxSide: Int = 1 << 14, maxPixels: Int = 1 << 26, decoderThreads: Int = 0,
                acceptsTruncation: Bool = false, skipsDamagedFrames: Bool = false, deliversRGB: Bool = false) {
        (self.appliesRotation, self.maxSide, self.maxPixels, self.decoderThreads) = (appliesRotation, maxSide, maxPixels, decoderThreads)
        (self.acceptsTruncation, self.skipsDamagedFrames, self.deliversRGB) = (acceptsTruncation, skipsDamagedFrames, deliversRGB)
    }
}

/// A rational frame rate (`numerator / denominator` frames per second), as FFmpeg's `AVRational`.
public struct VideoFrameRate: Sendable, Equatable, Hashable {
    public var numerator: Int32, denominator: Int32
    public init(numerator: Int32, denominator: Int32) { (self.numerator, self.denominator) = (numerator, denominator) }
    /// Frames per second.
    public var value: Double { Double(numerator) / Double(denominator) }
}

/// Colour properties as FFmpeg numbers them (`AVCOL_RANGE_*`, `AVCOL_SPC_*`, `AVCOL_PRI_*`,
/// `AVCOL_TRC_*`, the ISO/IEC 23091-4 code points; 0 or 2 = unspecified): read from the input,
/// handed to the encoder unchanged so that players show the output as they showed the input.
public struct VideoColor: Sendable, Equatable, Hashable {
    /// 0 unspecified, 1 limited (MPEG), 2 full (JPEG).
    public var range: Int32
    /// Matrix coefficients: 1 BT.709, 5/6 BT.601, 9 BT.2020 NCL, 2 unspecified.
    public var space: Int32
    /// 1 BT.709, 5/6 BT.601, 9 BT.2020, 2 unspecified.
    public var primaries: Int32
    /// Transfer: 1 BT.709, 13 sRGB, 16 PQ, 18 HLG, 2 unspecified.
    public var transfer: Int32
    public init(range: Int32, space: Int32, primaries: Int32, transfer: Int32) {
        (self.range, self.space, self.primaries, self.transfer) = (range, space, primaries, transfer)
    }
    /// Nothing said: limited range, and players' defaults for the rest.
    public static let unspecified = VideoColor(range: 0, space: 2, primaries: 2, transfer: 2)
}

/// One stream of a video file other than the one decoded.
public struct VideoStream: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case video, audio, subtitle, data, attachment
        /// Cover art: a still picture FFmpeg presents as a one-frame video stream.
        case attachedPicture = "attached picture"
        case unknown
    }
    /// Its index among the file's streams.
    public var index: Int
    public var kind: Kind
    /// FFmpeg's codec name ("aac", "opus", "mov_text", "subrip", "none").
    public var codec: String
    /// Its `language` tag, if any.
    public var language: String?
}

/// What a reader learnt about its input when it opened it.
public struct VideoInfo: Sendable, Equatable {
    /// The demuxer's name ("mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm", "mpegts").
    public var container: String
    /// The video codec's name ("h264", "hevc", "vp9", "av1").
    public var codec: String
    /// The decoded stream's index among the file's streams.
    public var videoStreamIndex: Int
    /// The coded picture's size, before rotation.
    public var storedWidth: Int, storedHeight: Int
    /// The size of the frames the reader delivers: upright when it applies the rotation.
    public var width: Int, height: Int
    /// Clockwise degrees (0, 90, 180, 270) that turn the stored picture upright (the display matrix).
    public var rotation: Int
    /// Whether the reader turns frames by `rotation`.
    public var appliesRotation: Bool
    /// The video stream's time base: the unit of the frames' `presentationTime`.
    public var timeBase: VideoFrame.TimeBase
    /// The average frame rate, if the container says (for encoders' rate control).
    public var frameRate: VideoFrameRate?
    /// The video's duration in seconds, if known.
    public var duration: Double?
    /// Frames the container lists, or duration x rate rounded when it lists none.
    public var expectedFrameCount: Int?
    /// The decoder's pixel format ("yuv420p", "yuvj420p", "yuv420p10le", "nv12") and its bit depth.
    public var pixelFormat: String, bitDepth: Int
    /// The stream's colour properties, to be copied to an encoder.
    public var color: VideoColor
    /// The delivered frames are full-range YUV (`yuvj*` formats, JPEG range).
    public var fullRange: Bool
    /// The file's other streams (audio, subtitles, data, cover art, other video), in index order.
    public var otherStreams: [VideoStream]
    /// How the stream says its frames are scanned: interlaced (which field first) or progressive
    /// (also when unknown, or when the reader turns the frames). Each frame says it too.
    public var fieldOrder: VideoFrame.FieldOrder = .progressive
}

/// Reads any container and video codec the system's FFmpeg reads (MP4, MOV, MKV, WebM, AVI,
/// MPEG-TS; H.264, HEVC, VP9, AV1, MPEG-4, ProRes, MJPEG...) from its best video stream (never
/// cover art), one frame at a time, as packed 8-bit `.i420` `VideoFrame`s:
/// - yuv420p (and yuvj420p, as full range) is copied plane by plane; every other format (nv12,
///   4:2:2, 4:4:4, gray, RGB, and 10- or 12-bit formats, which come out 8-bit) goes through
///   libswscale to 8-bit yuv420p in the same range;
/// - each frame carries its stored presentation time (FFmpeg's best-effort timestamp) in the
///   stream's own time base, so a variable frame rate comes out exactly as stored; a frame
///   without one gets the previous one's plus its duration;
/// - frames are turned upright by the container's display rotation (see `VideoReadOptions`);
/// - a file that stops short is an error (`.truncated`), not a short video: a read or decode
///   error, fewer video packets than the container's index lists (an MP4 cut after its moov
///   box), FFmpeg's demuxer saying so ("File ended prematurely"), no frame at all, or frames
///   that fall short of the declared duration (under 90% of duration x rate frames, and frame
///   times spanning under 90% of it), unless `VideoReadOptions.acceptsTruncation`.
///
/// A `VideoFileWriter` created with a reader copies its audio and subtitle streams: their
/// packets go to the writer as `nextFrame` meets them in the file, so create the writer before
/// reading the first frame. Used from one thread at a time.
public final class VideoFileReader: VideoFrameSource, @unchecked Sendable {
    /// The path it reads ("-" for standard input, a name for bytes in memory): errors name it.
    public let path: String
    public let info: VideoInfo
    /// Frames delivered so far.
    public private(set) var framesRead = 0
    let handle: OpaquePointer
    private let frameSize: Int
    /// `.rgb` with `VideoReadOptions.deliversRGB` (and no rotation applied), else `.i420`.
    private let frameFormat: PixelFormat
    /// The path of the writer copying this reader's streams, for errors in copying.
    var outputPath: String?
    private let acceptsTruncation: Bool
    /// With `VideoReadOptions.acceptsTruncation`: what the file was missing when it ended short
    /// ("360 of about 600 frames decoded"), once `nextFrame` returned nil; nil for a whole file.
    public private(set) var truncation: String?

    /// Opens the file at `path` (`"-"`: standard input).
    public init(path: String, options: VideoReadOptions = .init()) throws(VideoError) {
        var info = BFVReaderInfo(), status = BFV_OK, error = BFVError()
        let handle = bfv_reader_open(path, options.appliesRotation ? 1 : 0, Self.limits(options), Int32(clamping: options.decoderThreads),
                                     &info, &status, &error)
        guard let handle else { throw Self.openError(status, error, path: path, options: options) }
        (self.path, self.handle, self.acceptsTruncation) = (path, handle, options.acceptsTruncation)
        self.info = Self.info(info, handle, applies: options.appliesRotation)
        bfv_reader_deliver_rgb(handle, options.deliversRGB && !options.appliesRotation ? 1 : 0)
        self.frameSize = bfv_reader_frame_size(handle)
        self.frameFormat = options.deliversRGB && !options.appliesRotation ? .rgb : .i420
        bfv_reader_skip_damaged(handle, options.skipsDamagedFrames ? 1 : 0)
    }

    /// Reads a video held in memory (a WebP picture, which FFmpeg's decoder reads as a one-frame
    /// video, tests and fuzzing); `name` stands for the path in errors.
    public init(bytes: [UInt8], name: String = "<memory>", options: VideoReadOptions = .init()) throws(VideoError) {
        var info = BFVReaderInfo(), status = BFV_OK, error = BFVError()
        let handle = bytes.withUnsafeBufferPointer { data in
            bfv_reader_open_memory(data.baseAddress, data.count, options.appliesRotation ? 1 : 0, Self.limits(options),
                                   Int32(clamping: options.decoderThreads), &info, &status, &error)
        }
        guard let handle else { throw Self.openError(status, error, path: name, options: options) }
        (self.path, self.handle, self.acceptsTruncation) = (name, handle, options.acceptsTruncation)
        self.info = Self.info(info, handle, applies: options.appliesRotation)
        bfv_reader_deliver_rgb(handle, options.deliversRGB && !options.appliesRotation ? 1 : 0)
        self.frameSize = bfv_reader_frame_size(handle)
        self.frameFormat = options.deliversRGB && !options.appliesRotation ? .rgb : .i420
        bfv_reader_skip_damaged(handle, options.skipsDamagedFrames ? 1 : 0)
    }

    /// With `VideoReadOptions.skipsDamagedFrames`: the damaged packets and frames dropped so
    /// far, and what FFmpeg said of the first; nil while none was.
    public var damage: (dropped: Int, first: String)? {
        var first = [CChar](repeating: 0, count: 256)
        let dropped = Int(bfv_reader_damaged(handle, &first, first.count))
        guard dropped > 0 else { return nil }
        return (dropped, String(decoding: first.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// `info`'s upright size, average frame rate (25 when the file does not say) and range.
    public var streamInfo: VideoStreamInfo? {
        let rate = info.frameRate ?? VideoFrameRate(numerator: 25, denominator: 1)
        return VideoStreamInfo(width: info.width, height: info.height, frameRateNumerator: Int(rate.numerator),
                               frameRateDenominator: Int(rate.denominator), fullRange: info.fullRange)
    }

    deinit { bfv_reader_close(handle) }

    /// Whether FFmpeg recognises the file's content (never its name) as a container with a
    /// decodable video stream: false for still pictures (PNG, JPEG), text and garbage.
    /// YUV4MPEG2 answers true.
    public static func probe(path: String) -> Bool { bfv_probe(path) != 0 }

    public var expectedFrameCount: Int? { info.expectedFrameCount }

    /// The next frame in presentation order, or nil after the last one.
    public func nextFrame() throws(VideoError) -> VideoFrame? {
        var pts: Int64 = 0, error = BFVError(), status = BFV_OK
        let bytes = [UInt8](unsafeUninitializedCapacity: frameSize) { buffer, count in
            status = bfv_reader_next_frame(handle, buffer.baseAddress, frameSize, &pts, &error)
            count = status == BFV_OK ? frameSize : 0
        }
        switch status {
        case BFV_OK: break
        case BFV_END: return nil
        case BFV_TRUNCATED where acceptsTruncation && framesRead > 0:
            truncation = error.reason
            return nil
        case BFV_TRUNCATED: throw .truncated(path: path, reason: error.reason)
        case BFV_WRITE: throw .write(path: outputPath ?? path, reason: error.reason)
        default: throw .decode(path: path, frame: framesRead, reason: error.reason)
        }
        framesRead += 1
        do {
            var frame = try VideoFrame(format: frameFormat, width: info.width, height: info.height, bytes: bytes, fullRange: info.fullRange,
                                       presentationTime: pts, timeBase: info.timeBase)
            frame.fieldOrder = VideoFrame.FieldOrder(code: bfv_reader_scan(handle))
            return frame
        } catch {
            throw .decode(path: path, frame: framesRead - 1, reason: error.description)
        }
    }

    /// A tag of the container (`stream` nil) or of one stream, if present.
    public func tag(_ key: String, stream: Int? = nil) -> String? {
        var value = [CChar](repeating: 0, count: 1024)
        bfv_reader_tag(handle, Int32(stream ?? -1), key, &value, value.count)
        let text = String(decoding: value.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? nil : text
    }

    private static func limits(_ options: VideoReadOptions) -> BFVLimits {
        BFVLimits(max_side: Int32(clamping: options.maxSide), max_pixels: Int64(clamping: options.maxPixels))
    }

    private static func openError(_ status: BFVStatus, _ error: BFVError, path: String, options: VideoReadOptions) -> VideoError {
        switch status {
        case BFV_IO: return .io(path: path, reason: error.specificReason)
        case BFV_TOO_LARGE:
            // The C side's message holds the size: "WxH pictures are over the limit (...)".
            let size = cString(error.message).prefix { $0 != " " }.split(separator: "x").compactMap { Int($0) }
            return .tooLarge(path: path, width: size.first ?? 0, height: size.last ?? 0, maxSide: options.maxSide,
                             maxPixels: options.maxPixels)
        case BFV_NO_MEMORY: return .io(path: path, reason: error.reason)
        default: return .notVideo(path: path, reason: error.specificReason)
        }
    }

    private static func info(_ c: BFVReaderInfo, _ handle: OpaquePointer, applies: Bool) -> VideoInfo {
        var others: [VideoStream] = []
        for index in 0..<Int(c.stream_count) where index != Int(c.video_index) {
            var stream = BFVStreamInfo()
            guard bfv_reader_stream(handle, Int32(index), &stream) == BFV_OK else { continue }
            let kind: VideoStream.Kind = switch stream.kind {
            case BFV_KIND_VIDEO: .video
            case BFV_KIND_AUDIO: .audio
            case BFV_KIND_SUBTITLE: .subtitle
            case BFV_KIND_DATA: .data
            case BFV_KIND_ATTACHMENT: .attachment
            case BFV_KIND_ATTACHED_PICTURE: .attachedPicture
            default: .unknown
            }
            let language = cString(stream.language)
            others.append(VideoStream(index: index, kind: kind, codec: cString(stream.codec), language: language.isEmpty ? nil : language))
        }
        let timeBase = VideoFrame.TimeBase(numerator: c.tb_num, denominator: c.tb_den)
        let rate = c.rate_num > 0 && c.rate_den > 0 ? VideoFrameRate(numerator: c.rate_num, denominator: c.rate_den) : nil
        let duration = c.duration >= 0 ? Double(c.duration) * Double(c.tb_num) / Double(c.tb_den) : nil
        var count = c.frame_count > 0 ? Int(c.frame_count) : nil
        if count == nil, let duration, let rate { count = Int((duration * rate.value).rounded()) }
        return VideoInfo(container: cString(c.container), codec: cString(c.codec), videoStreamIndex: Int(c.video_index),
                         storedWidth: Int(c.stored_width), storedHeight: Int(c.stored_height), width: Int(c.width),
                         height: Int(c.height), rotation: Int(c.rotation), appliesRotation: applies,
                         timeBase: timeBase, frameRate: rate, duration: duration, expectedFrameCount: count,
                         pixelFormat: cString(c.pixel_format), bitDepth: Int(c.bit_depth),
                         color: VideoColor(range: c.color_range, space: c.color_space, primaries: c.color_primaries, transfer: c.color_trc),
                         fullRange: c.full_range != 0, otherStreams: others,
                         fieldOrder: VideoFrame.FieldOrder(code: c.field_order))
    }
}

extension VideoFrame.FieldOrder {
    /// The C layer's code for a field order: 0 progressive (or unknown), 1 top field first,
    /// 2 bottom field first.
    init(code: Int32) { self = code == 1 ? .topFieldFirst : code == 2 ? .bottomFieldFirst : .progressive }
    var code: Int32 { self == .topFieldFirst ? 1 : self == .bottomFieldFirst ? 2 : 0 }
}
