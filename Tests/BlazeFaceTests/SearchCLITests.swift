import BlazeImageIO
import Foundation
import Testing

/// One search everywhere (issue 39): `detect --search redact` prints exactly the faces `redact`
/// masks in a photo, `track --search redact` the masks of each frame, and `redact --preview`
/// draws them as outlines, hiding nothing.
@Suite(.serialized) struct SearchCLITests {
    static func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("search-cli-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// The fixture of five faces (30 to 85 pixels) halved: MediaPipe's whole-picture search finds
    /// fewer than `redact` masks; `detect --search redact` finds as many as `redact` masks.
    @Test func detectSearchesAsRedactDoes() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let big = try PNG.read(contentsOf: Goldens.root.appendingPathComponent("images/multi_face.png").path)
        let (w, h) = (big.width / 2, big.height / 2)
        var pixels = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h { for x in 0..<w { for c in 0..<3 {
            pixels[3 * (y * w + x) + c] = big.pixels[3 * ((2 * y) * big.width + 2 * x) + c]
        } } }
        let input = dir + "/small.png"
        try PNG.write(try RGBImage(width: w, height: h, pixels: pixels), to: input)
        func count(_ line: String?) -> Int { line.map { $0.components(separatedBy: "\"boundingBox\"").count - 1 } ?? -1 }
        let plain = try CLITests.run(["detect", input])
        let thorough = try CLITests.run(["detect", input, "--search", "redact"])
        let redacted = try CLITests.run(["redact", input, dir + "/out.png"])
        let masked = redacted.stderr.firstMatch(of: /redact: (\d+) face\(s\) masked/).flatMap { Int($0.1) } ?? -1
        #expect(plain.status == 0 && thorough.status == 0 && redacted.status == 0, "\(thorough.stderr) \(redacted.stderr)")
        #expect(count(thorough.lines.first) == masked && masked >= 5, "\(thorough.lines) \(redacted.stderr)")
        #expect(count(plain.lines.first) < masked)
        let refused = try CLITests.run(["detect", input, "--search", "redact", "--tiles", "auto"])
        #expect(refused.status == 64 && refused.stderr.contains("--search redact"), "\(refused.stderr)")
    }

    /// `track --search redact` prints one line per frame with its masks (normalized boxes), and
    /// `redact --preview` draws outlines: the face's middle unchanged, the picture otherwise
    /// changed only along the outlines.
    @Test func trackShowsTheMasksAndPreviewDrawsThem() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let photo = try PNG.read(contentsOf: Goldens.root.appendingPathComponent("images/two_faces_1280x853.png").path)
        let input = dir + "/in.png"
        try PNG.write(photo, to: input)
        // Four frames of the photo as a Y4M (4:4:4 from the PNGs, by ffmpeg).
        let made = try VideoCLITests.sh("ffmpeg", ["-v", "error", "-loop", "1", "-i", input, "-frames:v", "4", "-pix_fmt", "yuv444p",
                                                   "-f", "yuv4mpegpipe", dir + "/clip.y4m"])
        try #require(made.status == 0, "\(made.err)")
        let track = try CLITests.run(["track", dir + "/clip.y4m", "--search", "redact"])
        #expect(track.status == 0 && track.lines.count == 4, "\(track.stderr)")
        for line in track.lines { #expect(line.components(separatedBy: "\"relativeBoundingBox\"").count - 1 == 2, "\(line)") }
        let preview = try CLITests.run(["redact", input, dir + "/preview.png", "--preview"])
        #expect(preview.status == 0, "\(preview.stderr)")
        let drawn = try PNG.read(contentsOf: dir + "/preview.png")
        var changed = 0
        for i in stride(from: 0, to: photo.pixels.count, by: 3) where photo.pixels[i..<i + 3] != drawn.pixels[i..<i + 3] {
            changed += 1
            #expect(drawn.pixels[i..<i + 3] == [255, 255, 255])
        }
        // Two outlines of about 2 pixels along ellipses of 250 to 450 pixels: thousands of pixels, not the faces' areas.
        #expect(changed > 1_000 && changed < 20_000, "\(changed) pixels changed")
    }
}
