import BlazeFace

/// Where one face's mask goes on one video frame: the face's tracking ID, its box (normalized),
/// whether the detector found it there (false: its track's predicted place, a face lost or
/// hidden behind another), and whether the face is confirmed (`FaceRedactorOptions.confirmationScore`):
/// `LookBehind` masks only a confirmed face on the frames before it was found, or found again.
public struct RedactionMask: Sendable, Equatable {
    public var trackingID: Int
    public var box: NormalizedRect
    public var isDetected: Bool
    /// False for a detection not confirmed yet (a low score, seen once): masked on its own frame
    /// only, not spread or backfilled by `LookBehind` unless a later mask of its face confirms it.
    public var isConfirmed: Bool
    /// Why it is drawn: `.detected` or `.tracked` by default, from `isDetected`.
    public var reason: MaskReason
    /// The detection's score, for a mask detected on its frame.
    public var score: Float?

    public init(trackingID: Int, box: NormalizedRect, isDetected: Bool, isConfirmed: Bool = true, reason: MaskReason? = nil,
                score: Float? = nil) {
        (self.trackingID, self.box, self.isDetected, self.isConfirmed) = (trackingID, box, isDetected, isConfirmed)
        (self.reason, self.score) = (reason ?? (isDetected ? .detected : .tracked), score)
    }

    /// The scale of a guessed box (a face lost, or not found yet) `frames` frames away from a
    /// sighting: `base`, and 15% more a frame, as its place is less sure, at most 2.5 times.
    static func growth(framesAway frames: Int, from base: Float = 1) -> Float {
        min(2.5, base + 0.15 * Float(frames))
    }
}

/// Why a mask is drawn on a frame: what a masks file records, so that a person can check the
/// masks that were guesses first.
public enum MaskReason: String, Sendable, CaseIterable {
    /// The face was detected on this frame.
    case detected
    /// Not detected on this frame: where its track places it (a face lost for a few frames,
    /// hidden behind another, or lingering after it was last seen).
    case tracked
    /// Before the face was found: followed back to this frame by a search about its later box, or by its look.
    case retraced
    /// Before the face was found: its place guessed back along its first motion, growing.
    case beforeFound = "before-found"
    /// Near the end of a video, after its last mask: held where it was, growing.
    case heldToEnd = "held-to-end"
    /// A fixed region the user asked to mask (`MaskPolicy.regions`), with no face needed.
    case region
    /// A face's mask the user asked to leave undrawn (`MaskPolicy`: a kept track, or a mask
    /// wholly inside a kept region): recorded, not drawn.
    case kept
    /// A box a reviewer added (the review page) where a face was missed, on its frame and, its
    /// face followed, on the frames around it (`MasksFile.carryingAdditions`).
    case added
}

/// What a user adds to and takes from the masks the redactor finds: fixed regions always
/// masked (a screen, a badge), and faces left unmasked (a presenter who consented). Fail-secure:
/// a kept region leaves a mask undrawn only when the mask lies wholly inside it.
public struct MaskPolicy: Sendable, Equatable {
    /// A region masked on every frame from `from` to `to` (milliseconds, inclusive; nil: open).
    public struct Region: Sendable, Equatable {
        public var box: NormalizedRect
        public var from: Int?, to: Int?
        public init(box: NormalizedRect, from: Int? = nil, to: Int? = nil) { (self.box, self.from, self.to) = (box, from, to) }
    }
    public var regions: [Region]
    /// Tracking IDs whose masks are not drawn.
    public var keptTracks: Set<Int>
    /// A mask wholly inside one of these is not drawn.
    public var keptRegions: [NormalizedRect]

    public init(regions: [Region] = [], keptTracks: Set<Int> = [], keptRegions: [NormalizedRect] = []) {
        (self.regions, self.keptTracks, self.keptRegions) = (regions, keptTracks, keptRegions)
    }

    /// Whether it changes nothing.
    public var isEmpty: Bool { regions.isEmpty && keptTracks.isEmpty && keptRegions.isEmpty }

    /// `masks` with the kept ones marked `.kept` and the regions of time `t` (nil: a photo, every
    /// region) added as `.region`.
    public func applied(to masks: [DrawnMask], at t: Int?) -> [DrawnMask] {
        guard !isEmpty else { return masks }
        var out = masks.map { m -> DrawnMask in
            let inside = keptRegions.contains { k in
                m.box.xMin >= k.xMin && m.box.yMin >= k.yMin && m.box.xMin + m.box.width <= k.xMin + k.width
                    && m.box.yMin + m.box.height <= k.yMin + k.height
            }
            guard (m.trackingID >= 0 && keptTracks.contains(m.trackingID)) || inside else { return m }
            var kept = m
            kept.reason = .kept
            return kept
        }
        for r in regions where t.map({ t in (r.from.map { t >= $0 } ?? true) && (r.to.map { t <= $0 } ?? true) }) ?? true {
            out.append(DrawnMask(box: r.box, trackingID: -1, reason: .region))
        }
        return out
    }
}


/// One mask as drawn on a frame: the face box it covers (normalized, before
/// `RedactionOptions.maskScale`; a face's box unioned with its boxes in the frames around),
/// its face's tracking ID (-1: none), why it is drawn, and the detection's score when detected.
public struct DrawnMask: Sendable, Equatable {
    public var box: NormalizedRect
    public var trackingID: Int
    public var reason: MaskReason
    public var score: Float?

    public init(box: NormalizedRect, trackingID: Int, reason: MaskReason, score: Float? = nil) {
        (self.box, self.trackingID, self.reason, self.score) = (box, trackingID, reason, score)
    }
}
