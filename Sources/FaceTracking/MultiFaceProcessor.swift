import BlazeFace

/// A tracker of one face, created for it when it first appears: Mobile Vision's `Tracker<Face>`.
/// Every call has an empty default, so an implementation overrides only what it needs.
public protocol PerFaceTracker: AnyObject {
    /// The face appeared, with this ID; `onUpdate` follows for the same frame (as in Mobile Vision).
    func onNew(trackingID: Int, face: TrackedFace)
    /// The face was detected in this frame.
    func onUpdate(face: TrackedFace, frame: TrackingFrame)
    /// The face was not detected in this frame but is still being waited for.
    func onMissing(frame: TrackingFrame)
    /// The face is gone (missing too long, or the stream ended); no more calls follow.
    func onDone()
}

extension PerFaceTracker {
    public func onNew(trackingID: Int, face: TrackedFace) {}
    public func onUpdate(face: TrackedFace, frame: TrackingFrame) {}
    public func onMissing(frame: TrackingFrame) {}
    public func onDone() {}
}

/// Fans tracking frames out to one `PerFaceTracker` per face, made by a registered factory:
/// Mobile Vision's `MultiProcessor` with its `Factory`. Not thread-safe: call it from the one
/// place that produces the frames, in order.
public final class MultiFaceProcessor {
    private let factory: (TrackedFace) -> any PerFaceTracker
    private var trackers: [Int: any PerFaceTracker] = [:]

    /// `factory` is called once per new face and returns that face's tracker.
    public init(factory: @escaping (TrackedFace) -> any PerFaceTracker) { self.factory = factory }

    /// IDs with a live tracker.
    public var trackedIDs: [Int] { trackers.keys.sorted() }

    /// Delivers one frame: onNew (then onUpdate) for new faces, onUpdate for the others seen,
    /// onMissing for faces not seen, onDone for retired ones.
    public func receive(_ frame: TrackingFrame) {
        for face in frame.faces {
            guard let id = face.trackingID else { continue }
            if trackers[id] == nil {
                let tracker = factory(face)
                trackers[id] = tracker
                tracker.onNew(trackingID: id, face: face)
            }
            trackers[id]?.onUpdate(face: face, frame: frame)
        }
        for id in frame.missingIDs { trackers[id]?.onMissing(frame: frame) }
        for id in frame.retiredIDs { trackers.removeValue(forKey: id)?.onDone() }
    }

    /// The stream is over: onDone for every face still tracked, in ID order.
    public func finish() {
        for id in trackers.keys.sorted() { trackers.removeValue(forKey: id)?.onDone() }
    }
}
