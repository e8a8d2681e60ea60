#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Darwin
#endif

/// A YUV4MPEG2 stream as a `VideoFrameSource`: 4:2:0 and mono frames as they are stored
/// (`.i420`, `.gray`: no colour conversion), 4:2:2 and 4:4:4 frames as RGB. Frame `i` is at
/// `i` frame durations (the header's rate: Y4M is constant frame rate).
public final class Y4MFrameSource: VideoFrameSource {
    /// The stream's header.
    public var header: Y4MHeader { reader.header }
    /// The frames in the file, from its size (nil for a pipe).
    public let expectedFrameCount: Int?
    private let reader: Y4MReader
    private var index: Int64 = 0

    /// The header's size, rate and range.
    public var streamInfo: VideoStreamInfo? {
        let h = header
        return VideoStreamInfo(width: h.width, height: h.height, frameRateNumerator: h.frameRateNumerator,
                               frameRateDenominator: h.frameRateDenominator, fullRange: h.fullRange)
    }

    /// Opens `path` ("-" for standard input).
    public init(path: String, limits: ImageLimits = .default) throws(ImageError) {
        reader = try Y4MReader(path: path, limits: limits)
        var info = stat()
        if path != "-", stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
            expectedFrameCount = Int(info.st_size) / (reader.header.frameBytes + 6)
        } else {
            expectedFrameCount = nil
        }
    }

    public func nextFrame() throws -> VideoFrame? {
        let h = header
        let timeBase = VideoFrame.TimeBase(numerator: Int32(h.frameRateDenominator), denominator: Int32(h.frameRateNumerator))
        let format: PixelFormat
        var bytes: [UInt8] = []
        switch h.colorSpace {
        case .c420jpeg, .c420paldv, .c420mpeg2, .c420, .mono:
            guard try reader.nextFrame(planes: &bytes) else { return nil }
            format = h.colorSpace == .mono ? .gray : .i420
        case .c422, .c444:
            guard let image = try reader.nextFrame() else { return nil }
            (format, bytes) = (.rgb, image.pixels)
        }
        defer { index += 1 }
        var frame = try VideoFrame(format: format, width: h.width, height: h.height, bytes: bytes,
                                   fullRange: format == .rgb ? false : h.fullRange, presentationTime: index, timeBase: timeBase)
        frame.fieldOrder = h.fieldOrder
        return frame
    }
}

/// A YUV4MPEG2 stream as a `VideoFrameSink`: `.i420` and `.gray` frames written as they are
/// (with the header they came with), `.rgb` frames as C420jpeg. A file is written under a
/// temporary name beside `path` and renamed to it by `finish()`; "-" writes to standard output.
public final class Y4MFrameSink: VideoFrameSink {
    private let writer: Y4MWriter
    private let output: PendingFile?

    /// A sink writing frames of `header`'s size and rate (its colour space for YUV frames; RGB
    /// frames need a C420jpeg or C444 header in limited range).
    public init(path: String, header: Y4MHeader) throws(ImageError) {
        output = path == "-" ? nil : try PendingFile(destination: path)
        writer = try Y4MWriter(path: output?.temporaryPath ?? "-", header: header)
    }

    public func write(_ frame: VideoFrame) throws {
        guard frame.width == writer.header.width, frame.height == writer.header.height else {
            throw ImageError.y4m("frame is \(frame.width)x\(frame.height), the stream is \(writer.header.width)x\(writer.header.height)")
        }
        if frame.format == .rgb {
            try writer.write(RGBImage(unchecked: frame.width, frame.height, frame.bytes))
        } else {
            try writer.write(planes: frame.bytes)
        }
    }

    public func finish() throws {
        try writer.flush()
        try output?.commit()
    }

    public func cancel() { output?.discard() }

    deinit { output?.discard() }
}

extension RGBImage {
    /// A video frame's pixels as RGB: YUV converted as `Y4MReader` converts it (BT.601, each
    /// chroma sample over its 2x2 block), so that a frame gives the same pixels whether it came
    /// from a Y4M stream or a video file.
    public init(videoFrame frame: VideoFrame) {
        switch frame.format {
        case .rgb: self.init(unchecked: frame.width, frame.height, frame.bytes)
        default:
            var header = Y4MHeader(width: frame.width, height: frame.height, colorSpace: frame.format == .gray ? .mono : .c420jpeg)
            header.fullRange = frame.fullRange
            self = Y4MReader.convert(frame.bytes, header)
        }
    }
}

extension VideoFrame {
    /// `image` as a limited-range I420 frame (BT.601, each 2x2 block's chroma averaged, as
    /// `Y4MWriter` writes RGB frames): RGB pictures, such as annotated frames, to a video encoder.
    public init(i420From image: RGBImage, presentationTime: Int64, timeBase: TimeBase) throws(ImageError) {
        var planes: [UInt8] = []
        Y4MWriter.convert(image, subsampled: true, into: &planes)
        try self.init(format: .i420, width: image.width, height: image.height, bytes: planes,
                      presentationTime: presentationTime, timeBase: timeBase)
    }
}
