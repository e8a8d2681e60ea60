#if canImport(Glibc)
@_exported import BlazeImage
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Darwin
#endif

/// Writes RGB frames as a YUV4MPEG2 stream (C444, or C420jpeg with each 2x2 block's chroma
/// averaged), BT.601 limited range: what players and `ffmpeg -i x.y4m` read. Or, with another
/// reader's header, writes its frames' planes as they are (`write(planes:)`).
public final class Y4MWriter {
    /// The stream's header: frame size, frame rate and chroma layout.
    public let header: Y4MHeader
    private let file: UnsafeMutablePointer<FILE>
    private let path: String
    private var planes: [UInt8]

    /// Creates (or truncates) `path` ("-" for standard output) and writes the stream header.
    public convenience init(path: String, width: Int, height: Int, frameRateNumerator: Int = 30, frameRateDenominator: Int = 1,
                            colorSpace: Y4MColorSpace = .c420jpeg) throws(ImageError) {
        guard [.c420jpeg, .c444].contains(colorSpace) else { throw .y4m("the writer writes C420jpeg or C444, not C\(colorSpace.rawValue)") }
        try self.init(path: path, header: Y4MHeader(width: width, height: height, frameRateNumerator: frameRateNumerator,
                                                    frameRateDenominator: frameRateDenominator, colorSpace: colorSpace))
    }

    /// A stream with `header`'s size, frame rate, colour space and range (a reader's, say, for
    /// `write(planes:)`: YUV passed through with no colour conversion). RGB frames can be
    /// written only to C420jpeg and C444 streams in limited range.
    public init(path: String, header: Y4MHeader) throws(ImageError) {
        guard header.width > 0, header.height > 0, header.frameRateNumerator > 0, header.frameRateDenominator > 0 else {
            throw .invalidSize(width: header.width, height: header.height)
        }
        self.header = header
        if path == "-" {
            guard let f = fdopen(dup(1), "wb") else { throw .io(path: "<stdout>", reason: String(cString: strerror(errno))) }
            file = f
        } else {
            guard let f = fopen(path, "wb") else { throw .io(path: path, reason: String(cString: strerror(errno))) }
            file = f
        }
        self.path = path
        planes = [UInt8](repeating: 0, count: header.frameBytes)
        let range = header.fullRange ? " XCOLORRANGE=FULL" : ""
        let scan = switch header.fieldOrder {
        case .progressive: "p"
        case .topFieldFirst: "t"
        case .bottomFieldFirst: "b"
        }
        try put(Array(("YUV4MPEG2 W\(header.width) H\(header.height) F\(header.frameRateNumerator):\(header.frameRateDenominator) "
            + "I\(scan) A1:1 C\(header.colorSpace.rawValue)\(range)\n").utf8))
    }

    /// Appends one frame's planes as stored (`header.frameBytes` bytes: Y, then U and V).
    public func write(planes frame: [UInt8]) throws(ImageError) {
        guard frame.count == header.frameBytes else {
            throw .y4m("a frame of \(frame.count) bytes; the stream's frames are \(header.frameBytes)")
        }
        try put(Array("FRAME\n".utf8))
        try put(frame)
    }

    deinit { fclose(file) }

    /// Appends one frame; it must have the stream's size.
    public func write(_ image: RGBImage) throws(ImageError) {
        guard [.c420jpeg, .c444].contains(header.colorSpace), !header.fullRange else {
            throw .y4m("RGB frames are written as C420jpeg or C444 in limited range")
        }
        guard image.width == header.width, image.height == header.height, image.pixels.count == image.width * image.height * 3 else {
            throw .y4m("frame is \(image.width)x\(image.height), the stream is \(header.width)x\(header.height)")
        }
        Self.convert(image, subsampled: header.colorSpace != .c444, into: &planes)
        try put(Array("FRAME\n".utf8))
        try put(planes)
    }

    /// `image` as BT.601 limited-range planes, Y then U and V (each 2x2 block's chroma averaged
    /// when `subsampled`, as C420jpeg; one sample a pixel otherwise, as C444), into `planes`.
    static func convert(_ image: RGBImage, subsampled: Bool, into planes: inout [UInt8]) {
        let (w, h) = (image.width, image.height)
        let sub = subsampled ? 1 : 0
        let cw = (w + sub) >> sub, ch = (h + sub) >> sub
        if planes.count != w * h + 2 * cw * ch { planes = [UInt8](repeating: 0, count: w * h + 2 * cw * ch) }
        image.pixels.withUnsafeBufferPointer { px in
            planes.withUnsafeMutableBufferPointer { out in
                for i in 0..<(w * h) { out[i] = Self.rgbToYUV(px[3 * i], px[3 * i + 1], px[3 * i + 2]).y }
                for cy in 0..<ch {
                    for cx in 0..<cw {
                        // The mean chroma over the block (one pixel for C444).
                        var u: Float = 0, v: Float = 0, n: Float = 0
                        for y in (cy << sub)..<min((cy + 1) << sub, h) {
                            for x in (cx << sub)..<min((cx + 1) << sub, w) {
                                let i = 3 * (y * w + x)
                                let c = Self.rgbToYUV(px[i], px[i + 1], px[i + 2])
                                (u, v, n) = (u + c.u, v + c.v, n + 1)
                            }
                        }
                        out[w * h + cy * cw + cx] = UInt8(min(max((u / n).rounded(), 0), 255))
                        out[w * h + cw * ch + cy * cw + cx] = UInt8(min(max((v / n).rounded(), 0), 255))
                    }
                }
            }
        }
    }

    /// Flushes buffered output (the file is closed when the writer goes away).
    public func flush() throws(ImageError) {
        guard fflush(file) == 0 else { throw .io(path: path, reason: String(cString: strerror(errno))) }
    }

    private func put(_ bytes: [UInt8]) throws(ImageError) {
        let written = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
        guard written == bytes.count else { throw .io(path: path, reason: "write failed: \(String(cString: strerror(errno)))") }
    }

    /// RGB to BT.601 limited-range YCbCr: Y unrounded chroma (averaged before rounding).
    private static func rgbToYUV(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> (y: UInt8, u: Float, v: Float) {
        let (r, g, b) = (Float(r) / 255, Float(g) / 255, Float(b) / 255)
        let y = 16 + 65.481 * r + 128.553 * g + 24.966 * b
        let u = 128 - 37.797 * r - 74.203 * g + 112 * b
        let v = 128 + 112 * r - 93.786 * g - 18.214 * b
        return (UInt8(min(max(y.rounded(), 0), 255)), u, v)
    }
}
