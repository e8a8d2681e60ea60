import BlazeImage

extension FaceLandmarkerResult {
    /// Draws the 478 points of each face as cyan dots sized to the picture (`landmarks --annotate`).
    public func draw(on image: inout RGBImage) {
        let radius = Double(max(1, min(image.width, image.height) / 400))
        let (w, h) = (Double(image.width), Double(image.height))
        for face in faces {
            for p in face.landmarks {
                image.fillCircle(centerX: Double(p.x) * w, centerY: Double(p.y) * h, radius: radius, color: (0, 255, 255))
            }
        }
    }
}
