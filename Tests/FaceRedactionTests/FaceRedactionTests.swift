import BlazeFace
import BlazeImageIO
import CenterFaceNet
@testable import FaceRedaction
import Foundation
import Synchronization
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

    /// A flat card for `.image`: (0, 200, 100) everywhere.
    static let card = try! RGBImage(width: 3, height: 2, pixels: [UInt8](repeating: 0, count: 18).enumerated().map { [0, 200, 100][$0.offset % 3] })

    /// Each mode changes the pixels of the scaled box and nothing outside it; solid is black, an
    /// image its picture; an ellipse leaves the box's corners as they were; blur leaves little of
    /// the face's detail.
    @Test(arguments: RedactionOptions.Mode.allCases.filter { $0 != .outline })
    func masksStayInTheirBox(_ mode: RedactionOptions.Mode) throws {
        let image = try Self.photo()
        let box = NormalizedRect(xMin: 0.2, yMin: 0.4, width: 0.2, height: 0.3)
        for ellipse in [true, false] {
            var masked = image
            FaceMask.apply(to: &masked, boxes: [box], options: RedactionOptions(mode: mode, ellipse: ellipse, maskScale: 1,
                                                                                 replacement: mode == .image ? Self.card : nil))
            let r = (x0: 256, y0: 341, x1: 512, y1: 598)   // the box in pixels (y 341.2 to 597.2), rounded outwards
            let c = Self.changed(image, masked, inside: r)
            #expect(c.outside == 0 && c.inside > 10_000, "\(mode) ellipse \(ellipse): \(c)")
            let corner = 3 * ((r.y0 + 2) * image.width + r.x0 + 2)
            #expect(ellipse == (masked.pixels[corner..<corner + 3] == image.pixels[corner..<corner + 3]), "\(mode) corner")
            if mode == .solid || mode == .image {
                let centre = 3 * (469 * image.width + 384)
                #expect(masked.pixels[centre..<centre + 3] == (mode == .solid ? [0, 0, 0] : [0, 200, 100]))
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

    /// The three verbs, one per running mode: a live stream (`redactAsync`) redacts each frame as
    /// the video verb does, and delivers the masked copy with its masks in timestamp order, to
    /// the handler and to `liveStreamResults`; a live redactor refuses the still and video verbs,
    /// an image one the video and live verbs, a video one a handler.
    @Test func aLiveStreamIsRedactedAsVideo() async throws {
        let photo = try Self.photo()
        // A pan over the photo: 1216x720 windows, 16 pixels apart.
        var frames: [RGBImage] = []
        for i in 0..<4 {
            var pixels: [UInt8] = []
            for y in 0..<720 {
                let start: Int = 3 * (y * photo.width + 16 * i)
                pixels += photo.pixels[start..<(start + 3 * 1216)]
            }
            frames.append(try RGBImage(width: 1216, height: 720, pixels: pixels))
        }
        let detector = FaceDetectorOptions(weightsPath: Self.weights, threadPool: ThreadPool(threads: 2))
        let handled = Mutex<[Int]>([])
        let live = try FaceRedactor(options: .init(detectorOptions: detector, runningMode: .liveStream,
                                                   liveStreamHandler: { r in handled.withLock { $0.append(r.timestampInMilliseconds) } }))
        var picture = frames[0]
        #expect(throws: VisionTaskError.wrongRunningMode(called: "redact(image:)", mode: .liveStream)) { try live.redact(image: &picture) }
        #expect(throws: VisionTaskError.wrongRunningMode(called: "redact(frame:timestampInMilliseconds:)", mode: .liveStream)) {
            try live.redact(frame: &picture, timestampInMilliseconds: 0)
        }
        let still = try FaceRedactor(options: .init(detectorOptions: detector, runningMode: .image))
        #expect(throws: VisionTaskError.wrongRunningMode(called: "redact(frame:timestampInMilliseconds:)", mode: .image)) {
            try still.redact(frame: &picture, timestampInMilliseconds: 0)
        }
        #expect(throws: VisionTaskError.wrongRunningMode(called: "redactAsync(image:timestampInMilliseconds:)", mode: .image)) {
            try still.redactAsync(image: picture, timestampInMilliseconds: 0)
        }
        #expect(throws: VisionTaskError.self) { try FaceRedactor(options: .init(detectorOptions: detector, liveStreamHandler: { _ in })) }
        #expect(picture == frames[0], "nothing was masked by a refused call")

        let streamed = Task {
            var out: [TimestampedResult<RedactedFrame>] = []
            for await r in live.liveStreamResults { out.append(r) }
            return out
        }
        for (i, frame) in frames.enumerated() {
            try live.redactAsync(image: frame, timestampInMilliseconds: i * 33)
            for _ in 0..<60_000 where live.deliveredResultCount + live.droppedFrameCount <= i { try await Task.sleep(nanoseconds: 1_000_000) }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        live.close()
        #expect(throws: VisionTaskError.closed) { try live.redactAsync(image: frames[0], timestampInMilliseconds: 100_000) }
        let results = await streamed.value
        #expect(results.count == live.deliveredResultCount && results.count + live.droppedFrameCount == frames.count)
        #expect(results.count >= frames.count / 2)
        #expect(results.map(\.timestampInMilliseconds) == handled.withLock { $0 })
        let video = try FaceRedactor(options: .init(detectorOptions: detector))
        for r in results {
            let t = r.timestampInMilliseconds
            var expected = frames[t / 33]
            let masks: [RedactionMask] = try video.masks(inVideoFrame: expected, timestampInMilliseconds: t)
            FaceMask.apply(to: &expected, boxes: masks.map { $0.box }, options: video.options.mask)
            let got = try r.result.get()
            #expect(masks.count == 2 && got.masks == masks, "both faces, at \(t) ms")
            #expect(got.image == expected && got.image != frames[t / 33])
        }
        #expect(live.statistics == video.statistics)
    }

    /// The redactor masks both faces of the photo (1.3 times their boxes) and nothing far away.
    @Test func redactsEveryFaceOfThePhoto() throws {
        let image = try Self.photo()
        let faces = try FaceDetector(options: FaceDetectorOptions(weightsPath: Self.weights)).detect(image: image).detections
        #expect(faces.count == 2)
        var masked = image
        let redactor = try FaceRedactor(options: .init(detectorOptions: FaceDetectorOptions(weightsPath: Self.weights), tiling: .off))
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
        let redactor = try FaceRedactor(options: .init(detectorOptions: FaceDetectorOptions(weightsPath: Self.weights),
                                                       mask: RedactionOptions(mode: .solid), linger: 2, tiling: .off))
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
        #expect(redactor.statistics.lingeringMasks == 4 && redactor.statistics.facesMasked == 2)
    }

    /// A mask is computed per channel, whatever the layout holds it: blur and pixelate give the
    /// same bytes in an RGB image, in an RGBA and a BGRA buffer (alpha untouched), and in the
    /// chroma pairs of NV12 as in I420's separate planes, over an ellipse and a box cut by the
    /// picture's edge.
    @Test(arguments: [RedactionOptions.Mode.blur, .pixelate])
    func everyLayoutIsMaskedAlike(_ mode: RedactionOptions.Mode) throws {
        let image = try Self.photo()
        let (w, h) = (image.width, image.height)
        let boxes = [NormalizedRect(xMin: 0.2, yMin: 0.4, width: 0.2, height: 0.3), NormalizedRect(xMin: 0.9, yMin: -0.05, width: 0.3, height: 0.2)]
        for ellipse in [true, false] {
            let options = RedactionOptions(mode: mode, ellipse: ellipse)
            var rgb = image
            FaceMask.apply(to: &rgb, boxes: boxes, options: options)
            for (format, order) in [(PixelFormat.rgba, [0, 1, 2]), (.bgra, [2, 1, 0])] {
                var bytes = [UInt8](repeating: 0, count: 4 * w * h)
                for i in 0..<(w * h) {
                    for k in 0..<3 { bytes[4 * i + k] = image.pixels[3 * i + order[k]] }
                    bytes[4 * i + 3] = UInt8(truncatingIfNeeded: i)
                }
                try bytes.withUnsafeMutableBytes { p in
                    FaceMask.apply(to: try PixelBuffer(format: format, width: w, height: h, bytes: UnsafeRawBufferPointer(p)), boxes: boxes, options: options)
                }
                let same = (0..<(w * h)).allSatisfy { i in
                    (0..<3).allSatisfy { bytes[4 * i + $0] == rgb.pixels[3 * i + order[$0]] } && bytes[4 * i + 3] == UInt8(truncatingIfNeeded: i)
                }
                #expect(same, "\(mode) \(format) ellipse \(ellipse)")
            }
            // Chroma: U from red, V from blue, at half size; Y from green.
            let (cw, ch) = ((w + 1) / 2, (h + 1) / 2)
            var planar = [UInt8](repeating: 0, count: w * h + 2 * cw * ch), paired = [UInt8](repeating: 0, count: w * h + 2 * cw * ch)
            for i in 0..<(w * h) { (planar[i], paired[i]) = (image.pixels[3 * i + 1], image.pixels[3 * i + 1]) }
            for y in 0..<ch {
                for x in 0..<cw {
                    let (u, v) = (image.pixels[3 * (2 * y * w + 2 * x)], image.pixels[3 * (2 * y * w + 2 * x) + 2])
                    (planar[w * h + y * cw + x], planar[w * h + cw * ch + y * cw + x]) = (u, v)
                    (paired[w * h + 2 * (y * cw + x)], paired[w * h + 2 * (y * cw + x) + 1]) = (u, v)
                }
            }
            try planar.withUnsafeMutableBytes { p in
                let f = UnsafeRawBufferPointer(p)
                FaceMask.apply(to: try PixelBuffer(i420: UnsafeRawBufferPointer(rebasing: f[0..<(w * h)]), yStride: w,
                                                   u: UnsafeRawBufferPointer(rebasing: f[(w * h)..<(w * h + cw * ch)]), uStride: cw,
                                                   v: UnsafeRawBufferPointer(rebasing: f[(w * h + cw * ch)...]), vStride: cw, width: w, height: h),
                               boxes: boxes, options: options)
            }
            try paired.withUnsafeMutableBytes { p in
                let f = UnsafeRawBufferPointer(p)
                FaceMask.apply(to: try PixelBuffer(biPlanar: .nv12, y: UnsafeRawBufferPointer(rebasing: f[0..<(w * h)]), yStride: w,
                                                   chroma: UnsafeRawBufferPointer(rebasing: f[(w * h)...]), chromaStride: 2 * cw, width: w, height: h),
                               boxes: boxes, options: options)
            }
            #expect(planar[0..<(w * h)] == paired[0..<(w * h)], "\(mode) luma, ellipse \(ellipse)")
            let chromaSame = (0..<(cw * ch)).allSatisfy { i in
                planar[w * h + i] == paired[w * h + 2 * i] && planar[w * h + cw * ch + i] == paired[w * h + 2 * i + 1]
            }
            #expect(chromaSame, "\(mode) chroma, ellipse \(ellipse)")
            #expect((0..<(w * h)).contains { planar[$0] != image.pixels[3 * $0 + 1] }, "the luma was masked")
        }
    }

    /// A caller's I420 buffer is masked in its own planes: inside the mask, solid is Y 16 and
    /// chroma 128 (limited range); every byte outside the mask's rectangle keeps its value. The
    /// redactor finds and masks both faces of the photo sampled from the planes.
    @Test func pixelBuffersAreMaskedInTheirPlanes() throws {
        let image = try Self.photo()
        let (w, h) = (image.width, image.height)
        let (cw, ch) = ((w + 1) / 2, (h + 1) / 2)
        // A rough BT.601 conversion: what matters is that the planes hold a picture.
        var planes = [UInt8](repeating: 128, count: w * h + 2 * cw * ch)
        for i in 0..<(w * h) {
            let (r, g, b) = (Int(image.pixels[3 * i]), Int(image.pixels[3 * i + 1]), Int(image.pixels[3 * i + 2]))
            planes[i] = UInt8(16 + (66 * r + 129 * g + 25 * b + 128) / 256)
        }
        let original = planes
        let box = NormalizedRect(xMin: 0.2, yMin: 0.4, width: 0.2, height: 0.3)
        try planes.withUnsafeMutableBytes { p in
            let f = UnsafeRawBufferPointer(p)
            let buffer = try PixelBuffer(i420: UnsafeRawBufferPointer(rebasing: f[0..<(w * h)]), yStride: w,
                                         u: UnsafeRawBufferPointer(rebasing: f[(w * h)..<(w * h + cw * ch)]), uStride: cw,
                                         v: UnsafeRawBufferPointer(rebasing: f[(w * h + cw * ch)...]), vStride: cw, width: w, height: h)
            FaceMask.apply(to: buffer, boxes: [box], options: RedactionOptions(mode: .solid, maskScale: 1))
        }
        #expect(planes[469 * w + 384] == 16 && planes[w * h + 234 * cw + 192] == 128)
        var outside = 0
        for y in 0..<h { for x in 0..<w where !((256..<512).contains(x) && (341..<598).contains(y)) { outside += planes[y * w + x] != original[y * w + x] ? 1 : 0 } }
        #expect(outside == 0)
        #expect(planes[(w * h)...] == original[(w * h)...], "the chroma was 128 everywhere, and solid chroma is 128")

        // A picture over the mask: the card's colour in limited-range BT.709 (the frame is 853
        // lines tall), 8-bit matrix: Y 145.0, Cb 104.2, Cr 44.2.
        planes = original
        try planes.withUnsafeMutableBytes { p in
            let f = UnsafeRawBufferPointer(p)
            let buffer = try PixelBuffer(i420: UnsafeRawBufferPointer(rebasing: f[0..<(w * h)]), yStride: w,
                                         u: UnsafeRawBufferPointer(rebasing: f[(w * h)..<(w * h + cw * ch)]), uStride: cw,
                                         v: UnsafeRawBufferPointer(rebasing: f[(w * h + cw * ch)...]), vStride: cw, width: w, height: h)
            FaceMask.apply(to: buffer, boxes: [box], options: RedactionOptions(mode: .image, maskScale: 1, replacement: Self.card))
        }
        #expect(planes[469 * w + 384] == 145 && planes[w * h + 234 * cw + 192] == 104 && planes[w * h + cw * ch + 234 * cw + 192] == 44)
        outside = 0
        for y in 0..<h { for x in 0..<w where !((256..<512).contains(x) && (341..<598).contains(y)) { outside += planes[y * w + x] != original[y * w + x] ? 1 : 0 } }
        #expect(outside == 0)

        planes = original
        let redactor = try FaceRedactor(options: .init(detectorOptions: FaceDetectorOptions(weightsPath: Self.weights, threadPool: ThreadPool(threads: 2)),
                                                       mask: RedactionOptions(mode: .solid), tiling: .off))
        let drawn = try planes.withUnsafeMutableBytes { p in
            let f = UnsafeRawBufferPointer(p)
            let buffer = try PixelBuffer(i420: UnsafeRawBufferPointer(rebasing: f[0..<(w * h)]), yStride: w,
                                         u: UnsafeRawBufferPointer(rebasing: f[(w * h)..<(w * h + cw * ch)]), uStride: cw,
                                         v: UnsafeRawBufferPointer(rebasing: f[(w * h + cw * ch)...]), vStride: cw, width: w, height: h)
            return try redactor.redact(videoFrame: buffer, timestampInMilliseconds: 0)
        }
        #expect(drawn == 2)
        // The faces' centres (MediaPipe's boxes: 330 px at (60, 228) and 190 px at (880, 130)) are black.
        #expect(planes[(228 + 165) * w + 60 + 165] == 16 && planes[(130 + 95) * w + 880 + 95] == 16)
    }

    /// The look-behind a redactor suggests reaches as far back as a hidden face is held (60
    /// frames), or a tile scan and a linger where those are longer.
    @Test func lookBehindDepthFollowsTheRedactorsOptions() throws {
        #expect(try FaceRedactor(options: .init(detectorOptions: FaceDetectorOptions(weightsPath: Self.weights))).lookBehindDepth == 60)
        let slow = try FaceRedactor(options: .init(detectorOptions: FaceDetectorOptions(weightsPath: Self.weights), linger: 20, scanInterval: 50))
        #expect(slow.lookBehindDepth == 70)
    }

    /// A memory budget bounds the frames a recording holds: the look-behind shrinks to what
    /// fits besides the frames in flight, never past what was asked; nil when not even those fit.
    @Test func lookBehindFitsAMemoryBudget() {
        let frame = 1_000_000, inFlight = RecordingRedactor.framesInFlight
        #expect(RecordingRedactor.lookBehind(fitting: 100 * frame, frameBytes: frame, requested: 60) == 60)
        #expect(RecordingRedactor.lookBehind(fitting: (inFlight + 20) * frame + frame / 2, frameBytes: frame, requested: 60) == 20)
        #expect(RecordingRedactor.lookBehind(fitting: inFlight * frame, frameBytes: frame, requested: 60) == 0)
        #expect(RecordingRedactor.lookBehind(fitting: inFlight * frame - 1, frameBytes: frame, requested: 60) == nil)
        #expect(RecordingRedactor.lookBehind(fitting: -frame, frameBytes: frame, requested: 60) == nil)
    }

    /// Recorded video's look-behind: frames come back `depth + 3` frames later, in order; masks
    /// spread over two frames either side; a face first seen at frame 6, moving right 0.01 a
    /// frame, is masked on the frames before it along its motion run backwards, no further back
    /// than `depth`; a face seen from the start is not.
    @Test func lookBehindMasksTheFramesBeforeAFaceIsFound() throws {
        var window = try LookBehind<Int>(depth: 3)
        var out: [(frame: Int, boxes: [NormalizedRect])] = []
        for f in 0..<10 {
            var masks = [RedactionMask(trackingID: 1, box: NormalizedRect(xMin: 0.1, yMin: 0.1, width: 0.1, height: 0.1), isDetected: true)]
            if f >= 6 {
                masks.append(RedactionMask(trackingID: 2, box: NormalizedRect(xMin: 0.5 + 0.01 * Float(f - 6), yMin: 0.5, width: 0.1, height: 0.1),
                                           isDetected: true))
            }
            if let done = window.push(f, masks: masks) { out.append(done) }
            #expect(out.count == max(0, f - 5))
        }
        out += window.drain()
        #expect(out.map(\.frame) == Array(0..<10))
        #expect(out.map(\.boxes.count) == [1, 1, 1, 2, 2, 2, 2, 2, 2, 2])
        #expect(window.backfilledMasks == 3)
        // Frame 3 is three frames before the face: one box over the face's box there and moved
        // 0.03 to the left, both grown 45% (0.145 wide): from 0.52 - 0.0725 to 0.55 + 0.0725.
        let b = out[3].boxes[1]
        #expect(abs(b.xMin - 0.4475) < 1e-5 && abs(b.width - 0.175) < 1e-5 && abs(b.height - 0.145) < 1e-5)
        // Frame 7's mask of the moving face spreads over its boxes two frames either side
        // (frames 6 to 9 here, the face appearing at 6): from 0.50 to 0.53 + 0.1.
        let spread = out[7].boxes[1]
        #expect(abs(spread.xMin - 0.5) < 1e-5 && abs(spread.width - 0.13) < 1e-5 && abs(spread.height - 0.1) < 1e-5)
        #expect(throws: DetectorError.self) { _ = try LookBehind<Int>(depth: -1) }
    }

    /// The guess before a face was found runs its motion back only as the tracker measures
    /// motion, between sightings of a steady size, and no further back than it was seen. A face
    /// found at 0.03 wide, then at 0.02 (a third smaller, its centre shifted up by 0.01) is
    /// guessed, 10 frames back, about where it was found, not 0.1 further down (issue 39: a head
    /// seen from behind, masked 200 pixels away); a face of steady size seen moving 0.0105 a
    /// frame over 3 frames is guessed along its motion, 3 frames' worth, 10 frames back.
    @Test func theGuessBeforeAFaceWasFoundIgnoresAChangeOfSize() {
        let shrinking: [(index: Int, box: NormalizedRect)] = [
            (10, NormalizedRect(xMin: 0.5, yMin: 0.5, width: 0.03, height: 0.03)),
            (11, NormalizedRect(xMin: 0.505, yMin: 0.495, width: 0.02, height: 0.02)),
        ]
        let still = LookBehind<Int>.extrapolate(shrinking, back: 10)
        // The largest sighting grown 2.5 times (0.075), about the first sighting's centre (0.515).
        #expect(abs(still.width - 0.075) < 1e-6 && abs(still.height - 0.075) < 1e-6)
        #expect(abs(still.xMin - (0.515 - 0.0375)) < 1e-6 && abs(still.yMin - (0.515 - 0.0375)) < 1e-6)
        let moving: [(index: Int, box: NormalizedRect)] = [
            (10, NormalizedRect(xMin: 0.5, yMin: 0.5, width: 0.03, height: 0.03)),
            (11, NormalizedRect(xMin: 0.51, yMin: 0.5, width: 0.031, height: 0.03)),
            (13, NormalizedRect(xMin: 0.531, yMin: 0.5, width: 0.031, height: 0.03)),
        ]
        let run = LookBehind<Int>.extrapolate(moving, back: 10)
        // The centres move 0.0315 in 3 frames: from the first (0.515) back to 0.4835 (3 frames'
        // worth, not 10), one box over both, each as wide as the widest sighting grown 2.5 times (0.0775).
        #expect(abs(run.xMin - (0.515 - 0.0315 - 0.03875)) < 1e-5 && abs(run.width - (0.0315 + 0.0775)) < 1e-5)
        // 2 frames back, within what was seen: the whole motion (0.021), the box grown 30% (0.0403 wide).
        let near = LookBehind<Int>.extrapolate(moving, back: 2)
        #expect(abs(near.xMin - (0.515 - 0.021 - 0.02015)) < 1e-5 && abs(near.width - (0.021 + 0.0403)) < 1e-5)
    }

    /// The preview (`--preview`): the mask's outline in white, 2 pixels wide, and nothing else
    /// changed: the face inside stays as it was (issue 39).
    @Test func theOutlineShowsTheMaskAndHidesNothing() throws {
        let image = try Self.photo()
        let box = NormalizedRect(xMin: 0.2, yMin: 0.4, width: 0.2, height: 0.3)
        for ellipse in [true, false] {
            var drawn = image
            FaceMask.apply(to: &drawn, boxes: [box], options: RedactionOptions(mode: .outline, ellipse: ellipse, maskScale: 1))
            let r = (x0: 256, y0: 341, x1: 512, y1: 598)
            let c = Self.changed(image, drawn, inside: r)
            // About 2 pixels along the edge: the ellipse's perimeter is about 800 pixels, the box's 1026.
            #expect(c.outside == 0 && c.inside > 1_000 && c.inside < 2 * 2 * 1026, "ellipse \(ellipse): \(c)")
            // The middle of the box is untouched, and the edge is white.
            let centre = 3 * (469 * image.width + 384)
            #expect(drawn.pixels[centre..<centre + 3] == image.pixels[centre..<centre + 3])
            let edge = 3 * (469 * image.width + 257)
            #expect(drawn.pixels[edge..<edge + 3] == [255, 255, 255], "ellipse \(ellipse)")
        }
    }

    /// A face found late is followed back through the waiting frames (issue 39): where the
    /// retrace finds it, its mask is its box there, not a guess; the frames before the trace lost
    /// it get the guess from the earliest boxes followed, moving as the face really moved. Here
    /// the face walks right 0.02 a frame from frame 0 but is detected only from frame 8; the
    /// retrace (the face's true box) sees it from frame 3 on.
    @Test func aFaceFoundLateIsFollowedBack() throws {
        func truth(_ f: Int) -> NormalizedRect { NormalizedRect(xMin: 0.1 + 0.02 * Float(f), yMin: 0.4, width: 0.1, height: 0.1) }
        var asked: [Int] = []
        var window = try LookBehind<Int>(depth: 10) { frame, near in
            asked.append(frame)
            // The face is found near the box of the frame after (it moves 0.02 a frame), from frame 3.
            let t = truth(frame)
            return frame >= 3 && abs(t.xMin - near.xMin) < 0.05 ? t : nil
        }
        var out: [(frame: Int, boxes: [NormalizedRect])] = []
        for f in 0..<16 {
            let masks = f >= 8 ? [RedactionMask(trackingID: 4, box: truth(f), isDetected: true)] : []
            if let done = window.push(f, masks: masks) { out.append(done) }
        }
        out += window.drain()
        // Followed back from 8 to 3; frames 2, 1 and 0 missed (the third miss stops it).
        #expect(asked == [7, 6, 5, 4, 3, 2, 1, 0])
        #expect(window.retracedMasks == 5)
        for f in 3..<8 {
            // Its own box there, spread over its neighbours' (two frames either side): on the face, and about its size.
            let b = try #require(out[f].boxes.first)
            let t = truth(f)
            #expect(b.xMin <= t.xMin + 1e-6 && b.xMin + b.width >= t.xMin + t.width - 1e-6 && b.width <= 0.1 + 4 * 0.02 + 1e-6, "frame \(f): \(b)")
        }
        // Frames 0 to 2: a guess from frame 3's box, moved back along the traced motion (+0.02 a
        // frame), which still holds the face where it truly was.
        for f in 0..<3 {
            let t = truth(f)
            #expect(out[f].boxes.contains { $0.xMin <= t.xMin && $0.xMin + $0.width >= t.xMin + t.width }, "frame \(f): \(out[f].boxes)")
        }
    }

    /// The retrace's search: the face nearest a box, found in a square twice its side about it;
    /// nil where no face is near (issue 39).
    @Test func theFaceNearABoxIsFoundInACloseUp() throws {
        let photo = try Self.photo()
        let redactor = try FaceRedactor(options: .init(detectorOptions: FaceDetectorOptions(weightsPath: Self.weights)))
        // The right face (the detector's box on the whole photo), given a box shifted by a fifth of its side.
        let whole = try FaceDetector(options: FaceDetectorOptions(weightsPath: Self.weights)).detect(image: photo).detections
        let face = try #require(whole.map(\.relativeBoundingBox).max { $0.xMin < $1.xMin })
        let near = NormalizedRect(xMin: face.xMin + face.width / 5, yMin: face.yMin - face.height / 5, width: face.width, height: face.height)
        let found = try #require(try redactor.face(near: near, in: photo))
        // CenterFace's box (taller than BlazeFace's square, over the forehead and chin) on the same face.
        #expect(found.intersectionOverUnion(face) > 0.5, "\(found) for \(face)")
        // An empty corner of the sky.
        #expect(try redactor.face(near: NormalizedRect(xMin: 0.45, yMin: 0.0, width: 0.05, height: 0.05), in: photo) == nil)
    }

    /// A face found again after frames the detector missed it (masked at its predicted place
    /// meanwhile) is also masked along its new motion run backwards over those frames, and only
    /// those: not over the frames it was detected in before.
    @Test func lookBehindMasksTheGapBeforeAFaceIsFoundAgain() throws {
        var window = try LookBehind<Int>(depth: 6)
        var out: [(frame: Int, boxes: [NormalizedRect])] = []
        for f in 0..<14 {
            let found = f < 4 || f >= 8
            let box = NormalizedRect(xMin: 0.2 + 0.01 * Float(f), yMin: 0.4, width: 0.1, height: 0.1)
            if let done = window.push(f, masks: [RedactionMask(trackingID: 1, box: box, isDetected: found)]) { out.append(done) }
        }
        out += window.drain()
        #expect(out.map(\.boxes.count) == [1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 1, 1, 1, 1])
        #expect(window.backfilledMasks == 4)
        // Frame 5 is three frames before the face was found again at 0.28: moved back 0.03, grown 45%.
        let b = out[5].boxes[1]
        #expect(abs(b.xMin - (0.25 + 0.05 - 0.0725)) < 1e-5 && abs(b.width - 0.175) < 1e-5)
    }

    /// The end of a recording: a face masked on frames 7 and 8 (detected, then lingering) and
    /// missed on the last, 9, is masked on 9 too, from its last box grown; one that went out of
    /// reach (masked last more than `depth` frames before the end) is not.
    @Test func theLastFramesKeepARecentFaceMasked() throws {
        for (lastMasked, expected) in [(8, 1), (2, 0)] {
            var window = try LookBehind<Int>(depth: 5)
            var out: [(frame: Int, boxes: [NormalizedRect])] = []
            let box = NormalizedRect(xMin: 0.4, yMin: 0.4, width: 0.1, height: 0.1)
            for f in 0..<10 {
                let masks = f <= lastMasked ? [RedactionMask(trackingID: 3, box: box, isDetected: f < lastMasked)] : []
                if let done = window.push(f, masks: masks) { out.append(done) }
            }
            out += window.drain()
            #expect(out.count == 10 && out[9].boxes.count == expected, "masked last on \(lastMasked)")
            #expect(window.endMasks == expected)
            if expected == 1 {
                let b = out[9].boxes[0]
                #expect(b.width > box.width && b.xMin < 0.4 && b.xMin + b.width > 0.5 && b.yMin < 0.4 && b.yMin + b.height > 0.5)
            }
        }
    }

    /// A face last masked while lost (its lingering mask already grown to 2.5 times) is held to
    /// the end over that mask and its detection growing on, never the grown mask grown again.
    @Test func aLostFacesMaskIsNotGrownTwiceAtTheEnd() throws {
        var window = try LookBehind<Int>(depth: 10)
        var out: [(frame: Int, boxes: [NormalizedRect])] = []
        let face = NormalizedRect(xMin: 0.45, yMin: 0.45, width: 0.1, height: 0.1), lingering = face.scaled(by: 2.5)
        for f in 0..<15 {
            let masks = f <= 3 ? [RedactionMask(trackingID: 1, box: face, isDetected: true)]
                : f <= 6 ? [RedactionMask(trackingID: 1, box: lingering, isDetected: false)] : []
            if let done = window.push(f, masks: masks) { out.append(done) }
        }
        out += window.drain()
        #expect(out.count == 15 && window.endMasks == 8)
        for (frame, boxes) in out[7...] {
            let held = try #require(boxes.max { $0.width < $1.width }, "frame \(frame)")
            #expect(held.xMin <= lingering.xMin && held.yMin <= lingering.yMin && held.width >= lingering.width && held.height >= lingering.height)
            #expect(held.width < lingering.width * 1.01 && held.height < lingering.height * 1.01, "frame \(frame): \(held)")
        }
    }

    /// Backfilled masks come in tracking-ID order, whatever order the faces were found in, so
    /// that overlapping masks (blur, pixelate) are drawn the same way on every run.
    @Test func backfilledMasksComeInIDOrder() throws {
        var window = try LookBehind<Int>(depth: 4)
        let boxes = (1...9).map { NormalizedRect(xMin: 0.1 * Float($0), yMin: 0.2, width: 0.05, height: 0.05) }
        var out: [(frame: Int, boxes: [NormalizedRect])] = []
        for f in 0..<6 {
            let masks = f < 3 ? [] : [9, 2, 7, 4, 8, 1, 6, 3].map { RedactionMask(trackingID: $0, box: boxes[$0 - 1], isDetected: true) }
            if let done = window.push(f, masks: masks) { out.append(done) }
        }
        out += window.drain()
        // Frame 1 shows none of the faces, which appear at frame 3: its boxes are backfilled ones.
        let centres = out[1].boxes.map { $0.xMin + $0.width / 2 }
        #expect(centres.count == 8 && centres == centres.sorted())
    }

    /// Over `scanInterval` frames every tile is searched exactly once, each frame's share spread
    /// over the picture.
    @Test func tilesAreSharedOutOverTheScanInterval() throws {
        let regions = try #require(TilingOptions.automatic(width: 1280, height: 720, model: .shortRange)).regions(width: 1280, height: 720)
        let shares = (0..<8).map { FaceRedactor.share(of: regions, part: $0, parts: 8) }
        #expect(shares.flatMap { $0 }.count == regions.count)
        #expect(Set(shares.flatMap { $0 }.map { "\($0)" }).count == regions.count)
        #expect(shares.allSatisfy { abs($0.count - regions.count / 8) <= 1 })
    }

    /// CenterFace's round of regions takes at most `scanPeriod` (360 ms) in video (issue 39: at 10
    /// frames/s people walking past show their faces for about ten frames): 8 frames at 24, 25,
    /// 30 and 50 frames/s, 5 at 15, 3 at 10, 2 at 6, 1 at 2; timestamps that do not advance keep 8.
    @Test func centerFacesRoundTakesAtMostAThirdOfASecond() {
        let search = WideSearch()
        let steps = [42, 40, 33, 20, 67, 100, 167, 500, 0, -40]
        #expect(steps.map(search.scanFrames(frameStep:)) == [8, 8, 8, 8, 5, 3, 2, 1, 8, 8])
        var every3 = WideSearch()
        every3.scanInterval = 3
        #expect(every3.scanFrames(frameStep: 40) == 3 && every3.scanFrames(frameStep: 167) == 2)
    }

    /// A small frame's round costs less than a 1280x720 frame's spread over 8 frames, so it is
    /// done in fewer frames, at no more cost a frame: 480x270 (searched at twice its size and at
    /// its own) every 6 frames, 320x240 every 4; 640x360 and larger keep 8, and the time limit
    /// still applies.
    @Test func aSmallFramesRoundTakesFewerFrames() {
        let search = WideSearch()
        func frames(_ w: Int, _ h: Int, step: Int = 40) -> Int {
            search.scanFrames(frameStep: step, roundPixels: WideSearch.inputPixels(of: search.regions(width: w, height: h), width: w, height: h))
        }
        #expect(WideSearch.inputPixels(of: search.regions(width: 480, height: 270), width: 480, height: 270) == 960 * 540 + 480 * 270)
        let sizes = [(480, 270), (320, 240), (64, 64), (640, 360), (1280, 720), (1920, 1080), (3840, 2160)]
        #expect(sizes.map { frames($0.0, $0.1) } == [6, 4, 1, 8, 8, 8, 8])
        #expect(frames(1280, 720, step: 100) == 3 && frames(480, 270, step: 0) == 6)
    }

    /// A still over 1024 pixels with a face under 24 pixels is searched again at twice its size
    /// in the tile about that face (one tile for faces close together); a larger face, or a
    /// picture searched at twice its size already, adds nothing.
    @Test func aCrowdsSmallestFacesAreLookedBehindAtTwiceTheSize() {
        let search = WideSearch()
        func face(_ x: Float, _ y: Float, _ side: Float, _ w: Float = 2048, _ h: Float = 1150) -> NormalizedRect {
            NormalizedRect(xMin: x / w, yMin: y / h, width: side / w, height: side / h)
        }
        let tiles = search.refinementRegions(width: 2048, height: 1150, faces: [face(500, 300, 20), face(520, 310, 18), face(1500, 900, 60)])
        #expect(tiles.count == 1)
        if let tile = tiles.first {
            #expect(tile.scale == 2 && tile.region.width * 2048 * 2 == Float(search.tileSide))
            #expect(tile.region.xMin * 2048 <= 500 && (tile.region.xMin + tile.region.width) * 2048 >= 540)
            #expect(tile.region.yMin * 1150 <= 300 && (tile.region.yMin + tile.region.height) * 1150 >= 328)
        }
        #expect(search.refinementRegions(width: 2048, height: 1150, faces: [face(100, 100, 20), face(1900, 1000, 20)]).count == 2)
        #expect(search.refinementRegions(width: 2048, height: 1150, faces: [face(500, 300, 30)]).isEmpty)
        #expect(search.refinementRegions(width: 1024, height: 768, faces: [face(500, 300, 20, 1024, 768)]).isEmpty)
    }

    /// A still over 1024 pixels whose face is under 24 pixels (the astronaut at a fifth of its
    /// size, its face about 19 pixels, on a 1600x1000 gray picture) is searched once more: the
    /// tile at twice its size about that face. With `refinesBelow` 0 it is not.
    @Test func aStillsSmallFaceAddsTheTileAboutItAtTwiceTheSize() throws {
        let photo = try PNG.read(contentsOf: FaceRedactionTests.images.appendingPathComponent("astronaut.png").path)
        let (f, sw, sh, w, h) = (5, photo.width / 5, photo.height / 5, 1600, 1000)
        var canvas = [UInt8](repeating: 128, count: w * h * 3)
        for y in 0..<sh { for x in 0..<sw { for c in 0..<3 {
            var sum = 0   // the mean of the f x f pixels the small one stands for
            for dy in 0..<f { for dx in 0..<f { sum += Int(photo.pixels[((y * f + dy) * photo.width + x * f + dx) * 3 + c]) } }
            canvas[((400 + y) * w + 600 + x) * 3 + c] = UInt8(sum / (f * f))
        } } }
        let picture = try RGBImage(width: w, height: h, pixels: canvas)
        func searched(refinesBelow: Float) throws -> (faces: Int, regions: Int) {
            var wide = WideSearch()
            wide.refinesBelow = refinesBelow
            let redactor = try FaceRedactor(options: .init(wideSearch: wide, searchesTurnedStills: false, searchesMirroredEdges: false,
                                                           runningMode: .image))
            let faces = try redactor.faces(inPicture: picture).detections.filter { $0.relativeBoundingBox.width * Float(w) < 24 }
            return (faces.count, redactor.statistics.regionsSearched)
        }
        let (plain, refined) = (try searched(refinesBelow: 0), try searched(refinesBelow: 24))
        #expect(plain.faces == 1 && refined.faces == 1)
        #expect(refined.regions == plain.regions + 1)
    }

    /// In video, a 480x270 frame's round (the frame at twice its size, then at its own) comes
    /// every 6 frames, one region a frame, beside BlazeFace's whole frame on every frame.
    @Test func aSmallVideoFramesRoundComesEverySixFrames() throws {
        let redactor = try FaceRedactor(options: .init(searchesTurnedVideo: false, searchesMirroredEdges: false))
        let frame = try RGBImage(width: 480, height: 270, fill: (90, 90, 90))
        var searched: [Int] = []
        for i in 0..<14 {
            let before = redactor.statistics.regionsSearched
            #expect(try redactor.masks(inVideoFrame: frame, timestampInMilliseconds: 40 * i).isEmpty)
            searched.append(redactor.statistics.regionsSearched - before)
        }
        #expect(searched == [3, 2, 1, 1, 1, 1, 2, 2, 1, 1, 1, 1, 2, 2])
    }

    /// CenterFace's pyramid: a small picture at twice its size and at its own, a 720p frame
    /// whole at its own, a 6000-pixel photo in tiles and again whole at a quarter; a 1024-pixel
    /// square in tiles at twice its size, whole at half, and whole at its own last.
    @Test func centerFaceSearchesEveryScaleAndSmallPicturesAlsoAtTheirOwn() throws {
        let search = WideSearch(), whole = NormalizedRect(xMin: 0, yMin: 0, width: 1, height: 1)
        #expect(search.regions(width: 640, height: 360) == [.init(region: whole, scale: 2), .init(region: whole, scale: 1)])
        #expect(search.regions(width: 1280, height: 720) == [.init(region: whole, scale: 1)])
        let large = search.regions(width: 6000, height: 4231)
        #expect(large.count == 35 + 1 && large.dropLast().allSatisfy { $0.scale == 1 } && large.last == .init(region: whole, scale: 0.25))
        let square = search.regions(width: 1024, height: 1024)
        #expect(square.count == 9 + 2 && square.dropLast(2).allSatisfy { $0.scale == 2 })
        #expect(square.suffix(2) == [.init(region: whole, scale: 0.5), .init(region: whole, scale: 1)])
    }

    /// In video a frame searches a share of the tiles, except the first and any frame asked to
    /// search them all (a recording's last). With the wide search (the default), CenterFace's
    /// regions are shared out the same way and take the automatic tiles' place.
    @Test func everyTileIsSearchedOnTheFirstFrameAndWhenAsked() throws {
        func searched(_ redactor: FaceRedactor, _ frame: RGBImage) throws -> [Int] {
            var searched: [Int] = []
            for (i, all) in [false, false, true].enumerated() {
                let before = redactor.statistics.regionsSearched
                #expect(try redactor.masks(inVideoFrame: frame, timestampInMilliseconds: 33 * i, everyTile: all).isEmpty)
                searched.append(redactor.statistics.regionsSearched - before)
            }
            return searched
        }
        // BlazeFace alone: the whole frame and the tiles (no faces: no tracked regions).
        let frame = try RGBImage(width: 400, height: 400, fill: (90, 90, 90))
        let regions = try #require(TilingOptions.automatic(width: 400, height: 400, model: .shortRange)).regions(width: 400, height: 400)
        #expect(regions.count > 8)
        #expect(try searched(FaceRedactor(options: .init(scanInterval: 8, wideSearch: nil)), frame)
                    == [1 + regions.count, 1 + FaceRedactor.share(of: regions, part: 1, parts: 8).count, 1 + regions.count])
        // With CenterFace: the whole frame and CenterFace's regions (a 1700x1700 picture: four
        // tiles, then the whole at a quarter), no BlazeFace tiles; tiles given by size stay. The
        // first frame is also probed for faces turned (`searchesTurnedVideo`): CenterFace's
        // regions of the picture turned three ways (as many, the picture being square); the
        // next probe of a face-free video is 2 s later. The four strips about its mirrored
        // edges (`searchesMirroredEdges`) are shared out over two rounds.
        let large = try RGBImage(width: 1700, height: 1700, fill: (90, 90, 90))
        let wide = WideSearch().regions(width: 1700, height: 1700)
        #expect(wide.count == 5)
        let edges = WideSearch().edgeRegions(width: 1700, height: 1700, margin: FaceRedactor.mirroredEdgeMargin(width: 1700, height: 1700), scale: 0.5)
        #expect(edges.count == 4)
        let edgeShare = FaceRedactor.share(of: edges, part: 1, parts: 16).count
        #expect(try searched(FaceRedactor(options: .init(scanInterval: 8)), large)
                    == [1 + 4 * wide.count + edges.count, 1 + FaceRedactor.share(of: wide, part: 1, parts: 8).count + edgeShare, 1 + wide.count + edges.count])
        #expect(try searched(FaceRedactor(options: .init(scanInterval: 8, searchesTurnedVideo: false, searchesMirroredEdges: false)), large)
                    == [1 + wide.count, 1 + FaceRedactor.share(of: wide, part: 1, parts: 8).count, 1 + wide.count])
        let sized = TilingOptions(tileSizes: [512]).regions(width: 1700, height: 1700)
        #expect(try searched(FaceRedactor(options: .init(scanInterval: 8, tiling: .tileSizes([512]), searchesMirroredEdges: false)), large)
                    == [1 + sized.count + 4 * wide.count,
                        1 + FaceRedactor.share(of: sized, part: 1, parts: 8).count + FaceRedactor.share(of: wide, part: 1, parts: 8).count,
                        1 + sized.count + wide.count])
    }

    /// A tracked face's close-up: a cell of `closeUpSide` (96) showing the face at 48 pixels about
    /// its centre (at most four times, at least a quarter); a face still over half a cell at a
    /// quarter is searched alone, in a square of twice its side cut to the picture; a box far
    /// outside the picture or not finite, not at all.
    @Test func closeUpsShowTheFaceAtTheirSide() throws {
        let search = WideSearch()
        #expect(search.closeUpSide == 96)
        func box(_ x: Float, _ y: Float, _ side: Float) -> NormalizedRect {
            NormalizedRect(xMin: (x - side / 2) / 1280, yMin: (y - side / 2) / 720, width: side / 1280, height: side / 720)
        }
        func cell(_ c: WideSearch.CloseUp?) -> CenterFaceDetector.CloseUp? { if case .cell(let c) = c { c } else { nil } }
        func near(_ a: CenterFaceDetector.CloseUp?, _ x: Float, _ y: Float, _ scale: Float) -> Bool {
            guard let a else { return false }
            return abs(a.centerX - x) < 0.01 && abs(a.centerY - y) < 0.01 && abs(a.scale - scale) < 1e-5
        }
        #expect(near(cell(search.closeUp(around: box(100, 200, 24), width: 1280, height: 720)), 100, 200, 2))
        #expect(near(cell(search.closeUp(around: box(5, 5, 8), width: 1280, height: 720)), 5, 5, 4))
        #expect(near(cell(search.closeUp(around: box(640, 360, 160), width: 1280, height: 720)), 640, 360, 0.3))
        let large = try #require(search.closeUp(around: box(1100, 360, 400), width: 1280, height: 720))
        guard case .region(let region) = large else { Issue.record("a 400-pixel face in a cell: \(large)"); return }
        #expect(region.scale == 0.25)
        #expect(abs(region.region.xMin * 1280 - 700) < 0.01 && abs(region.region.xMin + region.region.width - 1) < 1e-6)
        #expect(abs(region.region.yMin) < 1e-6 && abs(region.region.height - 1) < 1e-6)
        #expect(search.closeUp(around: box(-500, 360, 40), width: 1280, height: 720) == nil)
        #expect(search.closeUp(around: NormalizedRect(xMin: .nan, yMin: 0, width: 0.1, height: 0.1), width: 1280, height: 720) == nil)
    }

    /// A small photo (multi_face.png halved to 320x240: faces 30 to 85 pixels) is searched in
    /// tiles of the model's input: every face is masked, where BlazeFace on the whole frame alone
    /// (the 128-pixel input sees the faces at 12 to 34 pixels) misses the two smallest, and
    /// CenterFace on the whole frame does not. The coffee
    /// photo of the same size, without a face, gets no mask.
    @Test func smallPhotosAreTiledSoEveryFaceIsMasked() throws {
        let big = try PNG.read(contentsOf: Self.images.appendingPathComponent("multi_face.png").path)
        let (w, h) = (big.width / 2, big.height / 2)
        var pixels = [UInt8](repeating: 0, count: w * h * 3)
        for y in 0..<h { for x in 0..<w { for c in 0..<3 {
            let at = { (dx: Int, dy: Int) in Int(big.pixels[3 * ((2 * y + dy) * big.width + 2 * x + dx) + c]) }
            pixels[3 * (y * w + x) + c] = UInt8((at(0, 0) + at(1, 0) + at(0, 1) + at(1, 1) + 2) / 4)
        } } }
        let small = try RGBImage(width: w, height: h, pixels: pixels)
        // The faces' centres: HEAD_BOX crops with faces of 170, 120, 95, 75 and 60 pixels, halved.
        let centres = [(73, 155), (214, 62), (289, 170), (148, 200), (44, 36)]
        func maskedCentres(_ tiling: FaceRedactor.Tiling, wide: WideSearch? = nil) throws -> [Bool] {
            var image = small
            // Upright only: what the tiles add to the whole frame (turned, the whole frame finds more).
            let redactor = try FaceRedactor(options: .init(detectorOptions: FaceDetectorOptions(weightsPath: Self.weights),
                                                           mask: RedactionOptions(mode: .solid), tiling: tiling, wideSearch: wide,
                                                           searchesTurnedStills: false))
            try redactor.redact(image: &image)
            return centres.map { image.pixels[3 * ($0.1 * w + $0.0)..<3 * ($0.1 * w + $0.0) + 3].allSatisfy { $0 == 0 } }
        }
        #expect(try maskedCentres(.automatic) == [true, true, true, true, true])
        #expect(try maskedCentres(.off) == [true, true, true, false, false])
        // CenterFace (the default wide search, the picture at twice its size) finds all five without tiles.
        #expect(try maskedCentres(.off, wide: WideSearch()) == [true, true, true, true, true])
        // The default search (turned too) masks nothing on the coffee photo.
        var coffee = try PNG.read(contentsOf: Self.images.appendingPathComponent("no_face_coffee.png").path)
        #expect(try FaceRedactor(options: .init(detectorOptions: FaceDetectorOptions(weightsPath: Self.weights))).redact(image: &coffee) == 0)
        #expect(throws: DetectorError.self) { _ = try FaceRedactor(options: .init(tiling: .tileSizes([8]))) }
    }

    /// A face never detected at `confirmationScore` is masked on the frames it is detected in,
    /// and only there: not kept once lost (here no score reaches 1, so the photo's two faces stay
    /// unconfirmed; the same frames linger with the default, `lostFacesLingerThenGo`). BlazeFace
    /// alone: CenterFace's own confirmation is `wideSearchConfirmsWhatItFinds`.
    @Test func unconfirmedFacesDoNotLinger() throws {
        let image = try Self.photo()
        let blank = try RGBImage(width: image.width, height: image.height, fill: (90, 90, 90))
        let redactor = try FaceRedactor(options: .init(detectorOptions: FaceDetectorOptions(weightsPath: Self.weights),
                                                       linger: 2, tiling: .off, confirmationScore: 1, wideSearch: nil))
        let first = try redactor.masks(inVideoFrame: image, timestampInMilliseconds: 0)
        #expect(first.count == 2 && first.allSatisfy { $0.isDetected && !$0.isConfirmed })
        #expect(try redactor.masks(inVideoFrame: blank, timestampInMilliseconds: 33).isEmpty)
        #expect(try redactor.masks(inVideoFrame: blank, timestampInMilliseconds: 66).isEmpty)
        #expect(redactor.statistics.lingeringMasks == 0)
        let confirming = try FaceRedactor(options: .init(detectorOptions: FaceDetectorOptions(weightsPath: Self.weights), linger: 2, tiling: .off,
                                                         wideSearch: nil))
        #expect(try confirming.masks(inVideoFrame: image, timestampInMilliseconds: 0).allSatisfy(\.isConfirmed))
        #expect(try confirming.masks(inVideoFrame: blank, timestampInMilliseconds: 33).count == 2)
    }

    /// CenterFace's faces confirm themselves (issue 39): with BlazeFace unable to confirm (a
    /// confirmation score of 1), the photo's two faces, which CenterFace scores over its
    /// confirmation score (0.45), are confirmed on the first frame, and linger once lost.
    @Test func wideSearchConfirmsWhatItFinds() throws {
        let image = try Self.photo()
        let blank = try RGBImage(width: image.width, height: image.height, fill: (90, 90, 90))
        let redactor = try FaceRedactor(options: .init(detectorOptions: FaceDetectorOptions(weightsPath: Self.weights),
                                                       linger: 2, tiling: .off, confirmationScore: 1))
        let first = try redactor.masks(inVideoFrame: image, timestampInMilliseconds: 0)
        #expect(first.count == 2 && first.allSatisfy { $0.isDetected && $0.isConfirmed }, "\(first)")
        #expect(try redactor.masks(inVideoFrame: blank, timestampInMilliseconds: 33).count == 2)
    }

    /// With CenterFace on, BlazeFace's score alone confirms nothing (issue 39: its short-range
    /// model scores the back of a head seen from above 0.7 and more): a face it detects at
    /// `confirmationScore` is confirmed once a close-up finds it with CenterFace too. Frame 0 is
    /// blank (every region searched), frame 1 the photo, whose one region waits for frame 8: only
    /// BlazeFace and the close-ups see its faces. They are confirmed and linger on the blank frame
    /// after; with CenterFace unable to confirm (a confirmation score of 1) they are masked where
    /// detected and nowhere else.
    @Test func blazeFacesAreConfirmedByACenterFaceCloseUp() throws {
        let image = try Self.photo()
        let blank = try RGBImage(width: image.width, height: image.height, fill: (90, 90, 90))
        for (confirmation, confirmed) in [(Float(0.45), true), (1, false)] {
            var wide = WideSearch()
            wide.confirmationScore = confirmation
            let redactor = try FaceRedactor(options: .init(detectorOptions: FaceDetectorOptions(weightsPath: Self.weights),
                                                           linger: 2, tiling: .off, wideSearch: wide))
            #expect(try redactor.masks(inVideoFrame: blank, timestampInMilliseconds: 0).isEmpty)
            let found = try redactor.masks(inVideoFrame: image, timestampInMilliseconds: 33)
            #expect(found.count == 2 && found.allSatisfy { $0.isDetected && $0.isConfirmed == confirmed && ($0.score ?? 0) >= 0.7 }, "\(found)")
            #expect(try redactor.masks(inVideoFrame: blank, timestampInMilliseconds: 66).count == (confirmed ? 2 : 0))
        }
    }

    /// A video detection under `confirmationScore`, of no confirmed face, is masked only if the
    /// second opinion finds a face there too. With `confirmationScore` 0.95 the photo's faces
    /// (0.96 and 0.87) are one confirmed and one not: a second opinion that finds nothing (a score
    /// of 0.99 asked) dismisses the second; the default, the full-range model, finds it (0.88);
    /// `.off` masks it unasked. The confirmed face is masked whatever the second opinion says.
    /// BlazeFace alone (a CenterFace face needs no second opinion).
    @Test func unconfirmedDetectionsNeedASecondOpinion() throws {
        let image = try Self.photo()
        let strict = FaceDetectorOptions(weightsPath: Self.weights, minDetectionConfidence: 0.99)
        func masks(_ opinion: FaceRedactor.SecondOpinion) throws -> (masks: [RedactionMask], dismissed: Int) {
            let redactor = try FaceRedactor(options: .init(detectorOptions: FaceDetectorOptions(weightsPath: Self.weights), tiling: .off,
                                                           confirmationScore: 0.95, secondOpinion: opinion, wideSearch: nil))
            var all: [RedactionMask] = []
            for i in 0..<3 { all = try redactor.masks(inVideoFrame: image, timestampInMilliseconds: 33 * i) }
            return (all, redactor.statistics.detectionsDismissed)
        }
        let dismissed = try masks(.detector(strict))
        #expect(dismissed.masks.count == 1 && dismissed.masks.allSatisfy(\.isConfirmed) && dismissed.dismissed == 3)
        // The confirmed face is the left one (x about 156 of 1280).
        #expect(dismissed.masks.allSatisfy { $0.box.xMin < 0.3 })
        let seconded = try masks(.otherModel)
        #expect(seconded.masks.count == 2 && seconded.dismissed == 0)
        let unasked = try masks(.off)
        #expect(unasked.masks.count == 2 && unasked.dismissed == 0)
        #expect(try FaceRedactor().usesSecondOpinion)
        #expect(try !FaceRedactor(options: .init(secondOpinion: .off)).usesSecondOpinion)
    }

    /// The look-behind neither spreads nor backfills a face that is never confirmed (a palm
    /// taken for a face on frames 6 and 7); a face confirmed on a later frame (its second
    /// sighting) is backfilled as before.
    @Test func lookBehindSkipsUnconfirmedFaces() throws {
        for confirmedLater in [false, true] {
            var window = try LookBehind<Int>(depth: 3)
            var out: [(frame: Int, boxes: [NormalizedRect])] = []
            for f in 0..<14 {  // the end (frame 13) beyond the reach of frame 7: no end masks
                var masks: [RedactionMask] = []
                if (6...7).contains(f) {
                    masks.append(RedactionMask(trackingID: 2, box: NormalizedRect(xMin: 0.5 + 0.01 * Float(f - 6), yMin: 0.5, width: 0.1, height: 0.1),
                                               isDetected: true, isConfirmed: confirmedLater && f == 7))
                }
                if let done = window.push(f, masks: masks) { out.append(done) }
            }
            out += window.drain()
            #expect(out.map(\.boxes.count) == (confirmedLater ? [0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0] : [0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0]))
            #expect(window.backfilledMasks == (confirmedLater ? 3 : 0))
            // Frame 6's mask spreads over frame 7's box once the face is confirmed; unconfirmed, it is its own box.
            #expect(abs(out[6].boxes[0].width - (confirmedLater ? 0.11 : 0.1)) < 1e-6)
        }
    }

    @Test func badOptionsAreRefused() {
        #expect(throws: DetectorError.self) { _ = try FaceRedactor(options: .init(mask: RedactionOptions(maskScale: 0.5))) }
        #expect(throws: DetectorError.self) { _ = try FaceRedactor(options: .init(mask: RedactionOptions(maskScale: .nan))) }
        #expect(throws: DetectorError.self) { _ = try FaceRedactor(options: .init(linger: -1)) }
        #expect(throws: DetectorError.self) { _ = try FaceRedactor(options: .init(scanInterval: 0)) }
        #expect(throws: DetectorError.self) { _ = try FaceRedactor(options: .init(mask: RedactionOptions(mode: .image))) }
    }
}

/// Regions as users write them (`redact --mask-region`, `--keep-region`) and the policy they make.
@Suite struct MaskPolicyTextTests {
    @Test func regionsAreReadInPixelsWithOptionalTimesAndRefusedWithTheirText() throws {
        let timed = try MaskPolicy.PixelRegion(parsing: "100, 50,200,100@1.5-", timed: true)
        #expect(timed == MaskPolicy.PixelRegion(x: 100, y: 50, width: 200, height: 100, from: 1500, to: nil))
        #expect(try MaskPolicy.PixelRegion(parsing: "0,0,10,10@-2", timed: true).to == 2000)
        for (text, timed, says) in [("1,2,3", true, "expected X,Y,W,H"), ("1,2,0,4", false, "W and H above 0"),
                                    ("1,2,3,4@5-1", true, "END is before START"), ("1,2,3,4@1-2", false, "takes no time range"),
                                    ("1,2,3,4@x-2", true, "START-END in seconds")] {
            #expect { try MaskPolicy.PixelRegion(parsing: text, timed: timed) } throws: { "\($0)".hasPrefix(text + ": ") && "\($0)".contains(says) }
        }
        let policy = MaskPolicy(maskRegions: [timed], keptTracks: [3], keptRegions: [try .init(parsing: "0,0,640,360", timed: false)],
                                width: 1280, height: 720)
        #expect(policy.regions == [.init(box: NormalizedRect(xMin: 100.0 / 1280, yMin: 50.0 / 720, width: 200.0 / 1280, height: 100.0 / 720), from: 1500)])
        #expect(policy.keptTracks == [3] && policy.keptRegions == [NormalizedRect(xMin: 0, yMin: 0, width: 0.5, height: 0.5)])
        // Drawn from 1.5 s on, not before.
        #expect(policy.applied(to: [], at: 1000).isEmpty && policy.applied(to: [], at: 1500).map(\.reason) == [.region])
    }
}
