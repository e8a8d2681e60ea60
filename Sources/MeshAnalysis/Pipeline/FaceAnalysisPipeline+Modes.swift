import BlazeFace
import BlazeImage
import FaceTracking
import VisionTasks

extension FaceAnalysisPipeline {
    /// Video mode: the faces of one decoded frame, analysed as a picture, with tracking IDs when
    /// `tracking` is on. Timestamps must strictly increase.
    public func analyze(videoFrame image: RGBImage, timestampInMilliseconds t: Int) throws(VisionTaskError) -> FaceAnalysisResult {
        try runningMode.require(.video, for: "analyze(videoFrame:timestampInMilliseconds:)")
        try timestamps.withLock { gate throws(VisionTaskError) in try gate.admit(t) }
        return try frame(image, timestamp: t)
    }

    /// Video mode on any input (an `RGBImage` or a camera `PixelBuffer`) turned upright for `orientation`.
    public func analyze(videoFrame pixels: some SampledPixels, orientation: ImageOrientation,
                        timestampInMilliseconds t: Int) throws(VisionTaskError) -> FaceAnalysisResult {
        try runningMode.require(.video, for: "analyze(videoFrame:orientation:timestampInMilliseconds:)")
        try timestamps.withLock { gate throws(VisionTaskError) in try gate.admit(t) }
        return try frame(RGBImage(upright: pixels, orientation: orientation), timestamp: t)
    }

    /// Live-stream mode (ML Kit's face detector on a camera feed): hands a decoded frame over and
    /// returns at once; it is analysed on the stream's serial queue as `analyze(videoFrame:...)`
    /// analyses, and its result (or error) delivered in timestamp order. A frame that comes while
    /// one is in flight is dropped (ML Kit's advice, MediaPipe's live-stream rule).
    public func analyzeAsync(image: RGBImage, orientation: ImageOrientation = .up, timestampInMilliseconds t: Int)
        throws(VisionTaskError) {
        try submitToLiveStream("analyzeAsync(image:orientation:timestampInMilliseconds:)", timestamp: t, image: image,
                               orientation: orientation) { [self] picture throws(VisionTaskError) in try frame(picture, timestamp: t) }
    }

    /// Live-stream mode on a camera frame: its planes are copied before this returns, so the
    /// camera may reuse its buffer.
    public func analyzeAsync(pixelBuffer: PixelBuffer, orientation: ImageOrientation = .up,
                             timestampInMilliseconds t: Int) throws(VisionTaskError) {
        try submitToLiveStream("analyzeAsync(pixelBuffer:orientation:timestampInMilliseconds:)", timestamp: t, pixelBuffer: pixelBuffer,
                               orientation: orientation) { [self] picture throws(VisionTaskError) in try frame(picture, timestamp: t) }
    }

    /// A video or live frame: its faces, and the tracker's IDs for them (matched by their boxes).
    private func frame(_ image: RGBImage, timestamp: Int) throws(VisionTaskError) -> FaceAnalysisResult {
        var result = try faces(in: image) { _ in () }.result
        guard let tracker else { return result }
        let tracked = try tracker.update(FaceDetectorResult(detections: result.faces.map(\.detection)),
                                         imageWidth: result.imageWidth, imageHeight: result.imageHeight, timestampInMilliseconds: timestamp)
        for i in result.faces.indices {
            result.faces[i].trackingID = tracked.faces.first { $0.detection.relativeBoundingBox == result.faces[i].detection.relativeBoundingBox }?
                .trackingID
        }
        return result
    }
}
