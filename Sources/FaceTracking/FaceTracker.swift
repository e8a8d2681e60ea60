import BlazeFace
import VisionTasks

/// Gives each detection a tracking ID that follows the face from frame to frame (ML Kit's
/// trackingID): association by overlap and keypoint distance against a constant-velocity
/// prediction, greedy by cost (`Association`); IDs are never reused; a face missing for up to
/// `maxMissingFrames` frames keeps its ID; optional one-euro smoothing.
///
/// A value type with no locks: feed it frames in timestamp order from one place (the video
/// loop, or the live stream's result handler, which runs on one serial queue).
public struct FaceTracker: Sendable {
    public let options: FaceTrackingOptions
    private var tracks: [Track] = []
    private var nextID = 1
    private var timestamps = TimestampGate()

    public init(options: FaceTrackingOptions = FaceTrackingOptions()) throws(VisionTaskError) {
        self.options = try options.validated()
    }

    /// The IDs of the faces being tracked (seen in the last frame or missing for a while).
    public var activeIDs: [Int] { tracks.map(\.id) }

    /// Where each face seen in the last frame should be at `timestamp`, as (ID, normalized box).
    public func predictedBoxes(at timestamp: Int, imageWidth: Int, imageHeight: Int) -> [(id: Int, box: NormalizedRect)] {
        predictedBoxes(at: timestamp, imageWidth: imageWidth, imageHeight: imageHeight, includingMissing: false)
    }

    /// The same, for the tracks missing from the last frame too (`includingMissing`): where a face
    /// the detector lost is expected now, along its last motion (what redaction keeps masked).
    public func predictedBoxes(at timestamp: Int, imageWidth: Int, imageHeight: Int,
                               includingMissing: Bool) -> [(id: Int, box: NormalizedRect)] {
        let size = SIMD2(Float(imageWidth), Float(imageHeight))
        return tracks.filter { includingMissing || $0.framesMissing == 0 }.map { ($0.id, $0.predicted(at: timestamp).normalized(in: size)) }
    }

    /// The faces missing from the last frame (lost or hidden): where each was last seen, where it
    /// should be at `timestamp`, and for how many frames it has been missing (normalized boxes).
    package func missingFaces(at timestamp: Int, imageWidth: Int,
                              imageHeight: Int) -> [(id: Int, lastSeen: NormalizedRect, predicted: NormalizedRect, frames: Int)] {
        let size = SIMD2(Float(imageWidth), Float(imageHeight))
        return tracks.filter { $0.framesMissing > 0 }.map { t in
            (t.id, t.geometry.normalized(in: size), t.predicted(at: timestamp).normalized(in: size), t.framesMissing)
        }
    }

    /// Takes one frame's detections (any order) and returns them with IDs, highest score first.
    /// Timestamps (ms) must strictly increase.
    public mutating func update(_ result: FaceDetectorResult, imageWidth: Int, imageHeight: Int,
                                timestampInMilliseconds timestamp: Int) throws(VisionTaskError) -> TrackingFrame {
        try timestamps.check(timestamp)
        guard imageWidth > 0, imageHeight > 0 else {
            throw .invalidImage("image size \(imageWidth)x\(imageHeight) must be positive")
        }
        timestamps.record(timestamp)
        let detections = result.detections.sorted { $0.score > $1.score }
        guard options.trackingEnabled else {
            return TrackingFrame(timestampInMilliseconds: timestamp,
                                 faces: detections.map { TrackedFace(trackingID: nil, detection: $0) })
        }
        let size = SIMD2(Float(imageWidth), Float(imageHeight))
        let observed = detections.map { TrackedBox($0, imageSize: size) }
        let pairs = Association.greedy(tracks: tracks.map { $0.predicted(at: timestamp) }, detections: observed, options: options)

        var frame = TrackingFrame(timestampInMilliseconds: timestamp, faces: [])
        var idOfDetection = [Int?](repeating: nil, count: detections.count)
        var matched = [Bool](repeating: false, count: tracks.count)
        for (t, d) in pairs {
            tracks[t].observe(observed[d], at: timestamp)
            matched[t] = true
            idOfDetection[d] = tracks[t].id
        }
        // Unmatched tracks go missing, and are retired past the gap allowed; one presumed hidden
        // is held instead, up to `maxHiddenFrames`.
        let picture = TrackedBox(center: size / 2, size: size, keypoints: [])
        var kept: [Track] = []
        for (t, var track) in tracks.enumerated() {
            if !matched[t] {
                if track.hiddenFrames < options.maxHiddenFrames,
                   Self.presumedHidden(track.predicted(at: timestamp), among: observed, picture: picture) {
                    track.hiddenFrames += 1
                    frame.missingIDs.append(track.id)
                    kept.append(track)
                    continue
                }
                track.missingFrames += 1
                if track.missingFrames > options.maxMissingFrames { frame.retiredIDs.append(track.id); continue }
                frame.missingIDs.append(track.id)
            }
            kept.append(track)
        }
        tracks = kept
        // Unmatched detections start new tracks with fresh IDs.
        for d in detections.indices where idOfDetection[d] == nil {
            var track = Track(id: nextID, geometry: observed[d], lastSeen: timestamp)
            if let p = options.smoothing { track.smoother = OneEuroFilter(parameters: p) }
            nextID += 1
            tracks.append(track)
            idOfDetection[d] = track.id
            frame.newIDs.append(track.id)
        }
        for (d, detection) in detections.enumerated() {
            guard let id = idOfDetection[d] else { continue }   // never: every detection got an ID above
            frame.faces.append(TrackedFace(trackingID: id, detection: smoothed(detection, id: id, timestamp: timestamp,
                                                                                imageWidth: imageWidth, imageHeight: imageHeight)))
        }
        return frame
    }

    /// Whether a face the detector missed is presumably hidden, not gone: partly out of the
    /// picture (leaving it, or not yet in), behind the head of a face about as large or larger
    /// (nearer) detected over it, or behind a smaller face detected in front of it (its box mostly
    /// inside the missing face's: a detector misses a face whose eyes or mouth are covered).
    private static func presumedHidden(_ p: TrackedBox, among observed: [TrackedBox], picture: TrackedBox) -> Bool {
        let inPicture = p.shareInside(picture)
        if inPicture > 0 && inPicture < wholeShare { return true }
        return observed.contains { d in
            d.size.x >= occluderSize * p.size.x ? p.shareInside(d.head) >= 0.5 : d.shareInside(p) >= 0.5
        }
    }

    /// A face whose box shows less than this share in the picture is partly out of it: the
    /// detector misses such a face, as half of it is not there to see.
    static let wholeShare: Float = 0.95
    /// A detection this large against a missing face's size (or larger) may hide it: nearer
    /// faces are larger, and two faces of a size crossing hide each other (or merge in one box).
    static let occluderSize: Float = 0.8

    /// Ends tracking: every remaining ID is retired (returned); the ID counter keeps counting.
    public mutating func retireAll() -> [Int] {
        defer { tracks.removeAll() }
        return tracks.map(\.id)
    }

    /// The detection passed through its track's one-euro filter (box x, y, w, h and keypoints,
    /// in face widths); unchanged when smoothing is off.
    private mutating func smoothed(_ d: Detection, id: Int, timestamp: Int, imageWidth: Int, imageHeight: Int) -> Detection {
        guard let t = tracks.firstIndex(where: { $0.id == id }), var filter = tracks[t].smoother else { return d }
        let r = d.relativeBoundingBox
        var values = [r.xMin, r.yMin, r.width, r.height]
        for p in d.keypointList { values += [p.x, p.y] }
        let scale = 1 / max(r.width, r.height, 1e-6)
        let out = filter(values, timestamp: timestamp, scale: scale)
        tracks[t].smoother = filter
        var s = d
        s.relativeBoundingBox = NormalizedRect(xMin: out[0], yMin: out[1], width: out[2], height: out[3])
        s.boundingBox = BoundingBox(s.relativeBoundingBox, imageWidth: imageWidth, imageHeight: imageHeight)
        for k in s.keypointList.indices { s.keypointList[k] = (out[4 + 2 * k], out[5 + 2 * k]) }
        return s
    }
}
