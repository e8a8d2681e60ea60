import BlazeImage

extension FaceAnalysis {
    /// Draws ML Kit's view of this face (`analyze --annotate`): each contour as a polyline in
    /// cyan (the face oval and the eyes closed), each landmark as a magenta dot, sized to the picture.
    public func draw(on image: inout RGBImage) {
        let thickness = max(1, min(image.width, image.height) / 400)
        let (w, h) = (Double(image.width), Double(image.height))
        let contourColor: (r: UInt8, g: UInt8, b: UInt8) = (0, 255, 255), landmarkColor: (r: UInt8, g: UInt8, b: UInt8) = (255, 0, 255)
        for contour in contours ?? [] {
            var points = contour.points
            if [.face, .leftEye, .rightEye].contains(contour.type), let first = points.first { points.append(first) }
            for (a, b) in zip(points, points.dropFirst()) {
                image.drawLine(x0: Double(a.x) * w, y0: Double(a.y) * h, x1: Double(b.x) * w, y1: Double(b.y) * h,
                               color: contourColor, thickness: thickness)
            }
            if points.count == 1, let p = points.first {
                image.fillCircle(centerX: Double(p.x) * w, centerY: Double(p.y) * h, radius: Double(thickness + 1), color: contourColor)
            }
        }
        for landmark in landmarks ?? [] {
            image.fillCircle(centerX: Double(landmark.position.x) * w, centerY: Double(landmark.position.y) * h,
                             radius: Double(2 * thickness + 1), color: landmarkColor)
        }
    }
}
