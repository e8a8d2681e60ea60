import BlazeFace
import BlazeImage

extension TrackingFrame {
    /// Draws the tracked faces (`track --annotate`): what `FaceDetectorResult.draw(on:)` draws,
    /// and each face's ID on a tag under its box, box and tag in a colour of the ID's own.
    public func draw(on image: inout RGBImage) {
        FaceDetectorResult(detections: faces.map(\.detection)).draw(on: &image)
        let scale = max(1, min(image.width, image.height) / 200)
        for face in faces {
            let b = face.detection.boundingBox
            let label = face.trackingID.map { "ID \($0)" } ?? "ID -"
            let color = face.trackingID.map { Self.palette[$0 % Self.palette.count] } ?? (255, 255, 255)
            image.strokeRectangle(x: b.originX - scale, y: b.originY - scale, width: b.width + 2 * scale,
                                  height: b.height + 2 * scale, color: color, thickness: scale)
            image.drawText(label, x: b.originX, y: b.originY + b.height + scale, color: (0, 0, 0), background: color, scale: scale)
        }
    }

    private static let palette: [(r: UInt8, g: UInt8, b: UInt8)] = [
        (255, 64, 64), (64, 160, 255), (255, 200, 0), (200, 80, 255), (0, 220, 160), (255, 128, 192),
    ]
}
