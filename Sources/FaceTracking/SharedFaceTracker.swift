import BlazeFace
import Synchronization
import VisionTasks

/// A `FaceTracker` behind a mutex, to share between threads: for instance, captured by a
/// live-stream result handler (which must be `@Sendable`) to give live results tracking IDs.
public final class SharedFaceTracker: Sendable {
    private let tracker: Mutex<FaceTracker>

    public init(options: FaceTrackingOptions = FaceTrackingOptions()) throws(VisionTaskError) {
        tracker = Mutex(try FaceTracker(options: options))
    }

    /// `FaceTracker.update`, under the lock.
    public func update(_ result: FaceDetectorResult, imageWidth: Int, imageHeight: Int,
                       timestampInMilliseconds: Int) throws(VisionTaskError) -> TrackingFrame {
        try tracker.withLock { t throws(VisionTaskError) in
            try t.update(result, imageWidth: imageWidth, imageHeight: imageHeight, timestampInMilliseconds: timestampInMilliseconds)
        }
    }
}
