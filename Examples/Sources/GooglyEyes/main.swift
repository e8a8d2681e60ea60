// GooglyEyes IN.y4m OUT.y4m [FRAME.png [N]]: Mobile Vision's face-tracker demo (and frame N,
// default 40, as a PNG). A tracker is created for each new
// face; on each update it puts cartoon eyes on the face's eye keypoints, hides them while the
// face is missing, and takes them away when the face is done.
import BlazeFace
import BlazeImageIO
import FaceTracking
import Foundation

/// The eyes to draw on the current frame, by tracking ID.
final class Overlay {
    var eyes: [Int: [(x: Double, y: Double, radius: Double)]] = [:]
}

/// One face's googly eyes (Mobile Vision's GooglyFaceTracker).
final class GooglyFaceTracker: PerFaceTracker {
    let overlay: Overlay, width: Double, height: Double
    var id = -1
    init(overlay: Overlay, width: Int, height: Int) { (self.overlay, self.width, self.height) = (overlay, Double(width), Double(height)) }

    func onNew(trackingID: Int, face: TrackedFace) { id = trackingID }

    func onUpdate(face: TrackedFace, frame: TrackingFrame) {
        let points = face.detection.keypoints.prefix(2).map { (x: Double($0.x) * width, y: Double($0.y) * height) }
        guard points.count == 2 else { return }
        let between = ((points[0].x - points[1].x) * (points[0].x - points[1].x)
            + (points[0].y - points[1].y) * (points[0].y - points[1].y)).squareRoot()
        overlay.eyes[id] = points.map { (x: $0.x, y: $0.y, radius: max(3, between * 0.3)) }
    }

    func onMissing(frame: TrackingFrame) { overlay.eyes[id] = nil }   // hidden while missing
    func onDone() { overlay.eyes[id] = nil }                          // gone for good
}

let arguments = CommandLine.arguments
/// Bad or missing arguments: the usage line, exit 64 (sysexits' EX_USAGE).
func usage(_ problem: String? = nil) -> Never {
    FileHandle.standardError.write(Data(((problem.map { "GooglyEyes: \($0)\n" } ?? "") + "usage: GooglyEyes IN.y4m OUT.y4m [FRAME.png [N]]\n").utf8))
    exit(64)
}
guard (3...5).contains(arguments.count) else { usage() }
if arguments.count > 4, Int(arguments[4]) == nil { usage("N must be a frame number, not \(arguments[4])") }
let video: Y4MReader
do { video = try Y4MReader(path: arguments[1]) } catch { usage("\(error)") }
do {
    let (width, height) = (video.header.width, video.header.height)
    let output = try Y4MWriter(path: arguments[2], width: width, height: height,
                               frameRateNumerator: video.header.frameRateNumerator,
                               frameRateDenominator: video.header.frameRateDenominator)
    let tracker = try VideoFaceTracker(options: VideoFaceTrackerOptions(detectorOptions: FaceDetectorOptions(), trackingOptions: FaceTrackingOptions()))
    let overlay = Overlay()
    let faces = MultiFaceProcessor { _ in GooglyFaceTracker(overlay: overlay, width: width, height: height) }
    var index = 0, drawn = 0
    while var frame = try video.nextFrame() {
        faces.receive(try tracker.track(videoFrame: frame, timestampInMilliseconds: video.header.timestampInMilliseconds(ofFrame: index)))
        for eye in overlay.eyes.values.joined() {
            frame.fillCircle(centerX: eye.x, centerY: eye.y, radius: eye.radius, color: (255, 255, 255))
            // The pupil rolls with the frame number, as the demo's eyes wobble.
            let angle = Double(index) * 0.6
            frame.fillCircle(centerX: eye.x + cos(angle) * eye.radius * 0.45, centerY: eye.y + sin(angle) * eye.radius * 0.45,
                             radius: eye.radius * 0.45, color: (0, 0, 0))
            drawn += 1
        }
        try output.write(frame)
        if arguments.count > 3, index == (arguments.count > 4 ? Int(arguments[4]) ?? 40 : 40) { try PNG.write(frame, to: arguments[3]) }
        index += 1
    }
    faces.finish()
    try output.flush()
    print("GooglyEyes: \(index) frames, \(drawn) eyes drawn")
} catch {
    FileHandle.standardError.write(Data("GooglyEyes: \(error)\n".utf8))
    exit(1)
}
