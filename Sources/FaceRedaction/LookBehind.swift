import BlazeFace

/// Recorded video's second chance: frames wait a little (`delay` frames) before they are
/// written, and a face found late (a small face the tile scan reaches a few frames after it appears, or a
/// face coming out from behind something, found once most of it shows) is masked on the
/// waiting frames too, along its first motion run backwards: the mirror of lingering. And each
/// face's mask covers its boxes in the two frames before and after too. The masks of a live stream
/// cannot look back; a file's can.
///
/// Push each frame with its masks (`FaceRedactor.masks(inVideoFrame:timestampInMilliseconds:)`);
/// a frame comes back, with every box to mask on it, once `depth + 3` newer frames have come
/// (three more than the reach, so that a face found `depth` frames later has been seen moving);
/// `drain()` returns the rest at the end.
public struct LookBehind<Frame> {
    /// How many frames before its first sighting a face is masked (0...300).
    public let depth: Int
    /// Frames held back: `depth` and three more, to see a late face's motion.
    public var delay: Int { depth + 3 }
    private var waiting: [(frame: Frame, index: Int, masks: [(id: Int, box: NormalizedRect)])] = []
    /// The masks of the frames released last: the previous frames of the next one released.
    private var previous: [[(id: Int, box: NormalizedRect)]] = []
    private var next = 0
    /// Each face's first sightings (frame index, box), up to `Self.sightings`: its first motion.
    private var firstSeen: [Int: [(index: Int, box: NormalizedRect)]] = [:]
    /// Faces first seen before every waiting frame: nothing left to backfill (IDs are never reused).
    private var settled: Set<Int> = []
    /// Masks added to frames before their face was found.
    public private(set) var backfilledMasks = 0

    /// Sightings used to measure a new face's motion.
    static var sightings: Int { 6 }
    /// How much a backfilled box grows for each frame back (its place is less sure), at most 2.5x.
    static var growthPerFrame: Float { 0.15 }

    /// A window that masks a face found late on up to `depth` frames before it.
    public init(depth: Int) throws(DetectorError) {
        guard (0...300).contains(depth) else { throw .invalidOption(name: "depth", value: "\(depth)", allowed: "in 0...300") }
        self.depth = depth
    }

    /// Adds the next frame and its masks; returns the frame leaving the window, with all its
    /// boxes (its own and those of faces found after it), once `delay` frames wait.
    public mutating func push(_ frame: Frame, masks: [(id: Int, box: NormalizedRect)]) -> (frame: Frame, boxes: [NormalizedRect])? {
        // A face's first box in the frame (its detection) is its sighting.
        for m in masks where m.id >= 0 && !settled.contains(m.id) {
            var seen = firstSeen[m.id, default: []]
            if seen.count < Self.sightings && seen.last?.index != next { seen.append((next, m.box)); firstSeen[m.id] = seen }
        }
        waiting.append((frame, next, masks))
        next += 1
        guard waiting.count > delay else { return nil }
        return release()
    }

    /// The frames still waiting, oldest first, with their boxes (the end of the video).
    public mutating func drain() -> [(frame: Frame, boxes: [NormalizedRect])] {
        var out: [(frame: Frame, boxes: [NormalizedRect])] = []
        while !waiting.isEmpty { out.append(release()) }
        return out
    }

    private mutating func release() -> (frame: Frame, boxes: [NormalizedRect]) {
        let (frame, index, own) = waiting.removeFirst()
        // Each face's mask also covers its boxes in the two frames before and the two after (one
        // box over the five): a detection a little small, shifted or late in one frame, or a
        // face coming out from behind another, leaves no edge uncovered.
        let neighbours = previous.flatMap { $0 } + waiting.prefix(2).flatMap(\.masks)
        var boxes = own.map { m in
            neighbours.filter { $0.id == m.id && m.id >= 0 }.reduce(m.box) { $0.union($1.box) }
        }
        previous = Array((previous + [own]).suffix(2))
        // In ID order: masks that overlap are drawn in the same order on every run.
        for (_, seen) in firstSeen.sorted(by: { $0.key < $1.key }) {
            guard let first = seen.first, first.index > index, first.index - index <= depth else { continue }
            boxes.append(Self.extrapolate(seen, back: first.index - index))
            backfilledMasks += 1
        }
        // Faces first seen before every waiting frame can no longer be backfilled.
        let oldest = waiting.first?.index ?? next
        for (id, seen) in firstSeen where seen[0].index < oldest {
            firstSeen[id] = nil
            settled.insert(id)
        }
        return (frame, boxes)
    }

    /// Where the face may have been `back` frames before its first sighting: the box there and
    /// the box moved back along its first sightings' motion, both grown 15% per frame back (at
    /// most 2.5 times), as the motion is less sure the further back it is run; one box over both.
    /// (A face coming out from behind something seems to move as more of it shows: its first
    /// motion may be wrong, and its place then is near where it was found.)
    static func extrapolate(_ seen: [(index: Int, box: NormalizedRect)], back: Int) -> NormalizedRect {
        let first = seen[0], last = seen[seen.count - 1]
        func center(_ b: NormalizedRect) -> SIMD2<Float> { SIMD2(b.xMin + b.width / 2, b.yMin + b.height / 2) }
        let frames = Float(last.index - first.index)
        let velocity = frames > 0 ? (center(last.box) - center(first.box)) / frames : .zero
        let grow = min(2.5, 1 + growthPerFrame * Float(back))
        let (w, h) = (first.box.width * grow, first.box.height * grow)
        let moved = center(first.box) - velocity * Float(back), still = center(first.box)
        let lo = pointwiseMin(moved, still) - SIMD2(w, h) / 2, hi = pointwiseMax(moved, still) + SIMD2(w, h) / 2
        return NormalizedRect(xMin: lo.x, yMin: lo.y, width: hi.x - lo.x, height: hi.y - lo.y)
    }
}

