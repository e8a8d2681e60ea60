import BlazeFace

/// Where one face's mask goes on one video frame: the face's tracking ID, its box (normalized),
/// and whether the detector found it there (false: its track's predicted place, a face lost or
/// hidden behind another).
public struct RedactionMask: Sendable, Equatable {
    public var trackingID: Int
    public var box: NormalizedRect
    public var isDetected: Bool

    public init(trackingID: Int, box: NormalizedRect, isDetected: Bool) {
        (self.trackingID, self.box, self.isDetected) = (trackingID, box, isDetected)
    }

    /// The scale of a guessed box (a face lost, or not found yet) `frames` frames away from a
    /// sighting: `base`, and 15% more a frame, as its place is less sure, at most 2.5 times.
    static func growth(framesAway frames: Int, from base: Float = 1) -> Float {
        min(2.5, base + 0.15 * Float(frames))
    }
}
