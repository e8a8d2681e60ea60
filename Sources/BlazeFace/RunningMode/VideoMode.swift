import BlazeImage
import VisionTasks

extension FaceDetector {
    /// Video mode: detects faces in one decoded frame. Timestamps are in milliseconds and must
    /// strictly increase from call to call (MediaPipe's `detectForVideo`).
    public func detect(videoFrame: RGBImage, timestampInMilliseconds: Int) throws(DetectorError) -> FaceDetectorResult {
        var result = FaceDetectorResult()
        try detect(videoFrame: videoFrame, timestampInMilliseconds: timestampInMilliseconds, into: &result)
        return result
    }

    /// Video mode, reusing `result`'s storage from frame to frame. The timestamp is checked and
    /// recorded under the same lock as the frame, so concurrent callers cannot interleave them.
    public func detect(videoFrame: RGBImage, timestampInMilliseconds: Int,
                       into result: inout FaceDetectorResult) throws(DetectorError) {
        try requireMode(.video, for: "detect(videoFrame:timestampInMilliseconds:)")
        try state.withLock { pipeline throws(DetectorError) in
            // The timestamp is spent even if the frame turns out bad, as a packet sent to MediaPipe's graph is.
            try pipeline.timestamps.admit(timestampInMilliseconds)
            try pipeline.detect(videoFrame, into: &result)
        }
    }

    /// Detects faces inside `region` (pixels, may be rotated or reach past the image) of `image`,
    /// whatever the running mode: the region search a tracker runs between full detections.
    /// Results are in whole-image coordinates, as from a full detection. No timestamp is involved.
    public func detect(image: RGBImage, searchRegion region: RotatedRect,
                       into result: inout FaceDetectorResult) throws(DetectorError) {
        try state.withLock { pipeline throws(DetectorError) in try pipeline.detect(image, region: region, into: &result) }
    }
}

extension FaceDetector {
    /// Video mode on any input: an `RGBImage` or a camera `PixelBuffer` (sampled in place), turned
    /// and cropped as `options` say; results in the frame's own (stored) coordinates. Timestamps
    /// must strictly increase, as for `detect(videoFrame:timestampInMilliseconds:)`.
    public func detect(videoFrame pixelBuffer: PixelBuffer, options: ImageProcessingOptions = ImageProcessingOptions(),
                       timestampInMilliseconds: Int) throws(DetectorError) -> FaceDetectorResult {
        var result = FaceDetectorResult()
        try detect(sampledVideoFrame: pixelBuffer, options: options, timestampInMilliseconds: timestampInMilliseconds,
                   into: &result)
        return result
    }

    /// Video mode on an `RGBImage` with an orientation and a region of interest.
    public func detect(videoFrame image: RGBImage, options: ImageProcessingOptions,
                       timestampInMilliseconds: Int) throws(DetectorError) -> FaceDetectorResult {
        try image.requireWhole()
        var result = FaceDetectorResult()
        try detect(sampledVideoFrame: image, options: options, timestampInMilliseconds: timestampInMilliseconds, into: &result)
        return result
    }

    /// Video mode on a pixel buffer, reusing `result`'s storage from frame to frame: a camera
    /// frame detected with no copy at all.
    public func detect(videoFrame pixelBuffer: PixelBuffer, options: ImageProcessingOptions = ImageProcessingOptions(),
                       timestampInMilliseconds: Int, into result: inout FaceDetectorResult) throws(DetectorError) {
        try detect(sampledVideoFrame: pixelBuffer, options: options, timestampInMilliseconds: timestampInMilliseconds,
                   into: &result)
    }

    private func detect<P: SampledPixels & Sendable>(sampledVideoFrame pixels: P, options: ImageProcessingOptions,
                                          timestampInMilliseconds: Int, into result: inout FaceDetectorResult)
        throws(DetectorError) {
        try requireMode(.video, for: "detect(videoFrame:options:timestampInMilliseconds:)")
        try state.withLock { pipeline throws(DetectorError) in
            try pipeline.timestamps.admit(timestampInMilliseconds)
            try pipeline.detect(sampled: pixels, options: options, into: &result)
        }
    }
}
