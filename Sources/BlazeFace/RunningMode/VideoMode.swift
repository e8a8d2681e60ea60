import BlazeImage
import VisionTasks

extension FaceDetector {
    /// Video mode on any input turned and cropped as `options` say (`detect(videoFrame:options:
    /// timestampInMilliseconds:)`): the timestamp checked and recorded under the same lock as the
    /// frame, so concurrent callers cannot interleave them.
    func detect<P: SampledPixels & Sendable>(sampledVideoFrame pixels: P, options: ImageProcessingOptions,
                                          timestampInMilliseconds: Int, into result: inout FaceDetectorResult)
        throws(DetectorError) {
        try requireMode(.video, for: "detect(videoFrame:options:timestampInMilliseconds:)")
        try state.withLock { pipeline throws(DetectorError) in
            try pipeline.timestamps.admit(timestampInMilliseconds)
            try pipeline.detect(sampled: pixels, options: options, into: &result)
        }
    }
}
