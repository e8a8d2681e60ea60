import BlazeImage

extension FaceDetectorResult {
    /// Draws the faces for a person to look at (MediaPipe's drawing utilities; `detect
    /// --annotate`): each box in green with its score on a tag above it, and the six keypoints
    /// as dots in colours of their own, all sized to the picture.
    ///
    /// ```swift
    /// var canvas = image
    /// try detector.detect(image: image).draw(on: &canvas)
    /// ```
    public func draw(on image: inout RGBImage) {
        let thickness = max(1, min(image.width, image.height) / 200)
        for d in detections {
            let b = d.boundingBox
            image.strokeRectangle(x: b.originX, y: b.originY, width: b.width, height: b.height, color: Self.boxColor, thickness: thickness)
            image.drawText(Self.twoDecimals(d.score), x: b.originX, y: max(0, b.originY - 10 * thickness), color: (0, 0, 0),
                           background: Self.boxColor, scale: thickness)
            for (k, p) in d.keypoints.enumerated() {
                image.fillCircle(centerX: Double(p.x) * Double(image.width), centerY: Double(p.y) * Double(image.height),
                                 radius: Double(2 * thickness + 1), color: Self.keypointColors[k % Self.keypointColors.count])
            }
        }
    }

    private static let boxColor: (r: UInt8, g: UInt8, b: UInt8) = (0, 255, 0)
    private static let keypointColors: [(r: UInt8, g: UInt8, b: UInt8)] = [
        (255, 0, 0), (0, 0, 255), (255, 255, 0), (255, 0, 255), (0, 255, 255), (255, 128, 0),
    ]

    /// Two decimals without Foundation's locale-dependent formatting.
    private static func twoDecimals(_ v: Float) -> String {
        let hundredths = Int((v * 100).rounded())
        return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
    }
}
