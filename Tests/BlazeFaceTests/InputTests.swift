import BlazeImageIO
import BlazeFace
import BlazeImage
import Foundation
import Testing

/// Test pictures in other layouts: packed formats with padded rows, YUV 4:2:0, turned copies.
enum Layouts {
    /// `image` packed as `format` (rgb, rgba, bgra or gray from R) with `padding` junk bytes per row.
    static func packed(_ image: RGBImage, _ format: PixelFormat, padding: Int) -> (bytes: [UInt8], stride: Int) {
        let bpp = format.bytesPerPixel, stride = image.width * bpp + padding
        var bytes = [UInt8](repeating: 0xAB, count: stride * image.height)
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image[x, y], o = y * stride + x * bpp
                switch format {
                case .rgb: bytes[o] = p.r; bytes[o + 1] = p.g; bytes[o + 2] = p.b
                case .rgba: bytes[o] = p.r; bytes[o + 1] = p.g; bytes[o + 2] = p.b; bytes[o + 3] = 77
                case .bgra: bytes[o] = p.b; bytes[o + 1] = p.g; bytes[o + 2] = p.r; bytes[o + 3] = 77
                default: bytes[o] = p.r
                }
            }
        }
        return (bytes, stride)
    }

    /// BT.601 limited-range Y, Cb, Cr of an RGB pixel (the usual 8-bit encoder equations).
    static func ycbcr(_ p: (r: UInt8, g: UInt8, b: UInt8)) -> (Int, Int, Int) {
        let (r, g, b) = (Int(p.r), Int(p.g), Int(p.b))
        return (((66 * r + 129 * g + 25 * b + 128) >> 8) + 16, ((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128,
                ((112 * r - 94 * g - 18 * b + 128) >> 8) + 128)
    }

    /// Y plane and chroma (from each 2x2 block's top-left pixel) with padded rows:
    /// I420 gives planes (Y, U, V), NV12/NV21 gives (Y, interleaved, []).
    static func yuv(_ image: RGBImage, _ format: PixelFormat, padding: Int) -> (y: [UInt8], yStride: Int, c1: [UInt8], c2: [UInt8], cStride: Int) {
        let (w, h, cw, ch) = (image.width, image.height, (image.width + 1) / 2, (image.height + 1) / 2)
        let yStride = w + padding, cStride = (format == .i420 ? cw : 2 * cw) + padding
        var Y = [UInt8](repeating: 0xAB, count: yStride * h)
        var c1 = [UInt8](repeating: 0xCD, count: cStride * ch), c2 = format == .i420 ? c1 : []
        for y in 0..<h { for x in 0..<w { Y[y * yStride + x] = UInt8(ycbcr(image[x, y]).0) } }
        for cy in 0..<ch {
            for cx in 0..<cw {
                let (_, u, v) = ycbcr(image[2 * cx, 2 * cy])
                switch format {
                case .i420: c1[cy * cStride + cx] = UInt8(u); c2[cy * cStride + cx] = UInt8(v)
                case .nv12: c1[cy * cStride + 2 * cx] = UInt8(u); c1[cy * cStride + 2 * cx + 1] = UInt8(v)
                default: c1[cy * cStride + 2 * cx] = UInt8(v); c1[cy * cStride + 2 * cx + 1] = UInt8(u)
                }
            }
        }
        return (Y, yStride, c1, c2, cStride)
    }

    /// Runs `body` with a YUV buffer of `image` in `format`.
    static func withYUV<R>(_ image: RGBImage, _ format: PixelFormat, padding: Int, _ body: (PixelBuffer) throws -> R) throws -> R {
        let p = yuv(image, format, padding: padding)
        return try p.y.withUnsafeBytes { y in
            try p.c1.withUnsafeBytes { c1 in
                try p.c2.withUnsafeBytes { c2 in
                    let buffer = format == .i420
                        ? try PixelBuffer(i420: y, yStride: p.yStride, u: c1, uStride: p.cStride, v: c2, vStride: p.cStride,
                                          width: image.width, height: image.height)
                        : try PixelBuffer(biPlanar: format, y: y, yStride: p.yStride, chroma: c1, chromaStride: p.cStride,
                                          width: image.width, height: image.height)
                    return try body(buffer)
                }
            }
        }
    }

    /// Where a normalized point of the upright picture lies in the copy stored so that
    /// `orientation` makes it upright again (the inverse of Pillow's `exif_transpose`).
    static func map(_ x: Float, _ y: Float, _ orientation: ImageOrientation) -> (Float, Float) {
        switch orientation {
        case .right: (y, 1 - x)        // stored turned counter-clockwise
        case .left: (1 - y, x)         // stored turned clockwise
        case .down: (1 - x, 1 - y)
        case .upMirrored: (1 - x, y)
        case .downMirrored: (x, 1 - y)
        case .leftMirrored: (y, x)     // transposed
        case .rightMirrored: (1 - y, 1 - x)
        case .up: (x, y)
        }
    }

    /// The stored copy of an upright image for `orientation`: the EXIF transform that undoes it
    /// (the mirrored ones, and a half turn, undo themselves).
    static func stored(_ upright: RGBImage, _ orientation: ImageOrientation) -> RGBImage {
        switch orientation {
        case .right: upright.applying(.rotated90CounterClockwise)
        case .left: upright.applying(.rotated90Clockwise)
        case .down: upright.applying(.rotated180)
        case .upMirrored: upright.applying(.mirrored)
        case .downMirrored: upright.applying(.flippedVertically)
        case .leftMirrored: upright.applying(.transposed)
        case .rightMirrored: upright.applying(.transversed)
        case .up: upright
        }
    }
}

/// Same faces within `tolerance`: count, scores, normalized boxes and keypoints; upright
/// results mapped through `orientation` first.
func expectSameDetections(_ got: FaceDetectorResult, _ upright: FaceDetectorResult, orientation: ImageOrientation = .up,
                          tolerance: Float = 1e-4, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(got.detections.count == upright.detections.count, sourceLocation: sourceLocation)
    var worst: Float = 0
    for (g, u) in zip(got.detections, upright.detections) {
        worst = max(worst, abs(g.score - u.score))
        for (a, b) in zip(g.keypointList, u.keypointList) {
            let m = Layouts.map(b.x, b.y, orientation)
            worst = max(worst, abs(a.x - m.0), abs(a.y - m.1))
        }
        let r = u.relativeBoundingBox
        let corners = [Layouts.map(r.xMin, r.yMin, orientation), Layouts.map(r.xMin + r.width, r.yMin + r.height, orientation)]
        let box = g.relativeBoundingBox
        worst = max(worst, abs(box.xMin - min(corners[0].0, corners[1].0)), abs(box.yMin - min(corners[0].1, corners[1].1)))
        worst = max(worst, abs(box.xMin + box.width - max(corners[0].0, corners[1].0)),
                    abs(box.yMin + box.height - max(corners[0].1, corners[1].1)))
    }
    #expect(worst <= tolerance, "largest difference \(worst)", sourceLocation: sourceLocation)
}

@Suite(.serialized) struct InputTests {
    static let detector = try! FaceDetector(options: FaceDetectorOptions(weightsPath: Goldens.weights))

    @Test(arguments: [PixelFormat.rgb, .rgba, .bgra], [0, 7])
    func packedBuffersGiveTheImagesTensor(_ format: PixelFormat, padding: Int) throws {
        let image = try Goldens.image("astronaut_223x231")
        let expected = try Self.detector.inputTensor(for: image)
        let (bytes, stride) = Layouts.packed(image, format, padding: padding)
        let got = try bytes.withUnsafeBytes { raw in
            try Self.detector.inputTensor(for: try PixelBuffer(format: format, width: image.width, height: image.height, bytes: raw, rowStride: stride))
        }
        #expect(got.tensor == expected.tensor)
        #expect(got.transform == expected.transform)
    }

    @Test(arguments: [PixelFormat.rgb, .rgba, .bgra, .gray])
    func packedBuffersGiveTheSameDetections(_ format: PixelFormat) throws {
        let image = try Goldens.image(format == .gray ? "astronaut_gray" : "astronaut")
        let expected = try Self.detector.detect(image: image)
        #expect(expected.detections.count == 1)
        let (bytes, stride) = Layouts.packed(image, format, padding: 5)
        let got = try bytes.withUnsafeBytes { raw in
            try Self.detector.detect(image: try PixelBuffer(format: format, width: image.width, height: image.height, bytes: raw, rowStride: stride))
        }
        expectSameDetections(got, expected)
    }

    @Test(arguments: [PixelFormat.i420, .nv12, .nv21])
    func yuvBuffersGiveTheDetectionsOfTheSamePictureAsRGB(_ format: PixelFormat) throws {
        // Odd sides: the last chroma column and row cover one pixel.
        let image = try Goldens.image("astronaut_223x231")
        try Layouts.withYUV(image, format, padding: 3) { buffer in
            let rgb = RGBImage(buffer)   // the same picture, converted once, upright RGB
            #expect(try Self.detector.inputTensor(for: buffer).tensor == (try Self.detector.inputTensor(for: rgb).tensor))
            let expected = try Self.detector.detect(image: rgb)
            #expect(expected.detections.count == 1)
            expectSameDetections(try Self.detector.detect(image: buffer), expected)
        }
    }

    /// The YUV warp kernel (`bf_warp_yuv420_interior`: sixteen pixels at a time where the build
    /// has AVX-512, one at a time near the last rows) against the same picture converted to RGB
    /// first: the same tensor, to the bit, for tiles at 1:1, 2:1 and 3:1 (whole-pixel and
    /// half-pixel taps), a turned crop, the whole picture, and regions at the borders; planes
    /// without padding, so that nothing past them is there to read.
    @Test(arguments: [PixelFormat.i420, .nv12, .nv21], ["astronaut", "astronaut_223x231"])
    func yuvWarpGivesTheTensorOfTheSamePictureAsRGB(_ format: PixelFormat, _ name: String) throws {
        let image = try Goldens.image(name)
        let (w, h) = (Float(image.width), Float(image.height))
        let converter = ImageToTensor(width: 128, height: 128, valueRange: -1...1, keepAspectRatio: true)
        let regions: [RotatedRect?] = [
            nil,
            RotatedRect(centerX: 37 + 64, centerY: 50 + 64, width: 128, height: 128),
            RotatedRect(centerX: w - 64, centerY: h - 64, width: 128, height: 128),
            RotatedRect(centerX: 128, centerY: h - 128, width: 256, height: 256),
            RotatedRect(centerX: w / 2, centerY: h / 2, width: 3 * 70, height: 3 * 70),
            RotatedRect(centerX: 0.45 * w, centerY: 0.4 * h, width: 0.3 * w, height: 0.35 * h, rotation: 0.3),
            RotatedRect(centerX: w - 10, centerY: h - 20, width: 90, height: 90),
        ]
        try Layouts.withYUV(image, format, padding: 0) { buffer in
            let rgb = RGBImage(buffer)
            var got = [Float](repeating: 0, count: 128 * 128 * 3), expected = got
            for region in regions {
                _ = try got.withUnsafeMutableBufferPointer { try converter.convert(buffer, region: region, into: $0) }
                _ = try expected.withUnsafeMutableBufferPointer { try converter.convert(rgb, region: region, into: $0) }
                #expect(got == expected, "\(format) \(name) \(String(describing: region))")
            }
        }
    }

    @Test func yuvToRGBFollowsBT601LimitedRange() {
        #expect(YUVToRGB.rgb(y: 16, cb: 128, cr: 128) == (0, 0, 0))
        #expect(YUVToRGB.rgb(y: 235, cb: 128, cr: 128) == (255, 255, 255))
        #expect(YUVToRGB.rgb(y: 126, cb: 128, cr: 128) == (128, 128, 128))   // (298 * 110 + 128) >> 8 = 128
        // Saturated red encodes as (82, 90, 240); decoding clamps at 255 and rounds G to 1.
        #expect(YUVToRGB.rgb(y: 82, cb: 90, cr: 240) == (255, 1, 0))
        // Out of gamut: R = (-4640 - 52352) >> 8 < 0 -> 0, G = 9284 >> 8 = 36, B = 60892 >> 8 = 237.
        #expect(YUVToRGB.rgb(y: 0, cb: 255, cr: 0) == (0, 36, 237))
    }

    /// Full range (Y4M's XCOLORRANGE=FULL): JPEG's red (76, 85, 255) decodes to (254, 0, 0):
    /// R = (19456 + 45593 + 128) >> 8 = 254, G = 127 >> 8 = 0, B = 62 >> 8 = 0.
    @Test func yuvToRGBFullRange() {
        #expect(YUVToRGB.rgb(y: 0, cb: 128, cr: 128, fullRange: true) == (0, 0, 0))
        #expect(YUVToRGB.rgb(y: 255, cb: 128, cr: 128, fullRange: true) == (255, 255, 255))
        #expect(YUVToRGB.rgb(y: 76, cb: 85, cr: 255, fullRange: true) == (254, 0, 0))
    }

    @Test(arguments: [ImageOrientation.right, .down, .left])
    func orientationGivesTheUprightDetectionsInTheBuffersCoordinates(_ orientation: ImageOrientation) throws {
        // Not square, two faces: the 90-degree cases swap the region's sides as MediaPipe does.
        let upright = try Goldens.image("two_faces_1280x853")
        let expected = try Self.detector.detect(image: upright)
        #expect(expected.detections.count == 2)
        let stored = Layouts.stored(upright, orientation)
        let got = try Self.detector.detect(image: stored, options: ImageProcessingOptions(orientation: orientation))
        expectSameDetections(got, expected, orientation: orientation)
    }

    @Test(arguments: [(PixelFormat.nv12, ImageOrientation.right), (.i420, .left), (.nv21, .down)])
    func orientationWorksOnYUVBuffers(_ format: PixelFormat, _ orientation: ImageOrientation) throws {
        // A camera frame stored turned; the same picture given upright as RGB is its conversion, turned upright.
        let stored = Layouts.stored(try Goldens.image("astronaut_223x231"), orientation)
        try Layouts.withYUV(stored, format, padding: 2) { buffer in
            let upright = RGBImage(buffer).applying(orientation == .right ? .rotated90Clockwise
                                                    : orientation == .left ? .rotated90CounterClockwise : .rotated180)
            let expected = try Self.detector.detect(image: upright)
            #expect(expected.detections.count == 1)
            expectSameDetections(try Self.detector.detect(image: buffer, options: ImageProcessingOptions(orientation: orientation)),
                                 expected, orientation: orientation)
        }
    }

    /// A turned camera frame's letterbox split over three threads (as `detect` splits it) is the
    /// one-thread tensor, bit for bit.
    @Test func pixelBufferTensorOnThreeThreadsIsTheOneThreadTensor() throws {
        let threaded = try FaceDetector(options: FaceDetectorOptions(weightsPath: Goldens.weights, threadPool: ThreadPool(threads: 3)))
        let stored = Layouts.stored(try Goldens.image("two_faces_1280x853"), .right)
        try Layouts.withYUV(stored, .nv12, padding: 2) { buffer in
            let options = ImageProcessingOptions(orientation: .right)
            let one = try Self.detector.inputTensor(for: buffer, options: options)
            let three = try threaded.inputTensor(for: buffer, options: options)
            #expect(three.tensor == one.tensor)
            #expect(three.transform == one.transform)
        }
    }

    /// Mirrored orientations (a front camera's): the stored copy, mirrored as EXIF 2, 4, 5 or
    /// 7 says, gives the upright picture's detections in its own coordinates. The orientation's
    /// EXIF value is the one Pillow's transform undoes: `stored.applying(exif)` is the upright image.
    @Test(arguments: [ImageOrientation.upMirrored, .rightMirrored, .downMirrored, .leftMirrored])
    func mirroredOrientationsGiveTheUprightDetections(_ orientation: ImageOrientation) throws {
        let upright = try Goldens.image("two_faces_1280x853")
        let expected = try Self.detector.detect(image: upright)
        let stored = Layouts.stored(upright, orientation)
        #expect(EXIFOrientation(rawValue: orientation.exifValue).map { stored.applying($0) } == upright)
        let got = try Self.detector.detect(image: stored, options: ImageProcessingOptions(orientation: orientation))
        expectSameDetections(got, expected, orientation: orientation)
    }

    /// Every orientation on a BGRA and an NV12 camera frame: the detections of the frame
    /// converted to RGB and turned upright by Pillow's transform, in the frame's coordinates.
    @Test(arguments: [PixelFormat.bgra, .nv12], ImageOrientation.allCases)
    func everyOrientationWorksOnCameraFrames(_ format: PixelFormat, _ orientation: ImageOrientation) throws {
        let stored = Layouts.stored(try Goldens.image("astronaut_223x231"), orientation)
        let run: (PixelBuffer) throws -> Void = { buffer in
            let upright = RGBImage(buffer).applying(EXIFOrientation(rawValue: orientation.exifValue)!)
            let expected = try Self.detector.detect(image: upright)
            #expect(expected.detections.count == 1)
            expectSameDetections(try Self.detector.detect(image: buffer, options: ImageProcessingOptions(orientation: orientation)),
                                 expected, orientation: orientation)
        }
        if format == .nv12 {
            try Layouts.withYUV(stored, format, padding: 2, run)
        } else {
            let (bytes, stride) = Layouts.packed(stored, format, padding: 3)
            try bytes.withUnsafeBytes { raw in
                try run(try PixelBuffer(format: format, width: stored.width, height: stored.height, bytes: raw, rowStride: stride))
            }
        }
    }

    /// A region of interest on a mirrored frame is turned with it: the same detections as the
    /// upright image with the region turned the same way.
    @Test func regionOfInterestTurnsWithAMirroredFrame() throws {
        let upright = try Goldens.image("two_faces_1280x853")
        let uprightRegion = RegionOfInterest(left: 0.05, top: 0.1, right: 0.55, bottom: 0.9)
        let expected = try Self.detector.detect(image: upright, options: ImageProcessingOptions(regionOfInterest: uprightRegion))
        #expect(expected.detections.count == 1)
        let stored = Layouts.stored(upright, .upMirrored)
        let storedRegion = RegionOfInterest(left: 1 - 0.55, top: 0.1, right: 1 - 0.05, bottom: 0.9)
        let got = try Self.detector.detect(image: stored, options: ImageProcessingOptions(orientation: .upMirrored,
                                                                                          regionOfInterest: storedRegion))
        expectSameDetections(got, expected, orientation: .upMirrored)
    }

    /// Video and live-stream modes take pixel buffers and orientations too, with the image
    /// mode's detections; a live-stream frame's planes are copied, so the caller may overwrite
    /// its buffer as soon as `detectAsync` returns.
    @Test func videoAndLiveStreamModesTakeTurnedCameraFrames() async throws {
        let stored = Layouts.stored(try Goldens.image("two_faces_1280x853"), .leftMirrored)
        let options = ImageProcessingOptions(orientation: .leftMirrored)
        let video = try FaceDetector(options: FaceDetectorOptions(weightsPath: Goldens.weights, runningMode: .video))
        let live = try FaceDetector(options: FaceDetectorOptions(weightsPath: Goldens.weights, runningMode: .liveStream))
        let packed = Layouts.packed(stored, .bgra, padding: 0)
        var bytes = packed.bytes
        let stride = packed.stride
        let expected = try bytes.withUnsafeBytes { raw in
            try Self.detector.detect(image: try PixelBuffer(format: .bgra, width: stored.width, height: stored.height,
                                                                  bytes: raw, rowStride: stride), options: options)
        }
        #expect(expected.detections.count == 2)
        for t in [0, 33] {
            let got = try bytes.withUnsafeBytes { raw in
                try video.detect(videoFrame: try PixelBuffer(format: .bgra, width: stored.width, height: stored.height,
                                                             bytes: raw, rowStride: stride), options: options, timestampInMilliseconds: t)
            }
            #expect(got == expected)
        }
        #expect(throws: DetectorError.self) {
            try bytes.withUnsafeBytes { raw in
                try video.detect(videoFrame: try PixelBuffer(format: .bgra, width: stored.width, height: stored.height,
                                                             bytes: raw, rowStride: stride), options: options, timestampInMilliseconds: 33)
            }
        }
        try bytes.withUnsafeBytes { raw in
            try live.detectAsync(image: try PixelBuffer(format: .bgra, width: stored.width, height: stored.height,
                                                              bytes: raw, rowStride: stride), options: options, timestampInMilliseconds: 0)
        }
        for i in bytes.indices { bytes[i] = 0 }   // the camera reuses its buffer at once
        var results = live.liveStreamResults.makeAsyncIterator()
        let first = await results.next()
        live.close()
        #expect(try first?.result.get() == expected)
    }

    @Test func defaultOptionsChangeNothing() throws {
        let image = try Goldens.image("astronaut_223x231")
        #expect(try Self.detector.detect(image: image, options: ImageProcessingOptions()) == (try Self.detector.detect(image: image)))
    }

    @Test func regionOfInterestCoveringTheImageChangesNothing() throws {
        let image = try Goldens.image("two_faces_1280x853")
        let whole = ImageProcessingOptions(regionOfInterest: RegionOfInterest(left: 0, top: 0, right: 1, bottom: 1))
        #expect(try Self.detector.detect(image: image, options: whole) == (try Self.detector.detect(image: image)))
    }

    @Test func regionOfInterestWithOrientationMatchesTheUprightRegion() throws {
        let upright = try Goldens.image("two_faces_1280x853")
        let roi = RegionOfInterest(left: 0.05, top: 0.1, right: 0.55, bottom: 0.9)
        let expected = try Self.detector.detect(image: upright, options: ImageProcessingOptions(regionOfInterest: roi))
        let all = try Self.detector.detect(image: upright)
        // The region holds one of the two faces.
        #expect(expected.detections.count == 1 && all.detections.count == 2)
        // The same region of the picture stored turned counter-clockwise, given with .right.
        let turned = RegionOfInterest(left: roi.top, top: 1 - roi.right, right: roi.bottom, bottom: 1 - roi.left)
        let got = try Self.detector.detect(image: Layouts.stored(upright, .right),
                                           options: ImageProcessingOptions(orientation: .right, regionOfInterest: turned))
        expectSameDetections(got, expected, orientation: .right)
    }

    @Test(arguments: [
        RegionOfInterest(left: 0.5, top: 0, right: 0.5, bottom: 1), RegionOfInterest(left: 0, top: 0.6, right: 1, bottom: 0.2),
        RegionOfInterest(left: -0.1, top: 0, right: 1, bottom: 1), RegionOfInterest(left: 0, top: 0, right: 1, bottom: 1.5),
        RegionOfInterest(left: .nan, top: 0, right: 1, bottom: 1),
    ])
    func invalidRegionsAreRefused(_ roi: RegionOfInterest) throws {
        let image = try RGBImage(width: 8, height: 8)
        #expect(throws: DetectorError.self) { try Self.detector.detect(image: image, options: ImageProcessingOptions(regionOfInterest: roi)) }
    }

    @Test func badBuffersAreRefused() {
        let bytes = [UInt8](repeating: 0, count: 100)
        bytes.withUnsafeBytes { raw in
            #expect(throws: ImageError.self) { try PixelBuffer(format: .rgb, width: 10, height: 4, bytes: raw) }            // 120 bytes needed
            #expect(throws: ImageError.self) { try PixelBuffer(format: .rgba, width: 5, height: 5, bytes: raw, rowStride: 19) } // stride < row
            #expect(throws: ImageError.self) { try PixelBuffer(format: .gray, width: 0, height: 5, bytes: raw) }
            #expect(throws: ImageError.self) { try PixelBuffer(format: .nv12, width: 4, height: 4, bytes: raw) }
            #expect(throws: ImageError.self) { try PixelBuffer(biPlanar: .nv12, y: raw, yStride: 10, chroma: UnsafeRawBufferPointer(rebasing: raw[0..<4]), chromaStride: 10, width: 10, height: 10) }
            #expect(throws: ImageError.self) { try PixelBuffer(i420: raw, yStride: 10, u: raw, uStride: 2, v: raw, vStride: 5, width: 10, height: 10) }
            // Exactly enough: the last row needs no padding.
            #expect(throws: Never.self) { try PixelBuffer(format: .gray, width: 10, height: 10, bytes: raw) }
            #expect(throws: Never.self) { try PixelBuffer(format: .rgb, width: 6, height: 5, bytes: raw, rowStride: 20) }
        }
    }
}
