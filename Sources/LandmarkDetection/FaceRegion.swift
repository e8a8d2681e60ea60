import BlazeFace
import VisionTasks

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Darwin
#endif

/// The region the landmark network looks at: MediaPipe's `NormalizedRect`, a rectangle in
/// normalized image coordinates (centre, size) turned by `rotation` radians about its centre.
public struct FaceRegion: Sendable, Equatable {
    /// Centre, normalized to the image width and height.
    public var xCenter: Float, yCenter: Float
    /// Size, normalized to the image width and height (square in pixels when it came from landmarks).
    public var width: Float, height: Float
    /// Radians, clockwise in image coordinates, normalized to [-pi, pi).
    public var rotation: Float

    /// A region from its centre, size and rotation, normalized as the properties are.
    public init(xCenter: Float, yCenter: Float, width: Float, height: Float, rotation: Float = 0) {
        (self.xCenter, self.yCenter, self.width, self.height, self.rotation) = (xCenter, yCenter, width, height, rotation)
    }

    /// The landmark region for a face detection, as FaceDetectorGraph's EXPANDED_FACE_RECTS:
    /// the detection's box, turned so the eyes (keypoints 0 and 1) lie level, then grown 1.5x
    /// (its RectTransformationCalculator does not square it).
    public init(detection: Detection, imageWidth: Int, imageHeight: Int) {
        let box = detection.relativeBoundingBox
        let k = detection.keypointList
        let start = k.count > 1 ? k[0] : (x: 0, y: 0), end = k.count > 1 ? k[1] : (x: 1, y: 0)
        self = FaceRegion.fromBox(xMin: box.xMin, yMin: box.yMin, width: box.width, height: box.height,
                                  start: start, end: end, imageWidth: imageWidth, imageHeight: imageHeight)
            .expanded(imageWidth: imageWidth, imageHeight: imageHeight, squareLong: false)
    }

    /// The next frame's region from a face's landmarks, as SingleFaceLandmarksDetectorGraph's
    /// FACE_RECT_NEXT_FRAME: their bounding box (LandmarksToDetectionCalculator), turned so the
    /// outer eye corners (landmarks 33 and 263) lie level, grown 1.5x and squared.
    public init?(landmarks: [SIMD3<Float>], imageWidth: Int, imageHeight: Int) {
        guard landmarks.count > 263 else { return nil }
        var xMin = Float.infinity, yMin = Float.infinity, xMax = -Float.infinity, yMax = -Float.infinity
        for p in landmarks {
            xMin = min(xMin, p.x); xMax = max(xMax, p.x)
            yMin = min(yMin, p.y); yMax = max(yMax, p.y)
        }
        guard xMin.isFinite, yMin.isFinite, xMax.isFinite, yMax.isFinite else { return nil }
        self = FaceRegion.fromBox(xMin: xMin, yMin: yMin, width: xMax - xMin, height: yMax - yMin,
                                  start: (landmarks[33].x, landmarks[33].y), end: (landmarks[263].x, landmarks[263].y),
                                  imageWidth: imageWidth, imageHeight: imageHeight)
            .expanded(imageWidth: imageWidth, imageHeight: imageHeight, squareLong: true)
    }

    /// DetectionsToRectsCalculator (DetectionToNormalizedRect and ComputeRotation with target
    /// angle 0): the box's centre and size, and the angle that levels the start-to-end vector
    /// measured in pixels, normalized to [-pi, pi).
    static func fromBox(xMin: Float, yMin: Float, width: Float, height: Float,
                        start: (x: Float, y: Float), end: (x: Float, y: Float),
                        imageWidth: Int, imageHeight: Int) -> FaceRegion {
        let (w, h) = (Float(imageWidth), Float(imageHeight))
        let x0 = start.x * w, y0 = start.y * h, x1 = end.x * w, y1 = end.y * h
        let angle = 0 - atan2f(-(y1 - y0), x1 - x0)
        // NormalizeRadians, in double as MediaPipe's M_PI makes it.
        let a = Double(angle)
        let rotation = Float(a - 2 * Double.pi * floor((a - (-Double.pi)) / (2 * Double.pi)))
        return FaceRegion(xCenter: xMin + width / 2, yCenter: yMin + height / 2, width: width, height: height, rotation: rotation)
    }

    /// RectTransformationCalculator with scale 1.5 (no shift): with `squareLong` the long side
    /// in pixels first becomes both sides; then each grows 1.5x.
    public func expanded(imageWidth: Int, imageHeight: Int, squareLong: Bool, scale: Float = 1.5) -> FaceRegion {
        let (w, h) = (Float(imageWidth), Float(imageHeight))
        var r = self
        if squareLong {
            let longSide = max(width * w, height * h)
            r.width = longSide / w
            r.height = longSide / h
        }
        r.width *= scale
        r.height *= scale
        return r
    }

    /// The region in pixels (image_to_tensor_utils.cc, `GetRoi`).
    public func rotatedRect(imageWidth: Int, imageHeight: Int) -> RotatedRect {
        let (w, h) = (Float(imageWidth), Float(imageHeight))
        return RotatedRect(centerX: xCenter * w, centerY: yCenter * h, width: width * w, height: height * h, rotation: rotation)
    }

    /// True when every field is finite and the size positive (a region the crop can use).
    public var isUsable: Bool {
        xCenter.isFinite && yCenter.isFinite && rotation.isFinite && width.isFinite && height.isFinite && width > 0 && height > 0
    }
}
