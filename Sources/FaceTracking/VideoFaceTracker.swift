import BlazeFace
import BlazeImage
import VisionTasks

/// Face detection with tracking over a video: a video-mode `FaceDetector` and a `FaceTracker`,
/// with MediaPipe's idea of skipping the detector on some frames. With `detectionInterval` K > 1,
/// the full detector runs every K-th frame (and whenever no face is tracked); on the frames
/// between, each tracked face is searched for only in a square region around its predicted
/// position, with the short-range model, four regions per inference (one per quadrant of the
/// model's input, `FaceDetector.detect(image:searchArea:)` with `.regions`). A search that finds nothing, or scores below
/// `minSearchScore`, means tracking confidence dropped: the frame falls back to a full detection.
///
/// Not thread-safe (one video, frames in order); create one per video.
public final class VideoFaceTracker {
    public let trackingOptions: FaceTrackingOptions
    private let detector: FaceDetector
    private let searcher: FaceDetector
    private var tracker: FaceTracker
    private var timestamps = TimestampGate()
    private var framesSinceFullDetection = 0
    private var scratch = FaceDetectorResult()

    /// What the frames so far cost: full detections, region searches (inferences of up to four
    /// regions each), and the fallbacks among the full detections (frames where a search lost a face).
    public private(set) var statistics = Statistics()

    public struct Statistics: Sendable, Equatable {
        public var frames = 0, fullDetections = 0, regionSearches = 0, fallbacks = 0
    }

    /// `detectorOptions.runningMode` is set to video. The region searches use the short-range
    /// model (the same detector when that is the model; weights found as usual otherwise).
    public init(detectorOptions: FaceDetectorOptions = FaceDetectorOptions(),
                trackingOptions: FaceTrackingOptions = FaceTrackingOptions()) throws(VisionTaskError) {
        var options = detectorOptions
        options.runningMode = .video
        options.liveStreamHandler = nil
        detector = try FaceDetector(options: options)
        if options.model == .shortRange {
            searcher = detector
        } else {
            var search = options
            (search.model, search.weightsPath, search.minDetectionConfidence, search.runningMode) = (.shortRange, nil, nil, .image)
            searcher = try FaceDetector(options: search)
        }
        tracker = try FaceTracker(options: trackingOptions)
        self.trackingOptions = tracker.options
    }

    /// Detects and tracks the faces of one frame. Timestamps (ms) must strictly increase.
    public func track(videoFrame image: RGBImage, timestampInMilliseconds timestamp: Int) throws(VisionTaskError) -> TrackingFrame {
        try timestamps.admit(timestamp)
        statistics.frames += 1
        var result = FaceDetectorResult()
        let interval = trackingOptions.trackingEnabled ? trackingOptions.detectionInterval : 1
        let predictions = tracker.predictedBoxes(at: timestamp, imageWidth: image.width, imageHeight: image.height)
        var searched = false
        if interval > 1, framesSinceFullDetection + 1 < interval, !predictions.isEmpty {
            searched = try search(image, around: predictions, into: &result)
            if !searched { statistics.fallbacks += 1 }
        }
        if searched {
            framesSinceFullDetection += 1
        } else {
            try detector.detect(videoFrame: image, timestampInMilliseconds: timestamp, into: &result)
            statistics.fullDetections += 1
            framesSinceFullDetection = 0
        }
        return try tracker.update(result, imageWidth: image.width, imageHeight: image.height, timestampInMilliseconds: timestamp)
    }

    /// Ends the video: the IDs still tracked, now retired.
    public func finish() -> [Int] { tracker.retireAll() }

    /// Searches a square region around each predicted face, up to four regions per inference
    /// (`SearchArea.regions`); false as soon as one comes back empty or weak.
    private func search(_ image: RGBImage, around predictions: [(id: Int, box: NormalizedRect)],
                        into result: inout FaceDetectorResult) throws(VisionTaskError) -> Bool {
        let (w, h) = (Float(image.width), Float(image.height))
        var regions: [RotatedRect] = []
        for p in predictions {
            let side = trackingOptions.searchRegionScale * max(p.box.width * w, p.box.height * h)
            guard side.isFinite, side >= 1 else { return false }
            regions.append(RotatedRect(centerX: (p.box.xMin + p.box.width / 2) * w, centerY: (p.box.yMin + p.box.height / 2) * h,
                                       width: side, height: side))
        }
        var start = 0
        while start < regions.count {
            let batch = Array(regions[start..<min(start + FaceDetector.maxSearchRegions, regions.count)])
            start += batch.count
            let found = try searcher.detect(image: image, searchArea: .regions(batch)).perRegion
            statistics.regionSearches += 1
            for r in found {
                guard let best = r.detections.max(by: { $0.score < $1.score }), best.score >= trackingOptions.minSearchScore else {
                    return false
                }
                // Two searches may find the same face (faces close together): keep it once.
                if !result.detections.contains(where: { $0.relativeBoundingBox.intersectionOverUnion(best.relativeBoundingBox) > 0.5 }) {
                    result.detections.append(best)
                }
            }
        }
        return true
    }
}

extension VideoFaceTracker {
    /// Tracks one frame of any input (an `RGBImage` or a camera `PixelBuffer`) turned upright
    /// for `orientation`, as Mobile Vision rotates a frame by its metadata; results in the
    /// upright frame's coordinates. Timestamps must strictly increase.
    public func track(videoFrame pixels: some SampledPixels, orientation: ImageOrientation,
                      timestampInMilliseconds timestamp: Int) throws(VisionTaskError) -> TrackingFrame {
        try track(videoFrame: RGBImage(upright: pixels, orientation: orientation), timestampInMilliseconds: timestamp)
    }
}
