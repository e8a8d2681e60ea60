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

    /// How much a guessed box (a face lost, or not found yet) grows for each frame away from a
    /// sighting, as its place is less sure, and the most it grows.
    static let growthPerFrame: Float = 0.15
    static let maxGrowth: Float = 2.5
}
