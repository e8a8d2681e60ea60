import BlazeFace
import BlazeImage

/// Draws detections for a person to look at: box, score, and the six keypoints in colours.
enum Annotation {
    static let boxColor: (r: UInt8, g: UInt8, b: UInt8) = (0, 255, 0)
    static let keypointColors: [(r: UInt8, g: UInt8, b: UInt8)] = [
        (255, 0, 0), (0, 0, 255), (255, 255, 0), (255, 0, 255), (0, 255, 255), (255, 128, 0),
    ]

    static func draw(_ result: FaceDetectorResult, on image: inout RGBImage) {
        let thickness = max(1, min(image.width, image.height) / 200)
        for d in result.detections {
            let b = d.boundingBox
            image.strokeRectangle(x: b.originX, y: b.originY, width: b.width, height: b.height,
                                  color: boxColor, thickness: thickness)
            let label = String(format2(d.score))
            image.drawText(label, x: b.originX, y: max(0, b.originY - 10 * thickness), color: (0, 0, 0),
                           background: boxColor, scale: thickness)
            for (k, p) in d.keypoints.enumerated() {
                image.fillCircle(centerX: Double(p.x) * Double(image.width), centerY: Double(p.y) * Double(image.height),
                                 radius: Double(2 * thickness + 1), color: keypointColors[k % keypointColors.count])
            }
        }
    }

    /// Two decimals without Foundation's locale-dependent formatting.
    static func format2(_ v: Float) -> String {
        let hundredths = Int((v * 100).rounded())
        return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
    }
}
