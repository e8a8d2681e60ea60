import BlazeImageIO
import Foundation
import Testing

@testable import BlazeImage

/// The YUV4MPEG2 reader and writer: known conversions, every colour space, round trips,
/// and malformed streams refused with a message (never a trap).
@Suite struct Y4MTests {
    static func stream(_ header: String, frames: [[UInt8]], frameHeader: String = "FRAME") -> [UInt8] {
        Array((header + "\n").utf8) + frames.flatMap { Array((frameHeader + "\n").utf8) + $0 }
    }

    @Test func limitedRangeBlackWhiteAndPrimaries() throws {
        // 2x1 C444: Y, Y, U, U, V, V. Black (16,128,128), white (235,128,128).
        let reader = try Y4MReader(bytes: Self.stream("YUV4MPEG2 W2 H1 F25:1 Ip A1:1 C444", frames: [[16, 235, 128, 128, 128, 128]]))
        #expect(reader.header == Y4MHeader(width: 2, height: 1, frameRateNumerator: 25, frameRateDenominator: 1, colorSpace: .c444))
        let frame = try #require(try reader.nextFrame())
        #expect(frame.pixels == [0, 0, 0, 255, 255, 255])
        #expect(try reader.nextFrame() == nil)
        // BT.601 red: Y 81, Cb 90, Cr 240 (limited range, rounded) comes back within 1.
        let red = try #require(try Y4MReader(bytes: Self.stream("YUV4MPEG2 W1 H1 C444", frames: [[81, 90, 240]])).nextFrame())
        #expect(abs(Int(red.pixels[0]) - 255) <= 1 && red.pixels[1] <= 1 && red.pixels[2] <= 1)
    }

    /// The header's I says whether frames hold two interlaced fields, and which comes first.
    @Test func theFieldOrderIsTheHeaders() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for (tag, order) in [("It", VideoFrame.FieldOrder.topFieldFirst), ("Ib", .bottomFieldFirst), ("Ip", .progressive),
                             ("Im", .progressive), ("", .progressive)] {
            let bytes = Self.stream("YUV4MPEG2 W2 H2 F25:1 \(tag) C420jpeg", frames: [[16, 16, 16, 16, 128, 128]])
            #expect(try Y4MReader(bytes: bytes).header.fieldOrder == order, "\(tag)")
            try Data(bytes).write(to: URL(fileURLWithPath: folder + "/clip.y4m"))
            #expect(try Y4MFrameSource(path: folder + "/clip.y4m").nextFrame()?.fieldOrder == order, "\(tag)")
        }
        // And the writer says it: a redacted interlaced stream stays interlaced.
        for order in [VideoFrame.FieldOrder.topFieldFirst, .bottomFieldFirst, .progressive] {
            var header = Y4MHeader(width: 2, height: 2, frameRateNumerator: 25)
            header.fieldOrder = order
            let path = folder + "/written.y4m"
            try Y4MWriter(path: path, header: header).write(planes: [16, 16, 16, 16, 128, 128])
            #expect(try Y4MFrameSource(path: path).nextFrame()?.fieldOrder == order)
        }
    }

    @Test func fullRangeWhenTheHeaderSaysSo() throws {
        let frame = try #require(try Y4MReader(bytes: Self.stream("YUV4MPEG2 W1 H1 C444 XCOLORRANGE=FULL", frames: [[255, 128, 128]])).nextFrame())
        #expect(frame.pixels == [255, 255, 255])
    }

    /// Each chroma sample covers its block: 3x3 4:2:0 has 2x2 chroma, 4:2:2 has 2x3, mono none.
    @Test(arguments: ["420jpeg", "420paldv", "420mpeg2", "420", "422", "mono"])
    func chromaLayouts(_ space: String) throws {
        let y = [UInt8](repeating: 126, count: 9)
        let chroma: [UInt8]
        switch space {
        case "mono": chroma = []
        case "422": chroma = [200, 128, 200, 128, 200, 128] + [128, 128, 128, 128, 128, 128]
        default: chroma = [200, 128, 200, 128] + [128, 128, 128, 128]
        }
        let frame = try #require(try Y4MReader(bytes: Self.stream("YUV4MPEG2 W3 H3 F30:1 C\(space)", frames: [y + chroma])).nextFrame())
        let blue = space == "mono" ? frame[0, 0].b : frame[0, 2].b
        #expect(frame[2, 2].b == frame[2, 2].r)          // column 2: Cb 128, gray
        if space != "mono" {
            #expect(frame[1, 0].b == blue && frame[1, 2].b == blue && blue > frame[0, 0].r)   // column 0-1: Cb 200, bluish
        }
    }

    @Test func writeThenReadRoundTrips() throws {
        var image = try RGBImage(width: 7, height: 5)
        for y in 0..<5 { for x in 0..<7 { image[x, y] = (UInt8(x * 36), UInt8(y * 60), UInt8((x + y) * 20)) } }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("Y4MTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for space in [Y4MColorSpace.c444, .c420jpeg] {
            let path = folder.appendingPathComponent("\(space).y4m").path
            do {
                let writer = try Y4MWriter(path: path, width: 7, height: 5, frameRateNumerator: 30000, frameRateDenominator: 1001, colorSpace: space)
                try writer.write(image)
                try writer.write(image)
                #expect(throws: ImageError.self) { try writer.write(try RGBImage(width: 3, height: 3)) }
            }
            let reader = try Y4MReader(path: path)
            #expect(reader.header.colorSpace == space && reader.header.frameRateNumerator == 30000)
            #expect(reader.header.timestampInMilliseconds(ofFrame: 3) == 100)
            var frames = 0
            while let frame = try reader.nextFrame() {
                frames += 1
                if space == .c444 {
                    // Quantising Y (1/219 of the range) and Cb, Cr (1/224) costs at most ~2.1 levels per channel.
                    let worst = zip(frame.pixels, image.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
                    #expect(worst <= 2)
                } else {
                    #expect(frame.width == 7 && frame.height == 5)
                }
            }
            #expect(frames == 2)
        }
    }

    @Test(arguments: [
        ("", "empty stream"),
        ("NOTY4M W2 H2", "not a YUV4MPEG2"),
        ("YUV4MPEG2 H2", "lacks W"),
        ("YUV4MPEG2 W0 H2", "bad width"),
        ("YUV4MPEG2 W2 H-1", "bad height"),
        ("YUV4MPEG2 W2 H2 F30:0", "bad frame rate"),
        ("YUV4MPEG2 W2 H2 C420p10", "unsupported colour space"),
        ("YUV4MPEG2 W2 H2 Q7", "unknown header parameter"),
        ("YUV4MPEG2 W99999999999999999999 H2", "bad width"),
    ])
    func badHeadersAreRefused(_ header: String, _ message: String) {
        let bytes = header.isEmpty ? [] : Array((header + "\n").utf8)
        do {
            _ = try Y4MReader(bytes: bytes)
            Issue.record("accepted \(header)")
        } catch {
            #expect(error.description.contains(message), "\(error)")
        }
    }

    @Test func hugeSizesAreRefusedBeforeAllocating() {
        #expect(throws: ImageError.tooLarge(width: 65535, height: 65535, limits: .default)) {
            try Y4MReader(bytes: Array("YUV4MPEG2 W65535 H65535 C444\n".utf8))
        }
        let small = ImageLimits(maxWidth: 64, maxHeight: 64, maxPixels: 1000)
        #expect(throws: ImageError.self) { try Y4MReader(bytes: Array("YUV4MPEG2 W40 H40\n".utf8), limits: small) }
    }

    @Test func brokenFramesAreRefused() throws {
        let truncated = try Y4MReader(bytes: Self.stream("YUV4MPEG2 W2 H2 C444", frames: [[1, 2, 3]]))
        #expect(throws: ImageError.y4m("frame 0 is truncated: 3 of 12 bytes")) { try truncated.nextFrame() }
        let badHeader = try Y4MReader(bytes: Self.stream("YUV4MPEG2 W1 H1 Cmono", frames: [[16]], frameHeader: "FRAMEX"))
        #expect(throws: ImageError.self) { try badHeader.nextFrame() }
        let cut = try Y4MReader(bytes: Array("YUV4MPEG2 W1 H1 Cmono\nFRA".utf8))
        #expect(throws: ImageError.self) { try cut.nextFrame() }
        let endless = [UInt8]("YUV4MPEG2 W1 H1 ".utf8) + [UInt8](repeating: UInt8(ascii: "X"), count: 10_000)
        #expect(throws: ImageError.self) { try Y4MReader(bytes: endless) }
        // Frame parameters after FRAME are allowed and ignored.
        let withParameters = try Y4MReader(bytes: Self.stream("YUV4MPEG2 W1 H1 Cmono", frames: [[16]], frameHeader: "FRAME Ixyz"))
        #expect(try withParameters.nextFrame()?.pixels == [0, 0, 0])
    }

    /// Every byte of a small two-frame stream set to each of a few values: the reader returns
    /// frames or throws, and never traps.
    @Test func noSingleByteCorruptionCrashesTheReader() throws {
        let valid = Self.stream("YUV4MPEG2 W3 H2 F30:1 C420jpeg", frames: [[UInt8](repeating: 100, count: 10), [UInt8](repeating: 50, count: 10)])
        var outcomes = (frames: 0, errors: 0)
        for i in valid.indices {
            for value: UInt8 in [0, 0x0A, 0x20, UInt8(ascii: "9"), UInt8(ascii: "W"), 0xFF] {
                var bytes = valid
                bytes[i] = value
                do {
                    let reader = try Y4MReader(bytes: bytes, limits: ImageLimits(maxWidth: 64, maxHeight: 64, maxPixels: 4096))
                    while let frame = try reader.nextFrame() {
                        #expect(frame.pixels.count == frame.width * frame.height * 3)
                        outcomes.frames += 1
                    }
                } catch {
                    #expect(!error.description.isEmpty)
                    outcomes.errors += 1
                }
            }
        }
        #expect(outcomes.frames > 0 && outcomes.errors > 0)
    }
}
