import BlazeFace
import VisionTasks

/// Options of face tracking (ML Kit's `isTrackingEnabled`, Mobile Vision's MultiProcessor gap,
/// MediaPipe's landmark smoothing, and the detection skipping MediaPipe's docs describe).
public struct FaceTrackingOptions: Sendable, Equatable {
    /// ML Kit's isTrackingEnabled: with false, faces carry no tracking ID and no tracker runs.
    public var trackingEnabled: Bool = true
    /// Frames a face may go undetected and keep its ID when it comes back (0...1000); one missing
    /// longer is retired for good. Default 3, Mobile Vision's `maxGapFrames`.
    public var maxMissingFrames: Int = 3
    /// Frames a missing face presumed hidden keeps its ID without counting as missing
    /// (0...1000): its predicted box cut by the picture's edge, at least half inside the head of a
    /// detected face at least 0.8 times as large (one passing in front), or holding at least half
    /// of a smaller detected face (one in front of it). Default 0: off, as ML Kit and Mobile
    /// Vision. Redaction turns it on, so that a face passing behind another, or leaving the
    /// picture, stays searched for and masked until it comes out or has gone.
    public var maxHiddenFrames: Int = 0
    /// Weight of the keypoint distance (in face widths) against 1 - IoU in the association cost (0...100).
    public var keypointWeight: Float = 1
    /// A detection farther than this many face widths (mean keypoint distance from the track's
    /// prediction) and not overlapping it cannot continue the track (0...100).
    public var maxKeypointDistance: Float = 1
    /// One-euro smoothing of boxes and keypoints; nil (default) reports detections as they are.
    public var smoothing: OneEuroParameters?
    /// Video only: run the full detector every this many frames (1 = every frame, the default),
    /// and on the frames between, search only a region around each tracked face.
    public var detectionInterval: Int = 1
    /// Side of a search region, in multiples of the tracked face's larger side (1...10).
    public var searchRegionScale: Float = 2
    /// A region search scoring below this counts as lost tracking confidence: the frame falls
    /// back to a full detection (0...1).
    public var minSearchScore: Float = 0.5

    public init(trackingEnabled: Bool = true, maxMissingFrames: Int = 3, smoothing: OneEuroParameters? = nil,
                detectionInterval: Int = 1) {
        self.trackingEnabled = trackingEnabled
        self.maxMissingFrames = maxMissingFrames
        self.smoothing = smoothing
        self.detectionInterval = detectionInterval
    }

    func validated() throws(VisionTaskError) -> FaceTrackingOptions {
        func check(_ name: String, _ ok: Bool, _ value: String, _ allowed: String) throws(VisionTaskError) {
            if !ok { throw .invalidOption(name: name, value: value, allowed: allowed) }
        }
        try check("maxMissingFrames", (0...1000).contains(maxMissingFrames), "\(maxMissingFrames)", "in 0...1000")
        try check("maxHiddenFrames", (0...1000).contains(maxHiddenFrames), "\(maxHiddenFrames)", "in 0...1000")
        try check("detectionInterval", (1...1000).contains(detectionInterval), "\(detectionInterval)", "in 1...1000")
        try check("keypointWeight", keypointWeight.isFinite && (0...100).contains(keypointWeight), "\(keypointWeight)", "a number in 0...100")
        try check("maxKeypointDistance", maxKeypointDistance.isFinite && (0...100).contains(maxKeypointDistance),
                  "\(maxKeypointDistance)", "a number in 0...100")
        try check("searchRegionScale", searchRegionScale.isFinite && (1...10).contains(searchRegionScale),
                  "\(searchRegionScale)", "a number in 1...10")
        try check("minSearchScore", minSearchScore.isFinite && (0...1).contains(minSearchScore), "\(minSearchScore)", "a number in 0...1")
        if let s = smoothing {
            for (name, v) in [("smoothing.minCutoff", s.minCutoff), ("smoothing.beta", s.beta), ("smoothing.derivativeCutoff", s.derivativeCutoff)] {
                try check(name, v.isFinite && v >= 0 && (name == "smoothing.beta" || v > 0), "\(v)",
                          name == "smoothing.beta" ? "a number >= 0" : "a number > 0")
            }
        }
        return self
    }
}

/// The one-euro filter's parameters (Casiez et al. 2012; MediaPipe's OneEuroFilter in
/// landmarks_smoothing_calculator). Values are filtered in face widths, so they do not depend
/// on the face's size in the picture (MediaPipe's object-scale normalisation).
public struct OneEuroParameters: Sendable, Equatable {
    /// Cutoff frequency (Hz) at rest: lower smooths more jitter.
    public var minCutoff: Float
    /// How fast the cutoff rises with speed (per face width per second): higher lags less.
    public var beta: Float
    /// Cutoff frequency (Hz) of the speed estimate.
    public var derivativeCutoff: Float

    public init(minCutoff: Float = 1, beta: Float = 1, derivativeCutoff: Float = 1) {
        (self.minCutoff, self.beta, self.derivativeCutoff) = (minCutoff, beta, derivativeCutoff)
    }
}
