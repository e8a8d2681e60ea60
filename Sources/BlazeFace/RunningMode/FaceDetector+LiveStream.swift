import BlazeImage
import VisionTasks

/// One live-stream outcome of the detector: the frame's timestamp and its detections or the
/// error it gave.
public typealias LiveStreamResult = TimestampedResult<FaceDetectorResult>

extension FaceDetector {
    /// Hands `detect` to the live stream: run later on its queue, under the pipeline's lock, its
    /// result (or error) delivered with the timestamp. `call` names the entry point for the
    /// wrong-mode error. The stream's results, counts and `close()` are `VisionTask`'s.
    func submitLive(_ call: String, _ timestamp: Int,
                    _ detect: @escaping @Sendable (inout DetectorState, inout FaceDetectorResult) throws(DetectorError) -> Void)
        throws(DetectorError) {
        try submitToLiveStream(call, timestamp: timestamp) { [self] () throws(DetectorError) in
            var result = FaceDetectorResult()
            try state.withLock { pipeline throws(DetectorError) in try detect(&pipeline, &result) }
            return result
        }
    }
}
