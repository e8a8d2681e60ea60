import BlazeFace
import Synchronization

/// A `FaceTracker` behind a mutex, to share between threads: for instance, captured by a
/// live-stream result handler (which must be `@Sendable`) to give live results tracking IDs.
public final class SharedFaceTracker: Sendable {
    private let tracker: Mutex<FaceTracker>

    public init(options: FaceTrackingOptions = FaceTrackingOptions()) throws(DetectorError) {
        tracker = Mutex(try FaceTracker(options: options))
    }

    /// `FaceTracker.update`, under the lock.
    public func update(_ result: FaceDetectorResult, imageWidth: Int, imageHeight: Int,
                       timestampInMilliseconds: Int) throws(DetectorError) -> TrackingFrame {
        try tracker.withLock { t throws(DetectorError) in
            try t.update(result, imageWidth: imageWidth, imageHeight: imageHeight, timestampInMilliseconds: timestampInMilliseconds)
        }
    }
}
