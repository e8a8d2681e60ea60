import BlazeFace
import BlazeImage
import FaceTracking
import MediaFiles
import Foundation

/// `track --compare`: the cost and the accuracy of detection skipping, measured on one video.
/// Runs a tracker that detects on every frame and one that detects every K-th frame over the
/// same decoded frames (alternating, `rounds` times, keeping each one's fastest run), then
/// matches their faces frame by frame (IoU >= 0.5): how many of the every-frame faces the
/// skipping run also reports (recall), how many it adds, and how far its boxes and keypoints are.
struct TrackComparison {
    let command: Track

    func run(_ source: any RGBFrameSource) throws {
        var frames: [(RGBImage, Int)] = []
        while let f = try source.next() {
            frames.append(f)
            guard frames.count <= 3000 else { throw ToolError("--compare holds the video in memory: at most 3000 frames") }
        }
        var best: [Int: Run] = [:]
        for _ in 0..<command.rounds {
            for k in Set([1, command.every]).sorted() {
                let run = try runOnce(frames, every: k)
                if let old = best[k], old.elapsed <= run.elapsed { continue }
                best[k] = run
            }
        }
        guard let referenceRun = best[1], let skippingRun = best[command.every] else { return }
        let reference = (referenceRun.elapsed, referenceRun.frames), skipping = (skippingRun.elapsed, skippingRun.frames, skippingRun.statistics)
        let agreement = TrackingAgreement(reference: reference.1, other: skipping.1, widths: frames.map(\.0.width), heights: frames.map(\.0.height))
        func seconds(_ d: Duration) -> Double { Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18 }
        func r(_ v: Double, _ digits: Double = 1000) -> Double { (v * digits).rounded() / digits }
        let s = skipping.2
        print("{\"frames\":\(frames.count),\"every\":\(command.every),\"model\":\"\(command.model.canonical)\","
              + "\"secondsEveryFrame\":\(r(seconds(reference.0))),\"secondsSkipping\":\(r(seconds(skipping.0))),"
              + "\"speedup\":\(r(seconds(reference.0) / max(seconds(skipping.0), 1e-9), 100)),"
              + "\"fullDetections\":\(s.fullDetections),\"regionSearches\":\(s.regionSearches),\"fallbacks\":\(s.fallbacks),"
              + "\"referenceFaces\":\(agreement.referenceFaces),\"matchedFaces\":\(agreement.matchedFaces),"
              + "\"recall\":\(r(agreement.recall)),\"extraFaces\":\(agreement.extraFaces),\"meanIoU\":\(r(agreement.meanIoU)),"
              + "\"meanKeypointErrorPx\":\(r(agreement.meanKeypointError, 100)),\"maxKeypointErrorPx\":\(r(agreement.maxKeypointError, 100))}")
    }

    struct Run {
        var elapsed: Duration
        var frames: [TrackingFrame]
        var statistics: VideoFaceTracker.Statistics
    }

    func runOnce(_ frames: [(RGBImage, Int)], every k: Int) throws -> Run {
        let tracker = try command.makeTracker(every: k)
        let clock = ContinuousClock(), start = clock.now
        var out: [TrackingFrame] = []
        for (image, t) in frames {
            do { out.append(try tracker.track(videoFrame: image, timestampInMilliseconds: t)) } catch { throw ToolError(error.description) }
        }
        return Run(elapsed: clock.now - start, frames: out, statistics: tracker.statistics)
    }
}
