import BlazeFace
import BlazeImage
import FaceTracking

/// Hides every face of a photo or of a video's frames, in place: detection (tiled for pictures
/// larger than the model sees well), tracking IDs across frames, and a face the detector loses
/// kept masked along its predicted path for up to `linger` frames (fail-secure: a face slipping
/// out of one detection is not shown). One frame at a time, in timestamp order; not thread-safe.
public final class FaceRedactor {
    public let options: RedactionOptions
    /// Frames a lost face stays masked (0...100, default 5).
    public let linger: Int
    private let detector: FaceDetector
    private let tiled: Bool
    private var tracker: FaceTracker
    /// Faces masked so far, and masks drawn for faces the detector missed (bridged by lingering).
    public private(set) var facesMasked = 0, lingeringMasks = 0

    /// A redactor with these options; `tiled` (default true) tiles pictures larger than three
    /// times the model's input (`TilingOptions.automatic`).
    public init(detectorOptions: FaceDetectorOptions = FaceDetectorOptions(), options: RedactionOptions = RedactionOptions(),
                linger: Int = 5, tiled: Bool = true) throws(DetectorError) {
        guard (0...100).contains(linger) else { throw .invalidOption(name: "linger", value: "\(linger)", allowed: "in 0...100") }
        self.options = try options.validated()
        self.linger = linger
        self.tiled = tiled
        var detectorOptions = detectorOptions
        detectorOptions.runningMode = .image
        detector = try FaceDetector(options: detectorOptions)
        tracker = try FaceTracker(options: FaceTrackingOptions(maxMissingFrames: linger))
    }

    /// Masks the faces of one still picture (no tracking); returns how many.
    @discardableResult
    public func redact(image: inout RGBImage) throws(DetectorError) -> Int {
        let faces = try detect(image).detections.map(\.relativeBoundingBox)
        FaceMask.apply(to: &image, boxes: faces, options: options)
        facesMasked += faces.count
        return faces.count
    }

    /// Masks the faces of one video frame, and those lost within `linger` frames at their
    /// predicted place; timestamps must strictly increase. Returns how many masks were drawn.
    @discardableResult
    public func redact(frame: inout RGBImage, timestampInMilliseconds t: Int) throws(DetectorError) -> Int {
        let detected = try detect(frame)
        // Where the faces missing from this frame are expected, before the tracker moves on.
        let predicted = tracker.predictedBoxes(at: t, imageWidth: frame.width, imageHeight: frame.height, includingMissing: true)
        let tracked = try tracker.update(detected, imageWidth: frame.width, imageHeight: frame.height, timestampInMilliseconds: t)
        let lost = Set(tracked.missingIDs)
        let bridged = predicted.filter { lost.contains($0.id) }.map(\.box)
        let boxes = tracked.faces.map(\.detection.relativeBoundingBox) + bridged
        FaceMask.apply(to: &frame, boxes: boxes, options: options)
        facesMasked += tracked.faces.count
        lingeringMasks += bridged.count
        return boxes.count
    }

    private func detect(_ image: RGBImage) throws(DetectorError) -> FaceDetectorResult {
        if tiled, let tiling = TilingOptions.automatic(width: image.width, height: image.height, model: detector.options.model) {
            return try detector.detect(image: image, tiling: tiling)
        }
        return try detector.detect(image: image)
    }
}
