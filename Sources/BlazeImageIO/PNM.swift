@_exported import BlazeImage
/// Netpbm PPM (colour) and PGM (gray) reading and writing: binary P6/P5 and ASCII P3/P2,
/// maxval 1...65535 (two bytes per sample, big-endian, above 255).
public enum PNM {
    /// Which Netpbm format to write.
    public enum Kind: Sendable { case ppm, pgm }

    /// Decodes P2, P3, P5 or P6 data to 8-bit RGB: gray replicated, samples scaled from
    /// 0...maxval to 0...255 with rounding (exact for maxval 255; `v * 255 / 65535` rounded
    /// for 16-bit). The header's size is checked against `limits` before allocating.
    /// Comments (`#` to the end of a line) are allowed between header fields.
    public static func decode(_ bytes: [UInt8], limits: ImageLimits = .default) throws(ImageError) -> RGBImage {
        var reader = Reader(bytes: bytes)
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "P") else {
            throw .corruptData(.pnm, "the data does not start with a P2, P3, P5 or P6 magic number")
        }
        let magic = bytes[1]
        let channels: Int, ascii: Bool
        switch magic {
        case UInt8(ascii: "2"): (channels, ascii) = (1, true)
        case UInt8(ascii: "3"): (channels, ascii) = (3, true)
        case UInt8(ascii: "5"): (channels, ascii) = (1, false)
        case UInt8(ascii: "6"): (channels, ascii) = (3, false)
        case UInt8(ascii: "1"), UInt8(ascii: "4"): throw .unsupported(.pnm, "bitmaps (PBM, P1/P4) are not read")
        default: throw .corruptData(.pnm, "unknown magic number P\(Character(Unicode.Scalar(magic)))")
        }
        reader.offset = 2
        let width = try reader.headerNumber("width"), height = try reader.headerNumber("height")
        let maxval = try reader.headerNumber("maxval")
        guard width > 0, height > 0 else { throw .invalidSize(width: width, height: height) }
        guard width <= limits.maxWidth, height <= limits.maxHeight, width.multipliedReportingOverflow(by: height).partialValue <= limits.maxPixels,
              !width.multipliedReportingOverflow(by: height).overflow else {
            throw .tooLarge(width: width, height: height, limits: limits)
        }
        guard (1...65535).contains(maxval) else { throw .corruptData(.pnm, "maxval \(maxval) is outside 1...65535") }
        let count = try RGBImage.byteCount(width: width, height: height)
        let samples = width * height * channels
        // Exactly one white-space byte separates the header from binary data.
        if !ascii {
            guard reader.offset < bytes.count, isWhitespace(bytes[reader.offset]) else {
                throw .truncatedData(.pnm, "no white space after the header")
            }
            reader.offset += 1
            let needed = samples * (maxval > 255 ? 2 : 1)
            guard bytes.count - reader.offset >= needed else {
                throw .truncatedData(.pnm, "\(bytes.count - reader.offset) bytes of pixel data, \(needed) needed for \(width)x\(height)")
            }
        } else if bytes.count - reader.offset < samples * 2 - 1 {
            // Each ASCII sample takes at least one digit and one separator.
            throw .truncatedData(.pnm, "\(bytes.count - reader.offset) bytes cannot hold \(samples) ASCII samples")
        }
        var pixels = [UInt8](repeating: 0, count: count)
        let scale = Scale(maxval: maxval)
        for i in 0..<samples {
            let value: Int
            if ascii {
                value = try reader.sample(index: i, of: samples)
            } else if maxval > 255 {
                value = Int(bytes[reader.offset]) << 8 | Int(bytes[reader.offset + 1]); reader.offset += 2
            } else {
                value = Int(bytes[reader.offset]); reader.offset += 1
            }
            guard value <= maxval else { throw .corruptData(.pnm, "sample \(i) is \(value), above maxval \(maxval)") }
            let v = scale(value)
            if channels == 3 { pixels[i] = v } else { pixels[3 * i] = v; pixels[3 * i + 1] = v; pixels[3 * i + 2] = v }
        }
        return RGBImage(unchecked: width, height, pixels)
    }

    /// Encodes as binary PPM (P6) or PGM (P5) with maxval 255 or 65535 (samples times 257).
    /// PGM stores Pillow's luma, `(19595 R + 38470 G + 7471 B + 32768) >> 16`, which is the
    /// sample itself for a gray image, so gray round-trips exactly.
    public static func encode(_ image: RGBImage, as kind: Kind = .ppm, sixteenBit: Bool = false) throws(ImageError) -> [UInt8] {
        let expected = try RGBImage.byteCount(width: image.width, height: image.height)
        guard image.pixels.count == expected else { throw .pixelCountMismatch(expected: expected, actual: image.pixels.count) }
        let maxval = sixteenBit ? 65535 : 255
        var out = Array("\(kind == .ppm ? "P6" : "P5")\n\(image.width) \(image.height)\n\(maxval)\n".utf8)
        let samples = kind == .ppm ? expected : expected / 3
        out.reserveCapacity(out.count + samples * (sixteenBit ? 2 : 1))
        func put(_ v: UInt8) {
            if sixteenBit { out.append(v); out.append(v) } else { out.append(v) }   // v * 257 is v in both bytes
        }
        if kind == .ppm {
            for v in image.pixels { put(v) }
        } else {
            for i in stride(from: 0, to: expected, by: 3) {
                let r = UInt32(image.pixels[i]), g = UInt32(image.pixels[i + 1]), b = UInt32(image.pixels[i + 2])
                put(UInt8((19595 * r + 38470 * g + 7471 * b + 32768) >> 16))
            }
        }
        return out
    }

    /// Reads and decodes the PPM or PGM file at `path` (errors as `PNG.read`).
    public static func read(contentsOf path: String, limits: ImageLimits = .default) throws(ImageError) -> RGBImage {
        let bytes = try readFile(path)
        do { return try decode(bytes, limits: limits) } catch { throw .file(path: path, error) }
    }

    /// Encodes and writes atomically (a temporary file renamed over `path`).
    public static func write(_ image: RGBImage, to path: String, as kind: Kind = .ppm, sixteenBit: Bool = false) throws(ImageError) {
        try AtomicFile.write(try encode(image, as: kind, sixteenBit: sixteenBit), to: path)
    }

    /// Netpbm's white space: blank, tab, CR, LF, VT, FF.
    static func isWhitespace(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D || c == 0x0B || c == 0x0C
    }

    /// 0...maxval to 0...255, rounded: a table for 8-bit maxvals, arithmetic above.
    private struct Scale {
        let maxval: Int
        func callAsFunction(_ v: Int) -> UInt8 {
            maxval == 255 ? UInt8(v) : UInt8((v * 255 * 2 + maxval) / (2 * maxval))
        }
    }

    /// A cursor over the header and ASCII samples.
    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        /// Skips white space and comments.
        mutating func skipSeparators() {
            while offset < bytes.count {
                if isWhitespace(bytes[offset]) { offset += 1 } else if bytes[offset] == UInt8(ascii: "#") {
                    while offset < bytes.count, bytes[offset] != 0x0A, bytes[offset] != 0x0D { offset += 1 }
                } else { return }
            }
        }

        /// A decimal number (at most 9 digits), or nil if none is here.
        mutating func number() -> Int? {
            var value = 0, digits = 0
            while offset < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[offset]) {
                guard digits < 9 else { return nil }
                value = value * 10 + Int(bytes[offset] - UInt8(ascii: "0")); digits += 1; offset += 1
            }
            return digits > 0 ? value : nil
        }

        mutating func headerNumber(_ name: String) throws(ImageError) -> Int {
            skipSeparators()
            guard offset < bytes.count else { throw .truncatedData(.pnm, "data ends before the \(name)") }
            guard let v = number() else { throw .corruptData(.pnm, "the \(name) is not a decimal number of at most 9 digits") }
            return v
        }

        mutating func sample(index: Int, of total: Int) throws(ImageError) -> Int {
            skipSeparators()
            guard offset < bytes.count else { throw .truncatedData(.pnm, "data ends after \(index) of \(total) samples") }
            guard let v = number() else { throw .corruptData(.pnm, "sample \(index) is not a decimal number") }
            return v
        }
    }
}
