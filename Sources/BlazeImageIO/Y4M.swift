#if canImport(Glibc)
@_exported import BlazeImage
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Darwin
#endif

/// The chroma layouts of YUV4MPEG2 streams this reader takes (8 bits per sample). The 4:2:0
/// variants differ only in chroma siting, which the conversion ignores (each chroma sample
/// covers its 2x2 block).
public enum Y4MColorSpace: String, Sendable, CaseIterable {
    /// 4:2:0 (chroma at half width and half height), under its four chroma-siting names.
    case c420jpeg = "420jpeg", c420paldv = "420paldv", c420mpeg2 = "420mpeg2", c420 = "420"
    /// 4:2:2 (chroma at half width), 4:4:4 (full chroma), and luma only.
    case c422 = "422", c444 = "444", mono = "mono"

    /// Chroma subsampling (horizontal, vertical) shifts; nil for no chroma planes.
    var chromaShift: (x: Int, y: Int)? {
        switch self {
        case .c420jpeg, .c420paldv, .c420mpeg2, .c420: (1, 1)
        case .c422: (1, 0)
        case .c444: (0, 0)
        case .mono: nil
        }
    }
}

/// A YUV4MPEG2 stream header: `YUV4MPEG2 W H F A I C X...` (what `ffmpeg -f yuv4mpegpipe` writes).
public struct Y4MHeader: Sendable, Equatable {
    /// The frame size in pixels.
    public var width: Int, height: Int
    /// Frames per second as a fraction; 30:1 when the header has no F.
    public var frameRateNumerator = 30, frameRateDenominator = 1
    /// The chroma layout (the header's C); 420jpeg when the header has none.
    public var colorSpace: Y4MColorSpace = .c420jpeg
    /// `XCOLORRANGE=FULL` (JPEG-range YUV); limited (BT.601 studio) range otherwise.
    public var fullRange = false
    /// The header's I: `It` top field first, `Ib` bottom field first; progressive otherwise
    /// (`Ip`, mixed `Im`, or none).
    public var fieldOrder: VideoFrame.FieldOrder = .progressive

    /// A header with these values, in limited range.
    public init(width: Int, height: Int, frameRateNumerator: Int = 30, frameRateDenominator: Int = 1,
                colorSpace: Y4MColorSpace = .c420jpeg) {
        (self.width, self.height, self.frameRateNumerator, self.frameRateDenominator, self.colorSpace)
            = (width, height, frameRateNumerator, frameRateDenominator, colorSpace)
    }

    /// Bytes of one frame's planes.
    public var frameBytes: Int {
        guard let s = colorSpace.chromaShift else { return width * height }
        let cw = (width + (1 << s.x) - 1) >> s.x, ch = (height + (1 << s.y) - 1) >> s.y
        return width * height + 2 * cw * ch
    }

    /// The time of frame `index` in milliseconds, rounded to nearest.
    public func timestampInMilliseconds(ofFrame index: Int) -> Int {
        Int((Double(index) * 1000 * Double(frameRateDenominator) / Double(frameRateNumerator)).rounded())
    }
}

/// Reads a YUV4MPEG2 stream frame by frame from a file or a pipe (stdin), converting each frame
/// to RGB. Headers are parsed with every length bounded, and the image limits are checked
/// before any frame buffer is allocated.
public final class Y4MReader {
    /// The stream header, read when the reader is opened.
    public let header: Y4MHeader
    private let input: ByteReader
    private var frameIndex = 0
    private var planes: [UInt8]

    /// Opens `path` ("-" for standard input) and reads its header.
    public convenience init(path: String, limits: ImageLimits = .default) throws(ImageError) {
        if path == "-" {
            try self.init(input: ByteReader(fileDescriptor: 0, name: "<stdin>", owned: false), limits: limits)
        } else {
            let fd = open(path, O_RDONLY)
            guard fd >= 0 else { throw .io(path: path, reason: String(cString: strerror(errno))) }
            try self.init(input: ByteReader(fileDescriptor: fd, name: path, owned: true), limits: limits)
        }
    }

    /// Reads a stream held in memory (tests, fuzzing).
    public convenience init(bytes: [UInt8], limits: ImageLimits = .default) throws(ImageError) {
        try self.init(input: ByteReader(bytes: bytes), limits: limits)
    }

    private init(input: ByteReader, limits: ImageLimits) throws(ImageError) {
        self.input = input
        guard let line = try input.line(maxLength: Self.maxHeaderLength) else { throw .y4m("empty stream") }
        header = try Self.parseHeader(line, limits: limits)
        planes = [UInt8](repeating: 0, count: header.frameBytes)
    }

    /// Longest stream or frame header line accepted.
    static let maxHeaderLength = 4096

    /// The next frame as RGB, or nil at the end of the stream (an end inside a frame is an error).
    public func nextFrame() throws(ImageError) -> RGBImage? {
        guard try nextFrame(planes: &planes) else { return nil }
        return Self.convert(planes, header)
    }

    /// Reads the next frame's planes as stored (Y, then U and V at the colour space's
    /// subsampling; `header.frameBytes` bytes) into `planes`, resized to fit; false at the end of
    /// the stream (an end inside a frame is an error). For work on YUV itself: pixels pass
    /// through without a colour conversion.
    public func nextFrame(planes: inout [UInt8]) throws(ImageError) -> Bool {
        guard let line = try input.line(maxLength: Self.maxHeaderLength) else { return false }
        guard line.starts(with: Array("FRAME".utf8)), line.count == 5 || line[5] == UInt8(ascii: " ") else {
            throw .y4m("frame \(frameIndex): expected a FRAME header, found \(Self.printable(line))")
        }
        if planes.count != header.frameBytes { planes = [UInt8](repeating: 0, count: header.frameBytes) }
        let got = try planes.withUnsafeMutableBufferPointer { p throws(ImageError) in try input.read(into: p) }
        guard got == planes.count else {
            throw .y4m("frame \(frameIndex) is truncated: \(got) of \(planes.count) bytes")
        }
        frameIndex += 1
        return true
    }

    /// Parses the stream header line (without its newline).
    static func parseHeader(_ line: [UInt8], limits: ImageLimits) throws(ImageError) -> Y4MHeader {
        let tokens = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: true).map { String(decoding: $0, as: UTF8.self) }
        guard tokens.first == "YUV4MPEG2" else { throw .y4m("not a YUV4MPEG2 stream (no YUV4MPEG2 signature)") }
        var width: Int?, height: Int?
        var header = Y4MHeader(width: 0, height: 0)
        for token in tokens.dropFirst() {
            let value = String(token.dropFirst())
            switch token.first {
            case "W": width = Int(value)
                guard let w = width, w > 0 else { throw .y4m("bad width \(printable(token))") }
            case "H": height = Int(value)
                guard let h = height, h > 0 else { throw .y4m("bad height \(printable(token))") }
            case "F":
                let parts = value.split(separator: ":")
                guard parts.count == 2, let n = Int(parts[0]), let d = Int(parts[1]), n > 0, d > 0, n <= 1_000_000, d <= 1_000_000 else {
                    throw .y4m("bad frame rate \(printable(token))")
                }
                (header.frameRateNumerator, header.frameRateDenominator) = (n, d)
            case "C":
                guard let c = Y4MColorSpace(rawValue: value) else {
                    throw .y4m("unsupported colour space \(printable(token)); supported: "
                               + Y4MColorSpace.allCases.map { "C" + $0.rawValue }.joined(separator: ", "))
                }
                header.colorSpace = c
            case "X": if value == "COLORRANGE=FULL" { header.fullRange = true }
            case "I": header.fieldOrder = value == "t" ? .topFieldFirst : value == "b" ? .bottomFieldFirst : .progressive
            case "A": break   // pixel aspect: recorded by the writer, not needed to decode
            default: throw .y4m("unknown header parameter \(printable(token))")
            }
        }
        guard let width, let height else { throw .y4m("header lacks W (width) or H (height)") }
        guard width <= limits.maxWidth, height <= limits.maxHeight, width <= limits.maxPixels / height else {
            throw .tooLarge(width: width, height: height, limits: limits)
        }
        (header.width, header.height) = (width, height)
        return header
    }

    /// Planar YUV to interleaved RGB, chroma replicated over its block.
    static func convert(_ planes: [UInt8], _ h: Y4MHeader) -> RGBImage {
        let (w, ht) = (h.width, h.height)
        var rgb = [UInt8](repeating: 0, count: w * ht * 3)
        planes.withUnsafeBufferPointer { p in
            rgb.withUnsafeMutableBufferPointer { out in
                guard let shift = h.colorSpace.chromaShift else {
                    for i in 0..<(w * ht) {
                        let c = YUVToRGB.rgb(y: p[i], cb: 128, cr: 128, fullRange: h.fullRange)
                        (out[3 * i], out[3 * i + 1], out[3 * i + 2]) = (c.r, c.g, c.b)
                    }
                    return
                }
                let cw = (w + (1 << shift.x) - 1) >> shift.x, ch = (ht + (1 << shift.y) - 1) >> shift.y
                let uBase = w * ht, vBase = uBase + cw * ch
                for y in 0..<ht {
                    let cRow = (y >> shift.y) * cw
                    for x in 0..<w {
                        let ci = cRow + (x >> shift.x), i = y * w + x
                        let c = YUVToRGB.rgb(y: p[i], cb: p[uBase + ci], cr: p[vBase + ci], fullRange: h.fullRange)
                        (out[3 * i], out[3 * i + 1], out[3 * i + 2]) = (c.r, c.g, c.b)
                    }
                }
            }
        }
        return RGBImage(unchecked: w, ht, rgb)
    }

    /// A header fragment safe to quote in a message: at most 40 printable ASCII characters.
    static func printable<S: Sequence>(_ s: S) -> String where S.Element == UInt8 {
        let chars = s.prefix(40).map { $0 >= 0x20 && $0 < 0x7f ? Character(UnicodeScalar($0)) : "?" }
        return "'" + String(chars) + "'"
    }

    static func printable(_ s: String) -> String { printable(Array(s.utf8)) }
}

/// Buffered reads from a file descriptor (or memory), with bounded line reads.
final class ByteReader {
    private let fd: Int32
    private let name: String
    private let owned: Bool
    private var buffer: [UInt8]
    private var start = 0, end = 0
    private var atEnd = false

    init(fileDescriptor: Int32, name: String, owned: Bool) {
        (fd, self.name, self.owned) = (fileDescriptor, name, owned)
        buffer = [UInt8](repeating: 0, count: 1 << 16)
    }

    init(bytes: [UInt8]) {
        (fd, name, owned) = (-1, "<memory>", false)
        buffer = bytes
        end = bytes.count
        atEnd = true
    }

    deinit { if owned { close(fd) } }

    /// Refills the buffer (after moving what is left to its start); false at end of input.
    private func fill() throws(ImageError) -> Bool {
        if atEnd { return false }
        if start > 0 {
            buffer.withUnsafeMutableBytes { b in _ = memmove(b.baseAddress!, b.baseAddress! + start, end - start) }
            (end, start) = (end - start, 0)
        }
        while true {
            let n = buffer.withUnsafeMutableBytes { b in posixRead(fd, b.baseAddress! + end, b.count - end) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw .io(path: name, reason: String(cString: strerror(errno))) }
            if n == 0 { atEnd = true; return false }
            end += n
            return true
        }
    }

    /// The next line without its "\n"; nil at a clean end of input; an error for a line longer
    /// than `maxLength` or cut off by the end.
    func line(maxLength: Int) throws(ImageError) -> [UInt8]? {
        var scanned = start
        while true {
            if let nl = buffer[scanned..<end].firstIndex(of: 0x0A) {
                guard nl - start <= maxLength else { throw .y4m("header line longer than \(maxLength) bytes") }
                let line = Array(buffer[start..<nl])
                start = nl + 1
                return line
            }
            guard end - start <= maxLength else { throw .y4m("header line longer than \(maxLength) bytes") }
            scanned = end
            let before = start
            if try !fill() {
                if end == start { return nil }
                throw .y4m("stream ends inside a header line: \(Y4MReader.printable(buffer[start..<end]))")
            }
            scanned -= before - start   // fill() moved the data to the front
        }
    }

    /// Reads up to `target.count` bytes (fewer only at end of input); returns how many.
    func read(into target: UnsafeMutableBufferPointer<UInt8>) throws(ImageError) -> Int {
        var filled = 0
        while filled < target.count {
            if start == end, try !fill() { break }
            let n = min(end - start, target.count - filled)
            buffer.withUnsafeBufferPointer { b in
                _ = memcpy(target.baseAddress! + filled, b.baseAddress! + start, n)
            }
            start += n
            filled += n
        }
        return filled
    }
}

/// read(2), under a name the reader's own `read(into:)` does not shadow.
private func posixRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    read(fd, buffer, count)
}
