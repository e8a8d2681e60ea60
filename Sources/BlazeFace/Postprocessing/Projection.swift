/// Maps detections from normalized tensor coordinates to normalized image coordinates with the
/// letterbox's 4x4 matrix (DetectionProjectionCalculator), in float, in MediaPipe's order.
struct DetectionProjection {
    let m: SIMD16<Float>

    @inline(__always) func project(_ x: Float, _ y: Float) -> (x: Float, y: Float) {
        (x * m[0] + y * m[1] + m[3], x * m[4] + y * m[5] + m[7])
    }

    /// Keypoints map directly; the box becomes the axis-aligned box around its four mapped corners.
    func callAsFunction(_ d: inout RawDetection) {
        for k in d.keypoints.indices { d.keypoints[k] = project(d.keypoints[k].x, d.keypoints[k].y) }
        let (x0, y0, w, h) = (d.box.xMin, d.box.yMin, d.box.width, d.box.height)
        var left = Float.greatestFiniteMagnitude, top = Float.greatestFiniteMagnitude
        var right = -Float.greatestFiniteMagnitude, bottom = -Float.greatestFiniteMagnitude
        func include(_ p: (x: Float, y: Float)) {
            left = min(left, p.x); top = min(top, p.y)
            right = max(right, p.x); bottom = max(bottom, p.y)
        }
        include(project(x0, y0)); include(project(x0 + w, y0))
        include(project(x0 + w, y0 + h)); include(project(x0, y0 + h))
        d.box = NormalizedRect(xMin: left, yMin: top, width: right - left, height: bottom - top)
    }
}

extension BoundingBox {
    /// MediaPipe Tasks' pixel box (detection_transformation_calculator.cc): each normalized
    /// field times the image size in float, truncated toward zero, clamped to 0...size.
    public init(_ box: NormalizedRect, imageWidth: Int, imageHeight: Int) {
        func bounded(_ v: Float, _ size: Int) -> Int {
            let scaled = v * Float(size)
            guard scaled.isFinite else { return 0 }
            return min(max(Int(scaled.rounded(.towardZero)), 0), size)
        }
        self.init(originX: bounded(box.xMin, imageWidth), originY: bounded(box.yMin, imageHeight),
                  width: bounded(box.width, imageWidth), height: bounded(box.height, imageHeight))
    }
}
