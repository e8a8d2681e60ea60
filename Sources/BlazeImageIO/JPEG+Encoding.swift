import CJPEGSupport

extension JPEG {
    /// The most one APP2 ICC_PROFILE segment carries (65535 less the length field, the
    /// "ICC_PROFILE\0" tag and the sequence bytes), and the most segments a profile spans.
    static let iccChunkSize = 65519, maxICCChunks = 255

    /// Encodes the image as a baseline JPEG through libjpeg-turbo: IJG `quality` (clamped to
    /// 1...100), optimised Huffman tables, accurate integer DCT, chroma subsampled 2x2 (4:2:0,
    /// libjpeg's default) below quality 90 and kept whole (4:4:4) from 90 up, as ImageMagick
    /// does. `exif` goes in an APP1 "Exif" segment (as is: call `upright()` first for upright
    /// pixels), `iccProfile` in APP2 ICC_PROFILE segments, split over several past 65519 bytes.
    /// With `grayscale`, one gray component (the pixels' luma, exactly the gray of a picture
    /// whose R = G = B), as a grayscale JPEG is stored.
    public static func encode(_ image: RGBImage, quality: Int, grayscale: Bool = false, exif: EXIFBlock? = nil,
                              iccProfile: [UInt8]? = nil) throws(ImageError) -> [UInt8] {
        let expected = try RGBImage.byteCount(width: image.width, height: image.height)
        guard image.pixels.count == expected else {
            throw .pixelCountMismatch(expected: expected, actual: image.pixels.count)
        }
        guard image.width <= 65500, image.height <= 65500 else {
            throw .cannotEncode(.jpeg, "\(image.width)x\(image.height) is beyond the JPEG format's 65500-pixel sides")
        }
        let icc = iccProfile ?? []
        guard icc.count <= iccChunkSize * maxICCChunks else {
            throw .cannotEncode(.jpeg, "an ICC profile of \(icc.count) bytes is over the \(iccChunkSize * maxICCChunks) that 255 APP2 segments hold")
        }
        let tiff = exif?.tiff ?? []
        var message = [CChar](repeating: 0, count: 256)
        var output: UnsafeMutablePointer<UInt8>?
        var outputSize = 0
        let samples = grayscale ? PNG.interleaved(image, alpha: nil, grayscale: true) : image.pixels
        let status = samples.withUnsafeBufferPointer { pixels in
            tiff.withUnsafeBufferPointer { exifBytes in
                icc.withUnsafeBufferPointer { iccBytes in
                    message.withUnsafeMutableBufferPointer { text in
                        bjpg_encode8(pixels.baseAddress, UInt32(image.width), UInt32(image.height), grayscale ? 1 : 3, Int32(clamping: quality),
                                         exifBytes.baseAddress, exifBytes.count, iccBytes.baseAddress, iccBytes.count,
                                         &output, &outputSize, text.baseAddress, text.count)
                    }
                }
            }
        }
        defer { bjpg_free(output) }
        guard status == BJPG_OK, let output else {
            throw .cannotEncode(.jpeg, String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return Array(UnsafeBufferPointer(start: output, count: outputSize))
    }

    /// Encodes (see `encode`) and writes to `path` atomically (`AtomicFile`).
    public static func write(_ image: RGBImage, to path: String, quality: Int, exif: EXIFBlock? = nil,
                             iccProfile: [UInt8]? = nil) throws(ImageError) {
        try AtomicFile.write(try encode(image, quality: quality, exif: exif, iccProfile: iccProfile), to: path)
    }

    /// The IJG quality (1...100) whose scaling of the standard tables (libjpeg's
    /// `jpeg_set_quality`) is nearest the file's quantisation tables: exact for libjpeg,
    /// Pillow, ImageMagick and cjpeg output, the closest fit for a camera's own tables (as
    /// ImageMagick's estimate). Luminance (table 0) counts, and chrominance (table 1) when
    /// present. Nil when there is no DQT before the first scan or the markers are malformed.
    public static func estimatedQuality(_ bytes: [UInt8]) -> Int? {
        var tables: [Int: [Int]] = [:]   // by table id, in natural (row-major) order
        guard let segments = segments(bytes) else { return nil }
        for (marker, body) in segments where marker == 0xDB {
            var i = body.startIndex
            while i < body.endIndex {
                let precision = Int(body[i] >> 4), id = Int(body[i] & 0x0F)
                let size = precision == 0 ? 64 : 128
                guard precision <= 1, id <= 3, body.endIndex - i - 1 >= size else { return nil }
                var table = [Int](repeating: 0, count: 64)
                for k in 0..<64 {
                    let value = precision == 0 ? Int(body[i + 1 + k]) : Int(body[i + 1 + 2 * k]) << 8 | Int(body[i + 2 + 2 * k])
                    table[naturalOrder[k]] = value
                }
                tables[id] = table
                i += 1 + size
            }
        }
        guard let luma = tables[0] else { return nil }
        let chroma = tables[1]
        var best = (quality: 0, error: Int.max)
        for quality in 1...100 {
            let scale = quality < 50 ? 5000 / quality : 200 - 2 * quality
            func error(_ actual: [Int], _ standard: [Int]) -> Int {
                var sum = 0
                for k in 0..<64 {
                    let expected = min(max((standard[k] * scale + 50) / 100, 1), 255)
                    sum += abs(actual[k] - expected)
                }
                return sum
            }
            let total = error(luma, standardLuminance) + (chroma.map { error($0, standardChrominance) } ?? 0)
            if total < best.error { best = (quality, total) }
        }
        return best.quality
    }

    /// The ICC profile of the APP2 "ICC_PROFILE" segments before the first scan, reassembled
    /// in their sequence order. Nil when there are none, or when they do not form one
    /// consistent sequence (same count in each, every number 1...count exactly once).
    public static func iccProfile(_ bytes: [UInt8]) -> [UInt8]? {
        guard let segments = segments(bytes) else { return nil }
        let tag: [UInt8] = Array("ICC_PROFILE".utf8) + [0]
        var chunks: [Int: ArraySlice<UInt8>] = [:]
        var count: Int?
        for (marker, body) in segments where marker == 0xE2 && body.starts(with: tag) {
            let header = body.dropFirst(tag.count)
            guard header.count >= 2 else { return nil }
            let sequence = Int(header[header.startIndex]), total = Int(header[header.startIndex + 1])
            guard total >= 1, sequence >= 1, sequence <= total, count == nil || count == total,
                  chunks[sequence] == nil else { return nil }
            count = total
            chunks[sequence] = header.dropFirst(2)
        }
        guard let count, chunks.count == count else { return nil }
        var profile: [UInt8] = []
        for sequence in 1...count { profile += chunks[sequence]! }
        return profile.isEmpty ? nil : profile
    }

    /// The marker segments before the first scan (SOS) as (marker, body without the length);
    /// nil when the data is not a JPEG or a length runs past the end.
    /// Whether the JPEG's frame header (SOF) has one component: a grayscale JPEG.
    public static func isGrayscale(_ bytes: [UInt8]) -> Bool {
        var components = 0
        walkSegments(bytes) { marker, body in
            guard (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker), body.count >= 6 else { return false }
            components = Int(body[body.startIndex + 5])
            return true
        }
        return components == 1
    }

    static func segments(_ b: [UInt8]) -> [(marker: UInt8, body: ArraySlice<UInt8>)]? {
        var result: [(marker: UInt8, body: ArraySlice<UInt8>)] = []
        guard walkSegments(b, { result.append(($0, $1)); return false }) else { return nil }
        return result
    }

    /// Calls `visit` with each marker segment before the first scan (SOS) or the end (EOI), in
    /// order, until it returns true; false when the data is not a JPEG or a segment's length runs
    /// past the end (segments visited before that were whole). Bounded by the data: every
    /// segment takes at least 4 bytes.
    @discardableResult
    static func walkSegments(_ b: [UInt8], _ visit: (UInt8, ArraySlice<UInt8>) -> Bool) -> Bool {
        guard b.count >= 4, b[0] == 0xFF, b[1] == 0xD8 else { return false }
        var i = 2
        while i + 4 <= b.count {
            guard b[i] == 0xFF else { return false }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }                                    // fill byte
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }  // no length
            if marker == 0xDA || marker == 0xD9 { return true }
            let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard length >= 2, i + 2 + length <= b.count else { return false }
            if visit(marker, b[(i + 4)..<(i + 2 + length)]) { return true }
            i += 2 + length
        }
        return true
    }

    /// Zigzag position k holds the coefficient at natural (row-major) index naturalOrder[k].
    static let naturalOrder: [Int] = [
        0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5,
        12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
        35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
        58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
    ]

    /// The JPEG standard's (Annex K) luminance and chrominance tables, natural order: the
    /// tables libjpeg scales for a quality.
    static let standardLuminance: [Int] = [
        16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55,
        14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51, 87, 80, 62,
        18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
        49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99,
    ]
    static let standardChrominance: [Int] = [
        17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99,
        24, 26, 56, 99, 99, 99, 99, 99, 47, 66, 99, 99, 99, 99, 99, 99,
        99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
        99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99, 99,
    ]
}
