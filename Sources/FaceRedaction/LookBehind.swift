import BlazeFace
import VisionTasks

/// Recorded video's second chance: frames wait a little (`delay` frames) before they are
/// written, and a face found late (a small face the tile scan reaches a few frames after it
/// appears, or a face coming out from behind something, found once most of it shows) or found
/// again after frames the detector missed it is masked on the waiting frames before too, along
/// its first motion run backwards: the mirror of lingering. And each face's mask covers its boxes
/// in the two frames before and after too. The masks of a live stream cannot look back; a file's can.
///
/// With a `retrace` search (what `RecordingRedactor` passes: `FaceRedactor.face(near:in:)`), a
/// confirmed face found late is followed backwards through the waiting frames, frame by frame
/// from where it was found, so that its earlier masks lie where the face was, not where its
/// first motion guessed it; only the frames before the trace lost it get the guessed, growing box.
/// With a `follow` too, the trace goes on by the face's look where the detector no longer finds
/// it (a face too small for it further back, turned away, blurred by motion), and a confirmed
/// face the detector loses is followed on by its look, frame by frame, for up to `depth` frames.
///
/// Push each frame with its masks (`FaceRedactor.masks(inVideoFrame:timestampInMilliseconds:)`);
/// a frame comes back, with every box to mask on it, once `depth + 3` newer frames have come
/// (three more than the reach, so that a face found `depth` frames later has been seen moving);
/// `drain()` returns the rest at the end.
public struct LookBehind<Frame> {
    /// How many frames before it is found (or found again) a face is masked (0...300).
    public let depth: Int
    /// Frames held back: `depth` and three more, to see a late face's motion.
    public var delay: Int { depth + 3 }
    private var waiting: [(frame: Frame, index: Int, masks: [RedactionMask])] = []
    /// The masks of the frames released last: the previous frames of the next one released.
    private var previous: [[RedactionMask]] = []
    private var next = 0
    /// The last frame each face was detected in (faces detected in the window's reach).
    private var lastDetected: [Int: Int] = [:]
    /// Faces found, or found again, in the waiting frames: the frames before that may need them.
    private var finds: [Find] = []
    /// Masks added to frames before their face was found.
    public private(set) var backfilledMasks = 0
    /// Masks kept to the end of the recording (see `drain()`).
    public private(set) var endMasks = 0
    /// Each face's latest mask (detected or lingering): where it was last masked, and when; and
    /// its latest detected mask (`seen`), which may be that one.
    private var lastMasked: [Int: (index: Int, box: NormalizedRect, seen: (index: Int, box: NormalizedRect)?)] = [:]
    /// The faces confirmed so far (`RedactionMask.isConfirmed`): only these are spread over
    /// their neighbouring frames' boxes and masked on the frames before they were found. A
    /// face confirmed later (seen again) is, as long as its frames still wait.
    private var confirmed: Set<Int> = []
    /// Finds the face near a box in an earlier frame (nil: no retracing).
    private let retrace: Retrace?
    /// Finds a face by its look in a neighbouring frame, where the detector does not (nil: no following).
    private let follow: Follow?
    /// Faces to follow on by their look once the detector loses them: their box on the latest
    /// frame they were detected or followed in (when they were last detected is `lastDetected`'s).
    private var followed: [Int: (index: Int, box: NormalizedRect)] = [:]
    /// Masks placed on earlier frames by following a found face backwards (`retrace`, `follow`).
    public private(set) var retracedMasks = 0

    /// Where a face is in a frame, given where it is in the frame after: its box, or nil if it is
    /// not found there. The frame is the caller's, lent for the call.
    public typealias Retrace = (inout Frame, NormalizedRect) -> NormalizedRect?
    /// Where the face in a box of a frame is in the frame before or after it, by its look: its
    /// box there, or nil if nothing there looks like it (what `RecordingRedactor` passes: a patch match).
    public typealias Follow = (NormalizedRect, _ from: Frame, _ into: Frame) -> NormalizedRect?

    /// A face found after frames without it: since when it was not detected (`Int.min`: never
    /// before), and its first sightings (frame index, box), up to `LookBehind.sightings`: its first
    /// motion. Once retraced, `sightings` start with the earliest frames the trace found it in.
    private struct Find {
        let id: Int
        let unseenSince: Int
        var sightings: [(index: Int, box: NormalizedRect)]
        /// The frame the face was found in (the first detection after frames without it).
        let found: Int
        /// Whether it was followed back through the waiting frames yet.
        var retraced = false
        /// The earliest frame the trace followed it to (`found` before a trace, or if it found nothing).
        var tracedTo: Int
    }

    /// Sightings used to measure a found face's motion.
    static var sightings: Int { 6 }
    /// Frames in a row a trace may miss the face before it stops (a blink of the detector).
    static var retraceMisses: Int { 2 }
    /// The most a box's side (the square root of its area, which a normalized box keeps) may
    /// grow, or shrink by its inverse, between sightings and still measure motion: the tracker's
    /// 10% (`FaceTracking`'s `Track.steadySize`, on the longer side in pixels).
    static var steadySize: Float { 1.1 }

    /// A window that masks a face found late on up to `depth` frames before it; with `retrace`,
    /// a confirmed face found late is followed backwards through the frames before, where it
    /// can be found, and with `follow` where it looks the same.
    public init(depth: Int, retrace: Retrace? = nil, follow: Follow? = nil) throws(VisionTaskError) {
        guard (0...300).contains(depth) else { throw .invalidOption(name: "depth", value: "\(depth)", allowed: "in 0...300") }
        self.depth = depth
        (self.retrace, self.follow) = (retrace, follow)
    }

    /// Adds the next frame and its masks; returns the frame leaving the window, with all its
    /// boxes (its own and those of faces found after it), once `delay` frames wait.
    public mutating func push(_ frame: Frame, masks: [RedactionMask]) -> (frame: Frame, boxes: [NormalizedRect])? {
        pushDrawn(frame, masks: masks).map { ($0.frame, $0.masks.map(\.box)) }
    }

    /// The frames still waiting, oldest first, with their boxes (see `drainDrawn()`).
    public mutating func drain() -> [(frame: Frame, boxes: [NormalizedRect])] {
        drainDrawn().map { ($0.frame, $0.masks.map(\.box)) }
    }

    /// `push(_:masks:)`, with each box of the frame leaving the window as a `DrawnMask`: its
    /// face's ID and why it is drawn there.
    public mutating func pushDrawn(_ frame: Frame, masks: [RedactionMask]) -> (frame: Frame, masks: [DrawnMask])? {
        for m in masks where m.isConfirmed && m.trackingID >= 0 { confirmed.insert(m.trackingID) }
        var masks = masks
        if let follow { masks += followLost(into: frame, masks, follow) }
        for m in masks where m.isDetected && m.trackingID >= 0 {
            let last = lastDetected[m.trackingID]
            if last == next - 1 {
                // Seen on the frame before: one more sighting of its latest find, if any is open.
                if let k = finds.lastIndex(where: { $0.id == m.trackingID }), finds[k].sightings.count < Self.sightings,
                   finds[k].sightings.last?.index == next - 1 {
                    finds[k].sightings.append((next, m.box))
                }
            } else if last != next {
                finds.append(Find(id: m.trackingID, unseenSince: last.map { $0 + 1 } ?? .min, sightings: [(next, m.box)],
                                  found: next, tracedTo: next))
            }
            lastDetected[m.trackingID] = next
        }
        for m in masks where m.trackingID >= 0 {
            lastMasked[m.trackingID] = (next, m.box, m.isDetected ? (next, m.box) : lastMasked[m.trackingID]?.seen)
        }
        waiting.append((frame, next, masks))
        next += 1
        retraceConfirmedFinds()
        guard waiting.count > delay else { return nil }
        return release()
    }

    /// The frames still waiting, oldest first, with their masks (the end of the video). The last
    /// frames are as safe as any other: a confirmed face masked on one of the last `depth`
    /// frames, but not on the last, stays masked on every frame after its last mask, with a box
    /// growing each frame from that mask, as its finding again would have bridged the gap
    /// mid-video. A face last masked while lost keeps that mask (already grown for the frames
    /// it was missing) and its last detection's, growing on from there: a lost face's mask is
    /// not grown twice (it had made a 30-pixel face's mask 156 pixels wide).
    public mutating func drainDrawn() -> [(frame: Frame, masks: [DrawnMask])] {
        for (id, last) in lastMasked.sorted(by: { $0.key < $1.key })
        where confirmed.contains(id) && last.index < next - 1 && next - 1 - last.index <= depth {
            let seen = last.seen.flatMap { $0.index < last.index ? $0 : nil }
            for k in waiting.indices where waiting[k].index > last.index {
                let box = seen.map { last.box.union($0.box.scaled(by: RedactionMask.growth(framesAway: waiting[k].index - $0.index))) }
                    ?? last.box.scaled(by: RedactionMask.growth(framesAway: waiting[k].index - last.index))
                waiting[k].masks.append(RedactionMask(trackingID: id, box: box, isDetected: false, reason: .heldToEnd))
                endMasks += 1
            }
        }
        var out: [(frame: Frame, masks: [DrawnMask])] = []
        while !waiting.isEmpty { out.append(release()) }
        return out
    }

    private mutating func release() -> (frame: Frame, masks: [DrawnMask]) {
        let (frame, index, own) = waiting.removeFirst()
        // Each face's mask also covers its boxes in the two frames before and the two after (one
        // box over the five): a detection a little small, shifted or late in one frame, or a
        // face coming out from behind another, leaves no edge uncovered.
        let neighbours = previous.flatMap { $0 } + waiting.prefix(2).flatMap(\.masks)
        var boxes = own.map { m in
            let box = confirmed.contains(m.trackingID) ? neighbours.filter { $0.trackingID == m.trackingID }.reduce(m.box) { $0.union($1.box) } : m.box
            return DrawnMask(box: box, trackingID: m.trackingID, reason: m.reason, score: m.score)
        }
        previous = Array((previous + [own]).suffix(2))
        // Finds in (frame, ID) order: masks that overlap are drawn in the same order on every run.
        for find in finds.sorted(by: { ($0.sightings[0].index, $0.id) < ($1.sightings[0].index, $1.id) }) {
            // Frames the trace followed the face to have its mask already (their own); those
            // before get the guess, from the earliest frames it was followed to.
            let first = find.sightings[0].index
            guard first > index, index >= find.unseenSince, find.found - index <= depth, confirmed.contains(find.id) else { continue }
            boxes.append(DrawnMask(box: Self.extrapolate(find.sightings, back: first - index), trackingID: find.id, reason: .beforeFound))
            backfilledMasks += 1
        }
        // Finds before every waiting frame have nothing left to backfill, and faces last
        // detected before them nothing to bridge.
        let oldest = waiting.first?.index ?? next
        finds.removeAll { $0.found < oldest }
        lastDetected = lastDetected.filter { $0.value >= oldest - 1 }
        lastMasked = lastMasked.filter { $0.value.index >= next - 1 - depth }
        return (frame, boxes)
    }

    /// The confirmed faces the detector lost on this frame (`masks` holds no detection of them),
    /// each followed on by its look from its box on the frame before, for at most `depth` frames
    /// after it was last detected: their masks here (`.tracked`, beside the tracker's own guess).
    /// The mirror of the trace back: a face walking away from a camera, too small for the
    /// detector, stays masked where it is, not only where the tracker's linger left it.
    private mutating func followLost(into frame: Frame, _ masks: [RedactionMask], _ follow: Follow) -> [RedactionMask] {
        var detected: [Int: NormalizedRect] = [:]
        for m in masks where m.isDetected && m.trackingID >= 0 && detected[m.trackingID] == nil { detected[m.trackingID] = m.box }
        var added: [RedactionMask] = []
        let before = waiting.last?.frame
        for (id, face) in followed.sorted(by: { $0.key < $1.key }) where detected[id] == nil {
            guard let before, face.index == next - 1, let seen = lastDetected[id], next - seen <= depth,
                  confirmed.contains(id), let box = follow(face.box, before, frame) else {
                followed[id] = nil
                continue
            }
            added.append(RedactionMask(trackingID: id, box: box, isDetected: false, reason: .tracked))
            followed[id] = (next, box)
        }
        for (id, box) in detected { followed[id] = (next, box) }
        return added
    }

    /// Follows each confirmed face found late back through the waiting frames before it, frame by
    /// frame, each search about its box in the frame after (by the detector, until it has missed
    /// `retraceMisses` frames in a row; then, or where it misses, by `follow`), until both miss
    /// for `retraceMisses` frames in a row, it was last detected, or the window's reach ends; the
    /// boxes found become its masks there (spread over neighbouring frames like any other), and
    /// its earliest ones the sightings the frames before are guessed from.
    private mutating func retraceConfirmedFinds() {
        guard let retrace else { return }
        for k in finds.indices where !finds[k].retraced && confirmed.contains(finds[k].id) {
            finds[k].retraced = true
            let find = finds[k]
            guard let start = waiting.firstIndex(where: { $0.index == find.found }) else { continue }
            var box = find.sightings[0].box, misses = 0, detectorMisses = 0
            var traced: [(index: Int, box: NormalizedRect)] = []
            var w = start - 1
            while w >= 0, waiting[w].index >= find.unseenSince, find.found - waiting[w].index <= depth {
                var found: NormalizedRect?
                if detectorMisses <= Self.retraceMisses {
                    found = retrace(&waiting[w].frame, box)
                    detectorMisses = found == nil ? detectorMisses + 1 : 0
                }
                if found == nil, let follow { found = follow(box, waiting[w + 1 + misses].frame, waiting[w].frame) }
                if let seen = found {
                    // A mask at the face's place there; a frame missed between two finds gets
                    // one box over both.
                    let index = waiting[w].index
                    for m in stride(from: w + 1, to: w + 1 + misses, by: 1) {
                        waiting[m].masks.append(RedactionMask(trackingID: find.id, box: seen.union(box), isDetected: false, reason: .retraced))
                        retracedMasks += 1
                    }
                    waiting[w].masks.append(RedactionMask(trackingID: find.id, box: seen, isDetected: false, reason: .retraced))
                    retracedMasks += 1
                    traced.append((index, seen))
                    (box, misses) = (seen, 0)
                } else {
                    misses += 1
                    if misses > Self.retraceMisses { break }
                }
                w -= 1
            }
            guard !traced.isEmpty else { continue }
            // The guess for the frames before starts at the earliest frames the face was followed to.
            finds[k].tracedTo = traced.last!.index
            finds[k].sightings = Array(traced.suffix(Self.sightings).reversed())
        }
    }

    /// Where the face may have been `back` frames before its first sighting: the box there and
    /// the box moved back along its first sightings' motion, both as large as the largest of
    /// those sightings and grown 15% per frame back (at most 2.5 times), as the motion is less
    /// sure the further back it is run; one box over both. (A face coming out from behind
    /// something is found smaller than it is, and seems to move as more of it shows: its first
    /// motion may be wrong, and its place then is near where it was found.) The motion is
    /// measured by the tracker's rule: only between sightings whose size changes by at most
    /// `steadySize`; a box that grows or shrinks moves its centre without the face moving (two
    /// sightings a frame apart, the second a third smaller, had run a 30-pixel head 200 pixels
    /// away over 60 frames, onto nothing). And it is run back no further than it was seen: a
    /// motion measured over n frames moves the guess at most n frames' worth; beyond, the box
    /// only grows (one frame's shift of a head walking past a camera at 10 frames/s, run back 60
    /// frames, had masked a box over most of an empty room).
    static func extrapolate(_ seen: [(index: Int, box: NormalizedRect)], back: Int) -> NormalizedRect {
        let first = seen[0]
        func center(_ b: NormalizedRect) -> SIMD2<Float> { SIMD2(b.xMin + b.width / 2, b.yMin + b.height / 2) }
        var moved = SIMD2<Float>.zero, frames: Float = 0
        for (a, b) in zip(seen, seen.dropFirst()) {
            let change = (b.box.width * b.box.height / (a.box.width * a.box.height)).squareRoot()
            guard (1 / steadySize...steadySize).contains(change) else { continue }
            moved += center(b.box) - center(a.box)
            frames += Float(b.index - a.index)
        }
        let velocity = frames > 0 ? moved / frames : .zero
        let grow = RedactionMask.growth(framesAway: back)
        let (w, h) = (seen.map(\.box.width).max()! * grow, seen.map(\.box.height).max()! * grow)
        let runBack = center(first.box) - velocity * min(Float(back), frames), still = center(first.box)
        let lo = pointwiseMin(runBack, still) - SIMD2(w, h) / 2, hi = pointwiseMax(runBack, still) + SIMD2(w, h) / 2
        return NormalizedRect(xMin: lo.x, yMin: lo.y, width: hi.x - lo.x, height: hi.y - lo.y)
    }
}
