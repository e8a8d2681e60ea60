import BlazeFace

/// A detection with the ID of the face it belongs to (ML Kit's `Face.trackingID`).
public struct TrackedFace: Sendable, Equatable {
    /// Stable while the face stays in view (and across gaps of up to `maxMissingFrames`); never
    /// reused. nil when tracking is off.
    public var trackingID: Int?
    /// The detection, smoothed when smoothing is on.
    public var detection: Detection

    public init(trackingID: Int?, detection: Detection) { (self.trackingID, self.detection) = (trackingID, detection) }
}

/// One frame's tracking outcome: the faces seen, and what happened to the tracks.
public struct TrackingFrame: Sendable, Equatable {
    public var timestampInMilliseconds: Int
    /// The faces detected in this frame, highest score first.
    public var faces: [TrackedFace]
    /// IDs that appeared for the first time in this frame.
    public var newIDs: [Int] = []
    /// IDs not detected in this frame but kept (missing for at most `maxMissingFrames`).
    public var missingIDs: [Int] = []
    /// IDs retired in this frame: missing for longer than `maxMissingFrames`.
    public var retiredIDs: [Int] = []

    public init(timestampInMilliseconds: Int, faces: [TrackedFace]) {
        (self.timestampInMilliseconds, self.faces) = (timestampInMilliseconds, faces)
    }
}
