import BlazeFace

/// A face box and keypoints in pixels: what association compares.
struct FaceGeometry: Sendable {
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

    func translated(by offset: SIMD2<Float>) -> FaceGeometry {
        FaceGeometry(center: center + offset, size: size, keypoints: keypoints.map { $0 + offset })
    }

    /// The box in pixels.
    var rect: NormalizedRect {
        NormalizedRect(xMin: center.x - size.x / 2, yMin: center.y - size.y / 2, width: size.x, height: size.y)
    }

    /// Intersection over union of the two boxes (`NormalizedRect.intersectionOverUnion`, in pixels).
    func iou(_ other: FaceGeometry) -> Float { rect.intersectionOverUnion(other.rect) }

    /// The share of this box's area inside `other`'s (0 for an empty box).
    func shareInside(_ other: FaceGeometry) -> Float {
        let area = size.x * size.y
        return area > 0 ? rect.intersectionArea(other.rect) / area : 0
    }

    /// Mean distance between corresponding keypoints, in units of this face's scale.
    func keypointDistance(_ other: FaceGeometry) -> Float {
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
    var geometry: FaceGeometry
    /// Pixels per millisecond.
    var velocity: SIMD2<Float> = .zero
    var lastSeen: Int
    var missingFrames = 0
    /// Frames missing while presumed hidden behind a nearer face (not counted in `missingFrames`).
    var hiddenFrames = 0
    var observations = 1
    var smoother: OneEuroFilter?

    /// Where the face should be at `timestamp`, moving on at its last velocity.
    func predicted(at timestamp: Int) -> FaceGeometry {
        geometry.translated(by: velocity * Float(timestamp - lastSeen))
    }

    /// Takes in a new observation; the velocity is the mean of the old estimate and the new
    /// measurement (the measurement alone on the second sighting and after a gap).
    mutating func observe(_ g: FaceGeometry, at timestamp: Int) {
        let dt = Float(timestamp - lastSeen)
        if dt > 0 {
            let measured = (g.center - geometry.center) / dt
            velocity = missingFrames == 0 && observations > 1 ? (velocity + measured) / 2 : measured
        }
        geometry = g
        lastSeen = timestamp
        (missingFrames, hiddenFrames) = (0, 0)
        observations += 1
    }
}
