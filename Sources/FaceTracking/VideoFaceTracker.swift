import BlazeFace
import BlazeImage
import Synchronization
import VisionTasks

/// Face detection with tracking over a video: a video-mode `FaceDetector` and a `FaceTracker`,
/// with MediaPipe's idea of skipping the detector on some frames. With `detectionInterval` K > 1,
/// the full detector runs every K-th frame (and whenever no face is tracked); on the frames
/// between, each tracked face is searched for only in a square region around its predicted
/// position, with the short-range model, four regions per inference (one per quadrant of the
/// model's input, `FaceDetector.detect(image:searchArea:)` with `.regions`). A search that finds nothing, or scores below
/// `minSearchScore`, means tracking confidence dropped: the frame falls back to a full detection.
///
/// MediaPipe's three verbs, one per running mode (fixed at creation; `.video` by default, as
/// the name says): `track(image:)` (a picture on its own: its faces numbered afresh),
/// `track(videoFrame:timestampInMilliseconds:)`, and `trackAsync(image:timestampInMilliseconds:)`
/// on a camera feed (tracked as video, frames dropped while one is in flight, results in
/// timestamp order to `liveStreamHandler` and `liveStreamResults`). One tracker follows one
/// video or feed; calls from several threads are serialised.
public final class VideoFaceTracker: VisionTask {
    /// What it detects with, how it tracks and how frames arrive (the tracking options as
    /// checked).
    public let options: VideoFaceTrackerOptions
    /// How frames arrive (fixed at creation).
    public var runningMode: RunningMode { options.runningMode }
    private let detector: FaceDetector
    private let searcher: FaceDetector
    private let state: Mutex<State>
    /// The live-stream machinery; nil unless `runningMode` is `.liveStream`.
    public let liveStream: LiveStreamRunner<TimestampedResult<TrackingFrame>>?

    /// What one video's frames carry over.
    private struct State {
        var tracker: FaceTracker
        var timestamps = TimestampGate()
        var framesSinceFullDetection = 0
        var statistics = Statistics()
    }

    /// What the frames so far cost: full detections, region searches (inferences of up to four
    /// regions each), and the fallbacks among the full detections (frames where a search lost a face).
    public var statistics: Statistics { state.withLock { $0.statistics } }

    public struct Statistics: Sendable, Equatable {
        public var frames = 0, fullDetections = 0, regionSearches = 0, fallbacks = 0
    }

    /// A tracker with these options. The detector's `runningMode` and `liveStreamHandler` are
    /// the tracker's to set (video for the video and live modes). The region searches use the
    /// short-range model (the same detector when that is the model; weights found as usual otherwise).
    public init(options: VideoFaceTrackerOptions = VideoFaceTrackerOptions()) throws(VisionTaskError) {
        try options.runningMode.validateHandler(isSet: options.liveStreamHandler != nil)
        var detecting = options.detectorOptions
        detecting.runningMode = options.runningMode == .image ? .image : .video
        detecting.liveStreamHandler = nil
        detector = try FaceDetector(options: detecting)
        if detecting.model == .shortRange {
            searcher = detector
        } else {
            var search = detecting
            (search.model, search.weightsPath, search.minDetectionConfidence, search.runningMode) = (.shortRange, nil, nil, .image)
            searcher = try FaceDetector(options: search)
        }
        let tracker = try FaceTracker(options: options.trackingOptions)
        var checked = options
        checked.trackingOptions = tracker.options
        self.options = checked
        state = Mutex(State(tracker: tracker))
        liveStream = LiveStreamRunner(for: options.runningMode, label: "FaceTracking.liveStream", handler: options.liveStreamHandler)
    }

    deinit { liveStream?.shutDown() }

    /// Image mode: the faces of one picture, numbered from 1 (nothing is carried over from a
    /// call to the next).
    public func track(image: RGBImage) throws(VisionTaskError) -> TrackingFrame {
        try runningMode.require(.image, for: "track(image:)")
        var fresh = try FaceTracker(options: options.trackingOptions)
        return try fresh.update(try detector.detect(image: image), imageWidth: image.width, imageHeight: image.height,
                                timestampInMilliseconds: 0)
    }

    /// Video mode: detects and tracks the faces of one frame. Timestamps (ms) must strictly increase.
    public func track(videoFrame image: RGBImage, timestampInMilliseconds timestamp: Int) throws(VisionTaskError) -> TrackingFrame {
        try runningMode.require(.video, for: "track(videoFrame:timestampInMilliseconds:)")
        return try state.withLock { s throws(VisionTaskError) in
            try s.timestamps.admit(timestamp)
            return try frame(image, timestamp: timestamp, &s)
        }
    }

    /// Live-stream mode: hands a decoded frame over and returns at once; it is tracked as a
    /// video frame on the stream's serial queue. Timestamps must strictly increase.
    public func trackAsync(image: RGBImage, timestampInMilliseconds t: Int) throws(VisionTaskError) {
        try submitToLiveStream("trackAsync(image:timestampInMilliseconds:)", timestamp: t, image: image) { [self] picture throws(VisionTaskError) in try liveFrame(picture, t) }
    }

    /// Live-stream mode on a camera frame turned upright for `orientation` (results in the
    /// upright frame's coordinates): its planes are copied before this returns.
    public func trackAsync(pixelBuffer: PixelBuffer, orientation: ImageOrientation = .up,
                           timestampInMilliseconds t: Int) throws(VisionTaskError) {
        try submitToLiveStream("trackAsync(pixelBuffer:orientation:timestampInMilliseconds:)", timestamp: t, pixelBuffer: pixelBuffer,
                               orientation: orientation) { [self] picture throws(VisionTaskError) in try liveFrame(picture, t) }
    }

    /// Ends the video or feed: the IDs still tracked, now retired.
    public func finish() -> [Int] { state.withLock { $0.tracker.retireAll() } }

    /// A live frame, tracked as a video frame under the state's lock.
    private func liveFrame(_ image: RGBImage, _ t: Int) throws(VisionTaskError) -> TrackingFrame {
        try state.withLock { s throws(VisionTaskError) in try frame(image, timestamp: t, &s) }
    }

    /// One video or live frame, its timestamp admitted.
    private func frame(_ image: RGBImage, timestamp: Int, _ s: inout State) throws(VisionTaskError) -> TrackingFrame {
        s.statistics.frames += 1
        var result = FaceDetectorResult()
        let interval = options.trackingOptions.trackingEnabled ? options.trackingOptions.detectionInterval : 1
        let predictions = s.tracker.predictedBoxes(at: timestamp, imageWidth: image.width, imageHeight: image.height)
        var searched = false
        if interval > 1, s.framesSinceFullDetection + 1 < interval, !predictions.isEmpty {
            searched = try search(image, around: predictions, into: &result, &s.statistics)
            if !searched { s.statistics.fallbacks += 1 }
        }
        if searched {
            s.framesSinceFullDetection += 1
        } else {
            try detector.detect(videoFrame: image, timestampInMilliseconds: timestamp, into: &result)
            s.statistics.fullDetections += 1
            s.framesSinceFullDetection = 0
        }
        return try s.tracker.update(result, imageWidth: image.width, imageHeight: image.height, timestampInMilliseconds: timestamp)
    }

    /// Searches a square region around each predicted face, up to four regions per inference
    /// (`SearchArea.regions`); false as soon as one comes back empty or weak.
    private func search(_ image: RGBImage, around predictions: [(id: Int, box: NormalizedRect)],
                        into result: inout FaceDetectorResult, _ statistics: inout Statistics) throws(VisionTaskError) -> Bool {
        let (w, h) = (Float(image.width), Float(image.height))
        var regions: [RotatedRect] = []
        for p in predictions {
            let (cx, cy, side) = p.box.square(times: options.trackingOptions.searchRegionScale, width: w, height: h)
            guard side.isFinite, side >= 1 else { return false }
            regions.append(RotatedRect(centerX: cx, centerY: cy, width: side, height: side))
        }
        var start = 0
        while start < regions.count {
            let batch = Array(regions[start..<min(start + FaceDetector.maxSearchRegions, regions.count)])
            start += batch.count
            let found = try searcher.detect(image: image, searchArea: .regions(batch)).perRegion
            statistics.regionSearches += 1
            for r in found {
                guard let best = r.detections.max(by: { $0.score < $1.score }), best.score >= options.trackingOptions.minSearchScore else {
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
