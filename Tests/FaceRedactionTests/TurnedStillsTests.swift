import BlazeFace
import BlazeImageIO
@testable import FaceRedaction
import Testing

/// Stills searched turned (`FaceRedactorOptions.searchesTurnedStills`): a face on its side or
/// upside down, in a photo stored turned, is found and its mask put back where it is.
@Suite struct TurnedStillsTests {
    /// A quarter, half and three-quarter turn of a picture, and a detection in the turned
    /// picture turned back, land on the same pixels.
    @Test(arguments: 1...3)
    func aDetectionTurnedBackLandsWhereItWasFound(_ quarterTurns: Int) throws {
        // A 7x4 picture with one marked pixel at (5, 1).
        var pixels = [UInt8](repeating: 0, count: 7 * 4 * 3)
        pixels[(1 * 7 + 5) * 3] = 255
        let turned = try RGBImage(width: 7, height: 4, pixels: pixels).turnedClockwise(quarterTurns)
        #expect((turned.width, turned.height) == (quarterTurns == 2 ? (7, 4) : (4, 7)))
        let at = try #require((0..<(turned.width * turned.height)).first { turned.pixels[$0 * 3] == 255 })
        let (x, y) = (at % turned.width, at / turned.width)
        // The marked pixel as a box and a keypoint at its centre, normalized to the turned picture.
        let (w, h) = (Float(turned.width), Float(turned.height))
        let found = RawDetection(score: 1, box: NormalizedRect(xMin: Float(x) / w, yMin: Float(y) / h, width: 1 / w, height: 1 / h),
                                 keypoints: KeypointList([((Float(x) + 0.5) / w, (Float(y) + 0.5) / h)]))
        let back = found.turnedBack(quarterTurns)
        let tolerance: Float = 1e-6
        #expect(abs(back.box.xMin - 5 / 7) < tolerance && abs(back.box.yMin - 1 / 4) < tolerance)
        #expect(abs(back.box.width - 1 / 7) < tolerance && abs(back.box.height - 1 / 4) < tolerance)
        #expect(abs(back.keypoints[0].x - 5.5 / 7) < tolerance && abs(back.keypoints[0].y - 1.5 / 4) < tolerance)
        // And the box turned again is the box found (`NormalizedRect.turnedClockwise`).
        let again = back.box.turnedClockwise(quarterTurns)
        #expect(abs(again.xMin - found.box.xMin) < tolerance && abs(again.yMin - found.box.yMin) < tolerance)
        #expect(abs(again.width - found.box.width) < tolerance && abs(again.height - found.box.height) < tolerance)
        // Four quarter turns are none.
        #expect(turned.turnedClockwise(4 - quarterTurns).pixels == pixels)
    }

    /// Upside down, BlazeFace alone misses one of the five faces of `multi_face.png`; searched
    /// turned it is found, where the upright picture has it, and the four found upright keep
    /// their masks exactly.
    @Test func anUpsideDownFaceIsFoundTurnedAndTheOthersKeepTheirMasks() throws {
        let upright = try PNG.read(contentsOf: FaceRedactionTests.images.appendingPathComponent("multi_face.png").path)
        let upsideDown = upright.turnedClockwise(2)
        func redactor(turned: Bool) throws -> FaceRedactor {
            try FaceRedactor(options: FaceRedactorOptions(wideSearch: nil, searchesTurnedStills: turned, runningMode: .image))
        }
        let faces = try redactor(turned: false).faces(inPicture: upright).detections.map(\.relativeBoundingBox)
        #expect(faces.count == 5)
        var plain = upsideDown, searched = upsideDown
        let before = try redactor(turned: false).redactReportingMasks(image: &plain).map(\.box)
        let after = try redactor(turned: true).redactReportingMasks(image: &searched).map(\.box)
        #expect(before.count == 4 && after.count == 5, "\(before.count) then \(after.count)")
        #expect(Array(after.prefix(before.count)) == before, "the faces found upright keep their boxes")
        // Every face of the upright picture, turned upside down, is under a mask.
        for face in faces {
            let turned = NormalizedRect(xMin: 1 - face.xMin - face.width, yMin: 1 - face.yMin - face.height, width: face.width, height: face.height)
            #expect(after.contains { $0.overlapOfSmaller(turned) > 0.5 }, "\(face)")
        }
        #expect(faces.map { face in
            NormalizedRect(xMin: 1 - face.xMin - face.width, yMin: 1 - face.yMin - face.height, width: face.width, height: face.height)
        }.filter { turned in !before.contains { $0.overlapOfSmaller(turned) > 0.5 } }.count == 1, "upright-only leaves one visible")
    }
}
