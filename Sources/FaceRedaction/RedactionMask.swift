import BlazeFace

/// Where one face's mask goes on one video frame: the face's tracking ID, its box (normalized),
/// whether the detector found it there (false: its track's predicted place, a face lost or
/// hidden behind another), and whether the face is confirmed (`FaceRedactor.confirmationScore`):
/// `LookBehind` masks only a confirmed face on the frames before it was found, or found again.
public struct RedactionMask: Sendable, Equatable {
    public var trackingID: Int
    public var box: NormalizedRect
    public var isDetected: Bool
    /// False for a detection not confirmed yet (a low score, seen once): masked on its own frame
    /// only, not spread or backfilled by `LookBehind` unless a later mask of its face confirms it.
    public var isConfirmed: Bool

    public init(trackingID: Int, box: NormalizedRect, isDetected: Bool, isConfirmed: Bool = true) {
        (self.trackingID, self.box, self.isDetected, self.isConfirmed) = (trackingID, box, isDetected, isConfirmed)
    }

    /// The scale of a guessed box (a face lost, or not found yet) `frames` frames away from a
    /// sighting: `base`, and 15% more a frame, as its place is less sure, at most 2.5 times.
    static func growth(framesAway frames: Int, from base: Float = 1) -> Float {
        min(2.5, base + 0.15 * Float(frames))
    }
}
