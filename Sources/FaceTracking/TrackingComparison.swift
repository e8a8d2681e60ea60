import BlazeFace
import BlazeImage
import InternalUtilities

/// The cost and the accuracy of skipping detection on one video (`track --compare`): a tracker
/// that detects on every frame and one that detects every `every`-th frame
/// (`FaceTrackingOptions.detectionInterval`) run over the same decoded frames, alternating
/// `rounds` times and keeping each one's fastest run; their faces matched frame by frame
/// (`TrackingAgreement`).
///
/// ```swift
/// let comparison = try TrackingComparison(frames: frames, every: 4) { interval in
///     try VideoFaceTracker(options: .init(trackingOptions: FaceTrackingOptions(detectionInterval: interval)))
/// }
/// print(comparison.speedup, comparison.agreement.recall)
/// ```
public struct TrackingComparison: Sendable {
    /// The frames compared, and the skipping run's detection interval.
    public var frames: Int, every: Int
    /// The fastest run's seconds, detecting on every frame and every `every`-th frame.
    public var secondsEveryFrame: Double, secondsSkipping: Double
    /// The skipping run's full detections, region searches and fallbacks.
    public var statistics: VideoFaceTracker.Statistics
    /// How far the skipping run's faces agree with the every-frame run's.
    public var agreement: TrackingAgreement
    /// How many times faster the skipping run is.
    public var speedup: Double { secondsEveryFrame / max(secondsSkipping, 1e-9) }

    /// Runs both trackers, made by `makeTracker` for a detection interval, over `frames`
    /// (pictures and their timestamps in milliseconds).
    public init(frames: [(image: RGBImage, timestampInMilliseconds: Int)], every: Int, rounds: Int = 3,
                makeTracker: (Int) throws -> VideoFaceTracker) throws {
        var best: [Int: (seconds: Double, frames: [TrackingFrame], statistics: VideoFaceTracker.Statistics)] = [:]
        for _ in 0..<max(rounds, 1) {
            for k in Set([1, every]).sorted() {
                let tracker = try makeTracker(k)
                let clock = ContinuousClock(), start = clock.now
                var out: [TrackingFrame] = []
                for (image, t) in frames { out.append(try tracker.track(videoFrame: image, timestampInMilliseconds: t)) }
                let elapsed = (clock.now - start).components
                let seconds = Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
                if let old = best[k], old.seconds <= seconds { continue }
                best[k] = (seconds, out, tracker.statistics)
            }
        }
        let reference = best[1]!, skipping = best[every]!
        (self.frames, self.every) = (frames.count, every)
        (secondsEveryFrame, secondsSkipping, statistics) = (reference.seconds, skipping.seconds, skipping.statistics)
        agreement = TrackingAgreement(reference: reference.frames, other: skipping.frames, widths: frames.map(\.image.width),
                                      heights: frames.map(\.image.height))
    }

    /// `track --compare`'s JSON line, for a run of `model` (its name): seconds, IoU and recall
    /// rounded to 0.001, the speedup and keypoint errors to 0.01.
    public func jsonLine(model: String) -> String {
        func rounded(_ v: Double, _ scale: Double = 1000) -> Double { (v * scale).rounded() / scale }
        var json = JSONObject()
        json.field("frames", frames)
        json.field("every", every)
        json.field("model", model)
        json.field("secondsEveryFrame", rounded(secondsEveryFrame))
        json.field("secondsSkipping", rounded(secondsSkipping))
        json.field("speedup", rounded(speedup, 100))
        json.field("fullDetections", statistics.fullDetections)
        json.field("regionSearches", statistics.regionSearches)
        json.field("fallbacks", statistics.fallbacks)
        json.field("referenceFaces", agreement.referenceFaces)
        json.field("matchedFaces", agreement.matchedFaces)
        json.field("recall", rounded(agreement.recall))
        json.field("extraFaces", agreement.extraFaces)
        json.field("meanIoU", rounded(agreement.meanIoU))
        json.field("meanKeypointErrorPx", rounded(agreement.meanKeypointError, 100))
        json.field("maxKeypointErrorPx", rounded(agreement.maxKeypointError, 100))
        return json.text
    }
}
