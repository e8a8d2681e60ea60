import BlazeFace

/// A face box and keypoints in pixels: what association compares.
struct TrackedBox: Sendable {
    var center: SIMD2<Float>
    var size: SIMD2<Float>
    var keypoints: [SIMD2<Float>]

    init(center: SIMD2<Float>, size: SIMD2<Float>, keypoints: [SIMD2<Float>]) {
        (self.center, self.size, self.keypoints) = (center, size, keypoints)
    }

    init(_ d: Detection, imageSize: SIMD2<Float>) {
        let r = d.relativeBoundingBox
        size = SIMD2(r.width, r.height) * imageSize
        center = SIMD2(r.xMin, r.yMin) * imageSize + size / 2
        keypoints = d.keypointList.map { SIMD2($0.x, $0.y) * imageSize }
    }

    /// The face's scale for distances: its larger side, at least one pixel.
    var scale: Float { max(size.x, size.y, 1) }

    func translated(by offset: SIMD2<Float>) -> TrackedBox {
        TrackedBox(center: center + offset, size: size, keypoints: keypoints.map { $0 + offset })
    }

    /// The box in pixels.
    var rect: PixelBox {
        PixelBox(xMin: center.x - size.x / 2, yMin: center.y - size.y / 2, width: size.x, height: size.y)
    }

    /// The box in `imageSize`'s normalized coordinates.
    func normalized(in imageSize: SIMD2<Float>) -> NormalizedRect {
        let origin = (center - size / 2) / imageSize, extent = size / imageSize
        return NormalizedRect(xMin: origin.x, yMin: origin.y, width: extent.x, height: extent.y)
    }

    /// The head around the face box (hair, ears, chin): 1.7 times as wide and twice as tall, about
    /// the same centre. What hides a face passing behind it.
    var head: TrackedBox { TrackedBox(center: center, size: size * SIMD2(1.7, 2), keypoints: []) }

    /// Intersection over union of the two boxes (MediaPipe's `Rectangle_f` arithmetic, in pixels).
    func iou(_ other: TrackedBox) -> Float { rect.intersectionOverUnion(other.rect) }

    /// The share of this box's area inside `other`'s (0 for an empty box).
    func shareInside(_ other: TrackedBox) -> Float {
        let area = size.x * size.y
        return area > 0 ? rect.intersectionArea(other.rect) / area : 0
    }

    /// Mean distance between corresponding keypoints, in units of this face's scale.
    func keypointDistance(_ other: TrackedBox) -> Float {
        let n = min(keypoints.count, other.keypoints.count)
        guard n > 0 else { return (center - other.center).length / scale }
        var sum: Float = 0
        for i in 0..<n { sum += (keypoints[i] - other.keypoints[i]).length }
        return sum / Float(n) / scale
    }
}

extension SIMD2<Float> {
    var length: Float { (x * x + y * y).squareRoot() }
}

/// One tracked face: where it was last seen, its velocity (constant-velocity motion model), how
/// long it has been missing, and its smoothing state.
struct Track: Sendable {
    let id: Int
    var geometry: TrackedBox
    /// Pixels per millisecond.
    var velocity: SIMD2<Float> = .zero
    var lastSeen: Int
    var missingFrames = 0
    /// Frames missing while presumed hidden (not counted in `missingFrames`).
    var hiddenFrames = 0
    var observations = 1
    /// Frames since the face was last detected, hidden or not.
    var framesMissing: Int { missingFrames + hiddenFrames }
    var smoother: OneEuroFilter?

    /// The most a box may grow (or shrink, by its inverse) between sightings and still measure motion.
    static let steadySize: Float = 1.1

    /// Where the face should be at `timestamp`, moving on at its last velocity.
    func predicted(at timestamp: Int) -> TrackedBox {
        geometry.translated(by: velocity * Float(timestamp - lastSeen))
    }

    /// Takes in a new observation; the velocity is the mean of the old estimate and the new
    /// measurement (the measurement alone on the second sighting and after a gap). A box that
    /// grew or shrank by more than `steadySize` since the last is not a motion: a face going
    /// behind something or out of the picture is found smaller, on its visible side (the box's
    /// centre moves away from where the face goes), so it keeps the old velocity.
    mutating func observe(_ g: TrackedBox, at timestamp: Int) {
        let dt = Float(timestamp - lastSeen)
        let change = g.scale / geometry.scale
        if dt > 0, (1 / Self.steadySize...Self.steadySize).contains(change) {
            let measured = (g.center - geometry.center) / dt
            velocity = missingFrames == 0 && observations > 1 ? (velocity + measured) / 2 : measured
        }
        geometry = g
        lastSeen = timestamp
        (missingFrames, hiddenFrames) = (0, 0)
        observations += 1
    }
}
