import BlazeFace
import BlazeImageIO
import FaceRedaction
import Foundation
import Testing

/// Face anonymisation (issue 26, the library part): the masks, and the redactor on a photo and
/// on frames where the detector loses a face.
@Suite struct FaceRedactionTests {
    static let images = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/images")
    static let weights = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Weights/face_detection_short_range.bin").path

    static func photo() throws -> RGBImage { try PNG.read(contentsOf: images.appendingPathComponent("two_faces_1280x853.png").path) }

    /// Pixels of `a` and `b` that differ, inside and outside the pixel rectangle r.
    static func changed(_ a: RGBImage, _ b: RGBImage, inside r: (x0: Int, y0: Int, x1: Int, y1: Int)) -> (inside: Int, outside: Int) {
        var (inside, outside) = (0, 0)
        for y in 0..<a.height {
            for x in 0..<a.width {
                let i = 3 * (y * a.width + x)
                guard a.pixels[i..<i + 3] != b.pixels[i..<i + 3] else { continue }
                if (r.x0..<r.x1).contains(x) && (r.y0..<r.y1).contains(y) { inside += 1 } else { outside += 1 }
            }
        }
        return (inside, outside)
    }

    /// Each mode changes the pixels of the scaled box and nothing outside it; solid is black; an
    /// ellipse leaves the box's corners as they were; blur leaves little of the face's detail.
    @Test(arguments: RedactionOptions.Mode.allCases)
    func masksStayInTheirBox(_ mode: RedactionOptions.Mode) throws {
        let image = try Self.photo()
        let box = NormalizedRect(xMin: 0.2, yMin: 0.4, width: 0.2, height: 0.3)
        for ellipse in [true, false] {
            var masked = image
            FaceMask.apply(to: &masked, boxes: [box], options: RedactionOptions(mode: mode, ellipse: ellipse, maskScale: 1))
            let r = (x0: 256, y0: 341, x1: 512, y1: 598)   // the box in pixels (y 341.2 to 597.2), rounded outwards
            let c = Self.changed(image, masked, inside: r)
            #expect(c.outside == 0 && c.inside > 10_000, "\(mode) ellipse \(ellipse): \(c)")
            let corner = 3 * ((r.y0 + 2) * image.width + r.x0 + 2)
            #expect(ellipse == (masked.pixels[corner..<corner + 3] == image.pixels[corner..<corner + 3]), "\(mode) corner")
            if mode == .solid {
                let centre = 3 * (469 * image.width + 384)
                #expect(masked.pixels[centre..<centre + 3] == [0, 0, 0])
            }
        }
        if mode == .blur {
            // Neighbouring pixels inside the mask differ far less than in the face.
            var masked = image
            FaceMask.apply(to: &masked, boxes: [box], options: RedactionOptions(mode: .blur, ellipse: false, maskScale: 1))
            func roughness(_ im: RGBImage) -> Double {
                var total = 0.0
                for y in 400..<540 { for x in 300..<460 { total += abs(Double(im.pixels[3 * (y * im.width + x)]) - Double(im.pixels[3 * (y * im.width + x + 1)])) } }
                return total
            }
            #expect(roughness(masked) < roughness(image) / 4)
        }
    }

    /// The redactor masks both faces of the photo (1.3 times their boxes) and nothing far away.
    @Test func redactsEveryFaceOfThePhoto() throws {
        let image = try Self.photo()
        let faces = try FaceDetector(options: FaceDetectorOptions(weightsPath: Self.weights)).detect(image: image).detections
        #expect(faces.count == 2)
        var masked = image
        let redactor = try FaceRedactor(detectorOptions: FaceDetectorOptions(weightsPath: Self.weights), tiled: false)
        #expect(try redactor.redact(image: &masked) == 2)
        for face in faces {
            let b = face.boundingBox
            let c = Self.changed(image, masked, inside: (b.originX, b.originY, b.originX + b.width, b.originY + b.height))
            #expect(c.inside > b.width * b.height / 2)
        }
        let corner = 3 * (5 * image.width + 5)
        #expect(masked.pixels[corner..<corner + 3] == image.pixels[corner..<corner + 3])
    }

    /// A face the detector loses (a frame with the faces painted over) stays masked for `linger`
    /// frames at its predicted place, then no longer; the summary counts the bridged masks.
    /// Solid masks, which show on the flat grey frame; untiled, to keep the debug build quick.
    @Test func lostFacesLingerThenGo() throws {
        let image = try Self.photo()
        var blank = image
        for i in stride(from: 0, to: blank.pixels.count, by: 3) { (blank.pixels[i], blank.pixels[i + 1], blank.pixels[i + 2]) = (90, 90, 90) }
        let redactor = try FaceRedactor(detectorOptions: FaceDetectorOptions(weightsPath: Self.weights),
                                        options: RedactionOptions(mode: .solid), linger: 2, tiled: false)
        var frame = image
        #expect(try redactor.redact(frame: &frame, timestampInMilliseconds: 0) == 2)
        var drawn: [Int] = []
        for t in 1...4 {
            var f = blank
            drawn.append(try redactor.redact(frame: &f, timestampInMilliseconds: t * 33))
            let black = stride(from: 0, to: f.pixels.count, by: 3).filter { f.pixels[$0] == 0 }.count
            if t <= 2 { #expect(black > 50_000, "frame \(t): \(black) masked pixels") } else { #expect(black == 0, "frame \(t)") }
        }
        #expect(drawn == [2, 2, 0, 0])
        #expect(redactor.lingeringMasks == 4 && redactor.facesMasked == 2)
    }

    @Test func badOptionsAreRefused() {
        #expect(throws: DetectorError.self) { _ = try FaceRedactor(options: RedactionOptions(maskScale: 0.5)) }
        #expect(throws: DetectorError.self) { _ = try FaceRedactor(options: RedactionOptions(maskScale: .nan)) }
        #expect(throws: DetectorError.self) { _ = try FaceRedactor(linger: -1) }
    }
}
