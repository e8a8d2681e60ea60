import BlazeImage
import VisionTasks

/// Where the detector searches a picture: one parameter for every way it can look.
public enum SearchArea: Sendable, Equatable {
    /// The whole picture, or the region of interest of the image processing options: MediaPipe's
    /// FaceDetector.
    case wholeFrame
    /// Tiles of the picture and the picture itself, each letterboxed on its own, their faces merged
    /// (`TilingOptions`: small faces in large pictures). Image mode only.
    case tiles(TilingOptions)
    /// One region in pixels (it may be rotated or reach past the picture): the region search a
    /// tracker runs between full detections. In any running mode; no timestamp is involved.
    case region(RotatedRect)
    /// Up to `FaceDetector.maxSearchRegions` regions in one inference, each in its own quadrant of
    /// the model's input: faces per region in `FaceDetectorResult.perRegion`, all of them in
    /// `detections`. In any running mode; no timestamp is involved.
    case regions([RotatedRect])
}

/// MediaPipe's three verbs (`detect`, `detect(videoFrame:)`, `detectAsync`) over any pixels (an
/// `RGBImage`, or a camera `PixelBuffer` sampled in its own format with no RGB copy), with image
/// processing options (orientation, region of interest; nil: the picture as it is) and, for
/// images, where to search. Results are in the coordinates of the picture as given. These are
/// the detector's only entry points (the older `detect(pixelBuffer:...)`, `detect(image:tiling:)`,
/// `detect(image:searchRegion(s):)` and `detectAsync(pixelBuffer:...)` spellings were removed on
/// 2026-11-29: each was one of these verbs' cases).
extension FaceDetector {
    /// Image mode (the region searches: any mode): the faces in `image`, turned and cropped as
    /// `options` say, searched where `searchArea` says.
    public func detect<P: SampledPixels & Sendable>(image: P, options: ImageProcessingOptions? = nil,
                                                    searchArea: SearchArea = .wholeFrame) throws(DetectorError) -> FaceDetectorResult {
        var result = FaceDetectorResult()
        try detect(image: image, options: options, searchArea: searchArea, into: &result)
        return result
    }

    /// `detect(image:options:searchArea:)` into `result`, reusing its storage: with a result kept
    /// from frame to frame, a whole-frame detection allocates nothing on the heap.
    public func detect<P: SampledPixels & Sendable>(image: P, options: ImageProcessingOptions? = nil, searchArea: SearchArea = .wholeFrame,
                                                    into result: inout FaceDetectorResult) throws(DetectorError) {
        if !result.perRegion.isEmpty { result.perRegion = [] }
        let rgb = image as? RGBImage
        switch searchArea {
        case .wholeFrame:
            if options == nil, let rgb {
                try requireMode(.image, for: "detect(image:)")
                try state.withLock { pipeline throws(DetectorError) in try pipeline.detect(rgb, into: &result) }
            } else {
                try requireMode(.image, for: "detect(image:options:)")
                try rgb?.requireWhole()
                try detect(sampled: image, options: options ?? ImageProcessingOptions(), into: &result)
            }
        case .tiles(let tiling):
            try Self.requireNoProcessing(options, with: "tiles")
            try rgb?.requireWhole()
            result = try detect(sampled: image, tiling: tiling)
        case .region(let region):
            try Self.requireNoProcessing(options, with: "a search region")
            if let rgb {
                try state.withLock { pipeline throws(DetectorError) in try pipeline.detect(rgb, region: region, into: &result) }
            } else {
                try state.withLock { pipeline throws(DetectorError) in try pipeline.detect(sampled: image, region: region, into: &result) }
            }
        case .regions(let regions):
            try Self.requireNoProcessing(options, with: "search regions")
            try rgb?.requireWhole()
            let found = try detect(sampled: image, searchRegions: regions)
            result.detections.removeAll(keepingCapacity: true)
            for region in found { result.detections += region.detections }
            result.perRegion = found
        }
    }

    /// Video mode: the faces in one decoded frame, turned and cropped as `options` say.
    /// Timestamps are in milliseconds and must strictly increase from call to call (MediaPipe's
    /// `detectForVideo`).
    public func detect<P: SampledPixels & Sendable>(videoFrame: P, options: ImageProcessingOptions? = nil,
                                                    timestampInMilliseconds: Int) throws(DetectorError) -> FaceDetectorResult {
        var result = FaceDetectorResult()
        try detect(videoFrame: videoFrame, options: options, timestampInMilliseconds: timestampInMilliseconds, into: &result)
        return result
    }

    /// Video mode into `result`, reusing its storage from frame to frame. The timestamp is
    /// checked and recorded under the same lock as the frame (and spent even if the frame turns
    /// out bad, as a packet sent to MediaPipe's graph is).
    public func detect<P: SampledPixels & Sendable>(videoFrame: P, options: ImageProcessingOptions? = nil, timestampInMilliseconds: Int,
                                                    into result: inout FaceDetectorResult) throws(DetectorError) {
        if !result.perRegion.isEmpty { result.perRegion = [] }
        let rgb = videoFrame as? RGBImage
        if options == nil, let rgb {
            try requireMode(.video, for: "detect(videoFrame:timestampInMilliseconds:)")
            try state.withLock { pipeline throws(DetectorError) in
                try pipeline.timestamps.admit(timestampInMilliseconds)
                try pipeline.detect(rgb, into: &result)
            }
        } else {
            try rgb?.requireWhole()
            try detect(sampledVideoFrame: videoFrame, options: options ?? ImageProcessingOptions(),
                       timestampInMilliseconds: timestampInMilliseconds, into: &result)
        }
    }

    /// Live-stream mode: hands a frame over, turned and cropped as `options` say, and returns at
    /// once (a pixel buffer's planes are copied first, so the camera may reuse its memory).
    /// Timestamps must strictly increase (else `.nonIncreasingTimestamp`, thrown here); while a
    /// frame is in flight newer ones are dropped and counted in `droppedFrameCount`. Results
    /// arrive in timestamp order through `options.liveStreamHandler` and `liveStreamResults`.
    public func detectAsync<P: SampledPixels & Sendable>(image: P, options: ImageProcessingOptions? = nil,
                                                         timestampInMilliseconds: Int) throws(DetectorError) {
        if let buffer = image as? PixelBuffer {
            let frame = OwnedPixelBuffer(copying: buffer)
            let options = options ?? ImageProcessingOptions()
            try submitLive("detectAsync(image:options:timestampInMilliseconds:)", timestampInMilliseconds) {
                pipeline, result throws(DetectorError) in
                try frame.withPixelBuffer { buffer throws(DetectorError) in try pipeline.detect(sampled: buffer, options: options, into: &result) }
            }
        } else if options == nil, let rgb = image as? RGBImage {
            try submitLive("detectAsync(image:timestampInMilliseconds:)", timestampInMilliseconds) { pipeline, result throws(DetectorError) in
                try pipeline.detect(rgb, into: &result)
            }
        } else {
            try (image as? RGBImage)?.requireWhole()
            let options = options ?? ImageProcessingOptions()
            try submitLive("detectAsync(image:options:timestampInMilliseconds:)", timestampInMilliseconds) {
                pipeline, result throws(DetectorError) in
                try pipeline.detect(sampled: image, options: options, into: &result)
            }
        }
    }

    /// Tiles and region searches are given in the stored picture's own terms: no orientation,
    /// no region of interest.
    private static func requireNoProcessing(_ options: ImageProcessingOptions?, with search: String) throws(DetectorError) {
        guard let options, options != ImageProcessingOptions() else { return }
        throw .invalidOption(name: "options", value: "orientation \(options.orientation.rawValue), region of interest \(String(describing: options.regionOfInterest))",
                             allowed: "no orientation or region of interest with \(search)")
    }
}

extension DetectorState {
    /// Detection inside `region` (pixels) of any picture, sampled in its own format: the region
    /// search on a pixel buffer (an `RGBImage` takes `detect(_:region:into:)`, the same tensor).
    mutating func detect<P: SampledPixels>(sampled pixels: P, region: RotatedRect, into result: inout FaceDetectorResult) throws(DetectorError) {
        let transform = try imageToTensor.convert(sampling: pixels, region: region, into: network.input(),
                                                  rowRunner: network.threadPool.parallelFor(units:_:))
        run(transform: transform, imageWidth: pixels.width, imageHeight: pixels.height, into: &result)
    }
}
