import BlazeFace
import BlazeImageIO
@testable import FaceRedaction
import Testing

/// Videos probed for faces on their side (`FaceRedactorOptions.searchesTurnedVideo`): a clip
/// stored sideways with no rotation flag has its small faces masked from the first frame, and
/// an upright clip is redacted exactly as without the probe.
@Suite struct TurnedVideoTests {
    /// 640x360, gray, with three copies of `multi_face.png` at a fifth of its size: 15 faces of
    /// 18 to 38 pixels.
    static func smallFaces() throws -> RGBImage {
        let photo = try PNG.read(contentsOf: FaceRedactionTests.images.appendingPathComponent("multi_face.png").path)
        let (f, sw, sh) = (5, photo.width / 5, photo.height / 5)
        var canvas = [UInt8](repeating: 128, count: 640 * 360 * 3)
        for (ox, oy) in [(40, 40), (300, 200), (460, 60)] {
            for y in 0..<sh { for x in 0..<sw { for c in 0..<3 {
                var sum = 0   // the mean of the f x f pixels the small one stands for
                for dy in 0..<f { for dx in 0..<f { sum += Int(photo.pixels[((y * f + dy) * photo.width + x * f + dx) * 3 + c]) } }
                canvas[((oy + y) * 640 + ox + x) * 3 + c] = UInt8(sum / (f * f))
            } } }
        }
        return try RGBImage(width: 640, height: 360, pixels: canvas)
    }

    /// The masks of three frames of `frame`, 40 ms apart, in video mode.
    static func masks(of frame: RGBImage, turnedVideo: Bool) throws -> [[NormalizedRect]] {
        let redactor = try FaceRedactor(options: FaceRedactorOptions(searchesTurnedVideo: turnedVideo))
        return try [0, 40, 80].map { t in try redactor.masks(inVideoFrame: frame, timestampInMilliseconds: t).map(\.box) }
    }

    @Test func aClipStoredSidewaysHasItsSmallFacesMaskedFromTheFirstFrame() throws {
        let upright = try Self.smallFaces()
        let faces = try FaceRedactor(options: FaceRedactorOptions(searchesTurnedStills: false, runningMode: .image))
            .faces(inPicture: upright).detections.map(\.relativeBoundingBox)
        #expect(faces.count >= 12, "\(faces.count) faces found upright")
        // Stored a quarter turn clockwise: each face's box where the stored frame has it.
        let sideways = upright.turnedClockwise(1), stored = faces.map { $0.turnedClockwise(1) }
        for (i, frame) in try Self.masks(of: sideways, turnedVideo: true).enumerated() {
            let bare = stored.filter { face in !frame.contains { $0.overlapOfSmaller(face) > 0.5 } }
            #expect(bare.isEmpty, "frame \(i): \(bare.count) of \(stored.count) faces unmasked")
        }
        // Searched only as stored, most are left visible: what the probe is for.
        let plain = try Self.masks(of: sideways, turnedVideo: false)[0]
        #expect(stored.filter { face in plain.contains { $0.overlapOfSmaller(face) > 0.5 } }.count < stored.count / 2)
    }

    @Test func anUprightClipIsRedactedAsWithoutTheProbe() throws {
        let upright = try Self.smallFaces()
        let probed = try Self.masks(of: upright, turnedVideo: true)
        #expect(probed == (try Self.masks(of: upright, turnedVideo: false)))
        #expect(probed.allSatisfy { $0.count >= 12 })
    }
}
