import BlazeFace
import VisionTasks

/// What a `VideoFaceTracker` detects with, how it tracks, and how frames arrive: the tracker's
/// task options (`VideoFaceTracker(options:)`).
///
/// ```swift
/// let tracker = try VideoFaceTracker(options: VideoFaceTrackerOptions(trackingOptions: FaceTrackingOptions(detectionInterval: 3)))
/// ```
public struct VideoFaceTrackerOptions: Sendable {
    /// The detector's model, weights, score and pool; its `runningMode` and `liveStreamHandler`
    /// are the tracker's to set (video for the video and live modes).
    public var detectorOptions: FaceDetectorOptions
    /// How faces are followed: IDs, smoothing, the detection interval and its region searches.
    public var trackingOptions: FaceTrackingOptions
    /// How frames arrive (default `.video`); fixed at creation.
    public var runningMode: RunningMode
    /// `.liveStream` only: receives each frame's tracked faces, in timestamp order.
    public var liveStreamHandler: (@Sendable (TimestampedResult<TrackingFrame>) -> Void)?

    public init(detectorOptions: FaceDetectorOptions = FaceDetectorOptions(),
                trackingOptions: FaceTrackingOptions = FaceTrackingOptions(), runningMode: RunningMode = .video,
                liveStreamHandler: (@Sendable (TimestampedResult<TrackingFrame>) -> Void)? = nil) {
        (self.detectorOptions, self.trackingOptions, self.runningMode, self.liveStreamHandler) =
            (detectorOptions, trackingOptions, runningMode, liveStreamHandler)
    }
}
