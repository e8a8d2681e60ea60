import BlazeFace
import BlazeImageIO
import MeshAnalysis
import LandmarkDetection
import FaceTracking
import Foundation
import LandmarkerGoldens
import Synchronization
import Testing

/// ML Kit's analysis on camera frames (issue 24): pixel buffers in every orientation, and the
/// live mode with frame dropping and tracking IDs.
@Suite struct CameraFrameTests {
    static let weights = PipelineGoldenTests.weights
    static let options = FaceAnalyzerOptions(landmarkMode: .all, contourMode: .all, classificationMode: .all, meshMode: .all,
                                             minFaceSize: 0, contourFaces: .all)

    /// The stored copy of an upright picture for `orientation` (Pillow's transform undoes it).
    static func stored(_ upright: RGBImage, _ orientation: ImageOrientation) -> RGBImage {
        switch orientation {
        case .right: upright.applying(.rotated90CounterClockwise)
        case .left: upright.applying(.rotated90Clockwise)
        default: upright.applying(EXIFOrientation(rawValue: orientation.exifValue)!)   // these undo themselves
        }
    }

    /// A BGRA or NV12 (BT.601 video range, chroma from each 2x2 block's first pixel) copy of
    /// `image`, as a camera delivers it.
    static func withFrame<R>(_ image: RGBImage, _ format: PixelFormat, _ body: (PixelBuffer) throws -> R) throws -> R {
        let (w, h) = (image.width, image.height)
        let p = image.pixels
        if format == .bgra {
            var bytes = [UInt8](repeating: 255, count: w * h * 4)
            for i in 0..<w * h { (bytes[4 * i], bytes[4 * i + 1], bytes[4 * i + 2]) = (p[3 * i + 2], p[3 * i + 1], p[3 * i]) }
            return try bytes.withUnsafeBytes { try body(try PixelBuffer(format: .bgra, width: w, height: h, bytes: $0)) }
        }
        func yuv(_ i: Int) -> (Double, Double, Double) {
            let (r, g, b) = (Double(p[3 * i]), Double(p[3 * i + 1]), Double(p[3 * i + 2]))
            return (16 + 0.257 * r + 0.504 * g + 0.098 * b, 128 - 0.148 * r - 0.291 * g + 0.439 * b, 128 + 0.439 * r - 0.368 * g - 0.071 * b)
        }
        let (cw, ch) = ((w + 1) / 2, (h + 1) / 2)
        var y = [UInt8](repeating: 0, count: w * h), uv = [UInt8](repeating: 0, count: cw * ch * 2)
        for i in 0..<w * h { y[i] = UInt8(min(max(yuv(i).0.rounded(), 0), 255)) }
        for cy in 0..<ch {
            for cx in 0..<cw {
                let c = yuv(2 * cy * w + 2 * cx)
                uv[2 * (cy * cw + cx)] = UInt8(min(max(c.1.rounded(), 0), 255))
                uv[2 * (cy * cw + cx) + 1] = UInt8(min(max(c.2.rounded(), 0), 255))
            }
        }
        return try y.withUnsafeBytes { yb in
            try uv.withUnsafeBytes { cb in
                try body(try PixelBuffer(biPlanar: .nv12, y: yb, yStride: w, chroma: cb, chromaStride: cw * 2, width: w, height: h))
            }
        }
    }

    /// Each format in all eight orientations: the faces, mesh and head angles of the frame turned
    /// upright by Pillow's transform (`RGBImage(buffer).applying(exif)`), analysed as an RGB image.
    @Test(arguments: [PixelFormat.bgra, .nv12])
    func everyOrientationGivesTheUprightPicturesAnalysis(_ format: PixelFormat) throws {
        let pipeline = try FaceAnalysisPipeline(options: .init(analyzerOptions: Self.options, weightsFolder: Self.weights))
        let upright = try PipelineGoldenTests.image("two_faces_1280x853")
        for orientation in ImageOrientation.allCases {
            try Self.withFrame(Self.stored(upright, orientation), format) { buffer in
                let turned = RGBImage(buffer).applying(EXIFOrientation(rawValue: orientation.exifValue)!)
                let expected = try pipeline.analyze(image: turned)
                let got = try pipeline.analyze(pixels: buffer, orientation: orientation)
                #expect(expected.faces.count == 2, "\(format) \(orientation)")
                #expect(got.faces.count == expected.faces.count, "\(format) \(orientation)")
                #expect((got.imageWidth, got.imageHeight) == (turned.width, turned.height))
                for (g, e) in zip(got.faces, expected.faces) {
                    #expect(g.detection == e.detection)
                    let (gm, em) = (try #require(g.analysis.mesh), try #require(e.analysis.mesh))
                    let worst = zip(gm, em).map { a, b in (0..<3).map { abs(a[$0] - b[$0]) }.max()! }.max() ?? 0
                    #expect(gm.count == em.count && worst <= 1e-5, "\(format) \(orientation) mesh, largest difference \(worst)")
                    #expect(g.analysis.headEulerAngles == e.analysis.headEulerAngles)
                }
            }
        }
    }

    /// The pipeline's three verbs: a verb of another mode is refused, naming it; video mode
    /// finds image mode's faces, with tracking IDs that stay while the faces stay; tracking in
    /// image mode and a handler outside the live stream are refused.
    @Test func eachRunningModeHasItsVerb() throws {
        let photo = try PipelineGoldenTests.image("two_faces_1280x853")
        let still = try FaceAnalysisPipeline(options: .init(weightsFolder: Self.weights))
        #expect(throws: VisionTaskError.wrongRunningMode(called: "analyze(videoFrame:timestampInMilliseconds:)", mode: .image)) {
            try still.analyze(videoFrame: photo, timestampInMilliseconds: 0)
        }
        #expect(throws: VisionTaskError.wrongRunningMode(called: "analyzeAsync(image:orientation:timestampInMilliseconds:)", mode: .image)) {
            try still.analyzeAsync(image: photo, timestampInMilliseconds: 0)
        }
        #expect(throws: VisionTaskError.self) { try FaceAnalysisPipeline(options: .init(weightsFolder: Self.weights, tracking: FaceTrackingOptions())) }
        #expect(throws: VisionTaskError.self) {
            try FaceAnalysisPipeline(options: .init(weightsFolder: Self.weights, runningMode: .video, liveStreamHandler: { _ in }))
        }
        let video = try FaceAnalysisPipeline(options: .init(weightsFolder: Self.weights, runningMode: .video, tracking: FaceTrackingOptions()))
        #expect(throws: VisionTaskError.wrongRunningMode(called: "analyze(image:)", mode: .video)) { try video.analyze(image: photo) }
        let expected = try still.analyze(image: photo).faces.map(\.detection)
        #expect(expected.count == 2)
        var ids: Set<[Int?]> = []
        for t in [0, 33, 66] {
            let faces = try video.analyze(videoFrame: photo, timestampInMilliseconds: t).faces
            #expect(faces.map(\.detection) == expected)
            ids.insert(faces.map(\.trackingID))
        }
        #expect(ids.count == 1 && ids.first?.allSatisfy { $0 != nil } == true)
        #expect(throws: VisionTaskError.nonIncreasingTimestamp(previous: 66, current: 66)) {
            try video.analyze(videoFrame: photo, timestampInMilliseconds: 66)
        }
    }

    /// A live analysis fed frames faster than it analyses them (a photo panning 4 px a frame,
    /// as a 30 fps camera's frames with timestamps 33 ms apart, sent at once): frames are
    /// dropped, results come in timestamp order, and each face keeps its tracking ID.
    @Test func liveAnalysisDropsFramesKeepsOrderAndIDs() async throws {
        let photo = try PipelineGoldenTests.image("two_faces_1280x853")
        let live = try FaceAnalysisPipeline(options: .init(analyzerOptions: FaceAnalyzerOptions(minFaceSize: 0), weightsFolder: Self.weights,
                                                           runningMode: .liveStream, tracking: FaceTrackingOptions()))
        let width = photo.width - 64
        // The 16 frames are made first and then sent back to back (a copy each), faster than
        // they are analysed, so that frames are dropped however fast the analysis runs.
        let frames = (0..<16).map { index in
            var bgra = [UInt8](repeating: 255, count: width * photo.height * 4)
            for y in 0..<photo.height {
                for x in 0..<width {
                    let (from, to) = ((y * photo.width + index * 4 + x) * 3, (y * width + x) * 4)
                    (bgra[to], bgra[to + 1], bgra[to + 2]) = (photo.pixels[from + 2], photo.pixels[from + 1], photo.pixels[from])
                }
            }
            return bgra
        }
        for (index, bgra) in frames.enumerated() {
            try bgra.withUnsafeBytes {
                try live.analyzeAsync(pixelBuffer: try PixelBuffer(format: .bgra, width: width, height: photo.height, bytes: $0),
                                      timestampInMilliseconds: index * 33)
            }
        }
        var outputs: [TimestampedResult<FaceAnalysisResult>] = []
        var stream = live.liveStreamResults.makeAsyncIterator()
        while outputs.count < live.deliveredResultCount || live.deliveredResultCount + live.droppedFrameCount < 16 {
            guard let next = await stream.next() else { break }
            outputs.append(next)
        }
        live.close()
        #expect(live.droppedFrameCount > 0)
        #expect(outputs.count + live.droppedFrameCount == 16)
        let timestamps = outputs.map(\.timestampInMilliseconds)
        #expect(timestamps == timestamps.sorted() && Set(timestamps).count == timestamps.count)
        var idsByLeftToRight: Set<[Int?]> = []
        for output in outputs {
            let faces = try output.result.get().faces.sorted { $0.detection.boundingBox.originX < $1.detection.boundingBox.originX }
            #expect(faces.count == 2)
            idsByLeftToRight.insert(faces.map(\.trackingID))
        }
        #expect(idsByLeftToRight.count == 1)
        #expect(idsByLeftToRight.first?.allSatisfy { $0 != nil } == true)
    }

    /// The landmarker (image and video modes) and the video tracker on a turned camera frame:
    /// the results of the picture turned upright by Pillow's transform.
    @Test func landmarkerAndTrackerTakeTurnedCameraFrames() throws {
        let upright = try PipelineGoldenTests.image("two_faces_1280x853")
        let orientation = ImageOrientation.rightMirrored
        let landmarker = try FaceLandmarker(options: FaceLandmarkerOptions(numFaces: 2, weightsFolder: Self.weights))
        let video = try FaceLandmarker(options: FaceLandmarkerOptions(runningMode: .video, numFaces: 2, weightsFolder: Self.weights))
        let videoReference = try FaceLandmarker(options: FaceLandmarkerOptions(runningMode: .video, numFaces: 2,
                                                                               weightsFolder: Self.weights))
        let tracker = try VideoFaceTracker(options: .init(detectorOptions: FaceDetectorOptions(weightsPath: Self.weights + "/face_detection_short_range.bin")))
        let reference = try VideoFaceTracker(options: .init(detectorOptions: FaceDetectorOptions(weightsPath: Self.weights + "/face_detection_short_range.bin")))
        try Self.withFrame(Self.stored(upright, orientation), .nv12) { buffer in
            let turned = RGBImage(buffer).applying(EXIFOrientation(rawValue: orientation.exifValue)!)
            let expected = try landmarker.detect(image: turned)
            #expect(expected.faces.count == 2)
            #expect(try landmarker.detect(pixels: buffer, orientation: orientation) == expected)
            #expect(try video.detect(videoFrame: buffer, orientation: orientation, timestampInMilliseconds: 0)
                    == (try videoReference.detect(videoFrame: turned, timestampInMilliseconds: 0)))
            let tracked = try tracker.track(videoFrame: buffer, orientation: orientation, timestampInMilliseconds: 0)
            #expect(tracked.faces.count == 2)
            #expect(tracked == (try reference.track(videoFrame: turned, timestampInMilliseconds: 0)))
        }
    }
}
