/// One decoded video frame that owns its pixels, with its presentation time: what a
/// `VideoFrameSource` delivers and a `VideoFrameSink` takes. Pixels are 8-bit, in one of three
/// layouts, packed with no row padding in `bytes`:
/// - `.i420`: Y (`width` x `height`), then U and V (`(width + 1) / 2` x `(height + 1) / 2` each),
///   as YUV4MPEG2's 4:2:0 planes and FFmpeg's `yuv420p` are laid out;
/// - `.gray`: Y alone;
/// - `.rgb`: packed R, G, B.
/// YUV is limited (studio) range unless `fullRange`.
public struct VideoFrame: Sendable {
    /// The layout of `bytes`: `.i420`, `.gray` or `.rgb`.
    public let format: PixelFormat
    /// The picture's size in pixels, as it is to be shown (a decoder's rotation already applied).
    public let width: Int, height: Int
    /// The planes, packed (see the type's description).
    public var bytes: [UInt8]
    /// YUV in full (JPEG) range rather than limited range.
    public var fullRange: Bool
    /// When the frame is shown: `presentationTime * timeBase` seconds from the stream's start.
    public var presentationTime: Int64
    /// The unit of `presentationTime`.
    public var timeBase: TimeBase
    /// How the picture was scanned: at once, or as two interlaced fields (rows taken a field
    /// period apart, as camcorders and broadcast record 1080i), which first. Progressive unless
    /// the source says otherwise.
    public var fieldOrder: FieldOrder = .progressive

    /// Progressive, or interlaced with the top (even rows) or bottom (odd rows) field first.
    public enum FieldOrder: Sendable, Equatable {
        case progressive, topFieldFirst, bottomFieldFirst
    }

    /// A rational time unit (`numerator / denominator` seconds), as FFmpeg's `AVRational`.
    public struct TimeBase: Sendable, Equatable, Hashable {
        public var numerator: Int32, denominator: Int32
        public init(numerator: Int32, denominator: Int32) { (self.numerator, self.denominator) = (numerator, denominator) }
        /// Milliseconds, for timestamps in milliseconds.
        public static let milliseconds = TimeBase(numerator: 1, denominator: 1000)
    }

    /// A frame with these pixels; `bytes` must hold `byteCount(format:width:height:)` bytes.
    public init(format: PixelFormat, width: Int, height: Int, bytes: [UInt8], fullRange: Bool = false,
                presentationTime: Int64, timeBase: TimeBase) throws(ImageError) {
        guard format == .i420 || format == .gray || format == .rgb else {
            throw .invalidPixelBuffer("a video frame is i420, gray or rgb, not \(format)")
        }
        guard width > 0, height > 0, width <= 1 << 20, height <= 1 << 20 else { throw .invalidSize(width: width, height: height) }
        guard timeBase.numerator > 0, timeBase.denominator > 0 else {
            throw .invalidPixelBuffer("time base \(timeBase.numerator)/\(timeBase.denominator) is not positive")
        }
        let needed = Self.byteCount(format: format, width: width, height: height)
        guard bytes.count == needed else {
            throw .invalidPixelBuffer("a \(width)x\(height) \(format) frame has \(needed) bytes, not \(bytes.count)")
        }
        (self.format, self.width, self.height, self.bytes, self.fullRange) = (format, width, height, bytes, fullRange)
        (self.presentationTime, self.timeBase) = (presentationTime, timeBase)
    }

    /// Bytes of a packed frame of this layout and size.
    public static func byteCount(format: PixelFormat, width: Int, height: Int) -> Int {
        switch format {
        case .i420: width * height + 2 * ((width + 1) / 2) * ((height + 1) / 2)
        case .rgb: 3 * width * height
        default: width * height
        }
    }

    /// The presentation time in whole milliseconds (rounded to nearest), for detectors and trackers.
    public var timestampInMilliseconds: Int {
        let num = Double(presentationTime) * Double(timeBase.numerator) * 1000
        return Int((num / Double(timeBase.denominator)).rounded())
    }

    /// The frame's memory seen as a `PixelBuffer`, writable for the length of `body` (to mask it
    /// in place).
    public mutating func withPixelBuffer<T>(_ body: (PixelBuffer) throws -> T) throws -> T {
        let (w, h, format) = (width, height, self.format)
        return try bytes.withUnsafeMutableBytes { p throws -> T in try body(try Self.buffer(over: UnsafeRawBufferPointer(p), format, w, h)) }
    }

    /// The picture to search for faces, for the length of `body`: the frame itself, or for an
    /// interlaced frame its first field alone with the other field's rows filled in from the
    /// rows above and below (a "bob"). A moving face's two fields are a field period apart and
    /// comb into each other, which hides faces from the detectors: on a 1080i street, 14 face
    /// masks from the combed frames against 197 from their fields. `scratch` holds the filled-in
    /// copy (reused from call to call); the frame is left as it is.
    public func withSearchPixels<T>(scratch: inout [UInt8], _ body: (PixelBuffer) throws -> T) throws -> T {
        let (w, h, format) = (width, height, self.format)
        guard fieldOrder != .progressive, h >= 4 else {
            return try bytes.withUnsafeBytes { try body(try Self.buffer(over: $0, format, w, h)) }
        }
        let keep = fieldOrder == .topFieldFirst ? 0 : 1
        if scratch.count != bytes.count { scratch = [UInt8](repeating: 0, count: bytes.count) }
        // Rows of each plane; in interlaced 4:2:0 the chroma rows alternate between the fields too.
        let (cw, ch) = ((w + 1) / 2, (h + 1) / 2)
        let planes: [(start: Int, rowBytes: Int, rows: Int)] = switch format {
        case .i420: [(0, w, h), (w * h, cw, ch), (w * h + cw * ch, cw, ch)]
        case .rgb: [(0, 3 * w, h)]
        default: [(0, w, h)]
        }
        bytes.withUnsafeBufferPointer { source in
            scratch.withUnsafeMutableBufferPointer { out in
                for plane in planes { Self.bob(source, into: out, plane, keep: keep) }
            }
        }
        return try scratch.withUnsafeBytes { try body(try Self.buffer(over: $0, format, w, h)) }
    }

    /// Copies the rows of `plane` whose parity is `keep`, and fills each other row with the
    /// rounded mean of its neighbours (the one neighbour at an edge).
    private static func bob(_ source: UnsafeBufferPointer<UInt8>, into out: UnsafeMutableBufferPointer<UInt8>,
                            _ plane: (start: Int, rowBytes: Int, rows: Int), keep: Int) {
        let (start, n, rows) = plane
        for row in 0..<rows {
            let to = start + row * n
            if row % 2 == keep || rows < 2 {
                for i in 0..<n { out[to + i] = source[to + i] }
                continue
            }
            let above = row - 1 >= 0 ? row - 1 : row + 1, below = row + 1 < rows ? row + 1 : row - 1
            let (a, b) = (start + above * n, start + below * n)
            for i in 0..<n { out[to + i] = UInt8((UInt16(source[a + i]) + UInt16(source[b + i]) + 1) >> 1) }
        }
    }

    /// The packed planes of a `format` frame of `w` x `h` in `all`, as a `PixelBuffer`.
    private static func buffer(over all: UnsafeRawBufferPointer, _ format: PixelFormat, _ w: Int, _ h: Int) throws -> PixelBuffer {
        switch format {
        case .i420:
            let (cw, ch) = ((w + 1) / 2, (h + 1) / 2)
            return try PixelBuffer(i420: UnsafeRawBufferPointer(rebasing: all[0..<(w * h)]), yStride: w,
                                   u: UnsafeRawBufferPointer(rebasing: all[(w * h)..<(w * h + cw * ch)]), uStride: cw,
                                   v: UnsafeRawBufferPointer(rebasing: all[(w * h + cw * ch)...]), vStride: cw,
                                   width: w, height: h)
        default:
            return try PixelBuffer(format: format, width: w, height: h, bytes: all)
        }
    }
}

/// Where decoded frames come from, in presentation order: a video file, a YUV4MPEG2 pipe, or an
/// app's own frames. One frame at a time, from one thread at a time.
public protocol VideoFrameSource: AnyObject {
    /// The next frame, or nil at the end of the stream.
    func nextFrame() throws -> VideoFrame?
    /// How many frames the stream holds, if known before reading them (for a progress bar).
    var expectedFrameCount: Int? { get }
    /// The stream's size, rate and range, as far as the source knows them before its frames
    /// are read; nil when it does not say (default).
    var streamInfo: VideoStreamInfo? { get }
    /// What the stream was missing when it ended short and that was accepted ("360 of about
    /// 600 frames decoded"), once `nextFrame` returned nil; nil for a whole stream (default).
    var truncation: String? { get }
    /// The damaged packets and frames dropped so far, and what was said of the first, when
    /// damaged frames are skipped; nil while none was (default).
    var damage: (dropped: Int, first: String)? { get }
}

extension VideoFrameSource {
    public var streamInfo: VideoStreamInfo? { nil }
    public var truncation: String? { nil }
    public var damage: (dropped: Int, first: String)? { nil }
}

/// What a video stream is before its frames are read: the size of its (upright) frames, its
/// average frame rate as a fraction, and whether its YUV uses the full range of values.
public struct VideoStreamInfo: Sendable, Equatable {
    public var width: Int, height: Int
    /// Frames per second as numerator / denominator: 25 / 1 when the stream does not say.
    public var frameRateNumerator: Int, frameRateDenominator: Int
    public var fullRange: Bool

    public init(width: Int, height: Int, frameRateNumerator: Int, frameRateDenominator: Int, fullRange: Bool) {
        (self.width, self.height, self.frameRateNumerator, self.frameRateDenominator) = (width, height, frameRateNumerator, frameRateDenominator)
        self.fullRange = fullRange
    }
}

/// Where processed frames go, in the order they came: a video file, a YUV4MPEG2 pipe, or an
/// app's own display or recorder. Called from one thread at a time (not always the caller's).
public protocol VideoFrameSink: AnyObject {
    /// Writes one frame.
    func write(_ frame: VideoFrame) throws
    /// Completes the output after the last frame (flushes encoders, writes trailers, and for a
    /// file, moves it into place).
    func finish() throws
    /// Abandons the output after a failure: nothing is left where it was to go (a file sink
    /// removes its temporary file). Safe to call more than once, and after `finish`.
    func cancel()
    /// What the output could not take from the input, as sentences for the user (a data
    /// stream left out, cover art dropped); empty by default.
    var warnings: [String] { get }
}

extension VideoFrameSink {
    public var warnings: [String] { [] }
}
