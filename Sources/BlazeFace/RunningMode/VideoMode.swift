import BlazeImage

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
            if let last = pipeline.lastTimestamp, timestampInMilliseconds <= last {
                throw .nonIncreasingTimestamp(previous: last, current: timestampInMilliseconds)
            }
            // The timestamp is spent even if the frame turns out bad, as a packet sent to MediaPipe's graph is.
            pipeline.lastTimestamp = timestampInMilliseconds
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
