import BlazeFace
import BlazeImage
import FaceTracking

/// Draws tracked faces: the detect annotation (box, score, keypoints) plus each face's ID on
/// a tag under its box, in a colour of its own.
enum TrackAnnotation {
    static let palette: [(r: UInt8, g: UInt8, b: UInt8)] = [
        (255, 64, 64), (64, 160, 255), (255, 200, 0), (200, 80, 255), (0, 220, 160), (255, 128, 192),
    ]

    static func draw(_ frame: TrackingFrame, on image: inout RGBImage) {
        Annotation.draw(FaceDetectorResult(detections: frame.faces.map(\.detection)), on: &image)
        let scale = max(1, min(image.width, image.height) / 200)
        for face in frame.faces {
            let b = face.detection.boundingBox
            let label = face.trackingID.map { "ID \($0)" } ?? "ID -"
            let color = face.trackingID.map { palette[$0 % palette.count] } ?? (255, 255, 255)
            image.strokeRectangle(x: b.originX - scale, y: b.originY - scale, width: b.width + 2 * scale,
                                  height: b.height + 2 * scale, color: color, thickness: scale)
            image.drawText(label, x: b.originX, y: b.originY + b.height + scale, color: (0, 0, 0), background: color, scale: scale)
        }
    }
}
