/// A bounding box in pixels of the input image, as MediaPipe Tasks reports it.
public struct BoundingBox: Sendable, Equatable, Hashable {
    public var originX: Int, originY: Int, width: Int, height: Int
    public init(originX: Int, originY: Int, width: Int, height: Int) {
        (self.originX, self.originY, self.width, self.height) = (originX, originY, width, height)
    }
}

/// A class and its score; BlazeFace has one class, index 0, "face".
public struct Category: Sendable, Equatable {
    public var index: Int
    public var score: Float
    public init(index: Int, score: Float) { (self.index, self.score) = (index, score) }
}

/// A point normalized to the image: x and y in 0...1 from the top-left corner.
public struct NormalizedKeypoint: Sendable, Equatable {
    public var x: Float, y: Float
    public var label: String?
    public init(x: Float, y: Float, label: String? = nil) { (self.x, self.y, self.label) = (x, y, label) }
}

/// A box in normalized image coordinates (may extend past 0...1).
public struct NormalizedRect: Sendable, Equatable {
    public var xMin: Float, yMin: Float, width: Float, height: Float
    public init(xMin: Float, yMin: Float, width: Float, height: Float) {
        (self.xMin, self.yMin, self.width, self.height) = (xMin, yMin, width, height)
    }
}

/// One detected face: MediaPipe's `Detection`.
public struct Detection: Sendable, Equatable {
    /// Pixel box, truncated and clamped to the image as MediaPipe's DetectionTransformationCalculator does.
    public var boundingBox: BoundingBox
    /// The unrounded box in normalized image coordinates (MediaPipe's relative_bounding_box).
    public var relativeBoundingBox: NormalizedRect
    public var categories: [Category]
    /// Six keypoints, labelled, in `FaceKeypoint` order.
    public var keypoints: [NormalizedKeypoint]

    public var score: Float { categories.first?.score ?? 0 }

    public init(boundingBox: BoundingBox, relativeBoundingBox: NormalizedRect, categories: [Category],
                keypoints: [NormalizedKeypoint]) {
        (self.boundingBox, self.relativeBoundingBox) = (boundingBox, relativeBoundingBox)
        (self.categories, self.keypoints) = (categories, keypoints)
    }
}

/// The six BlazeFace keypoints, in the model's order. "Right" is the subject's right.
public enum FaceKeypoint: Int, CaseIterable, Sendable {
    case rightEye, leftEye, noseTip, mouthCenter, rightEarTragion, leftEarTragion
    public var label: String { "\(self)" }
}

/// What `FaceDetector.detect` returns: the faces, highest score first.
public struct FaceDetectorResult: Sendable, Equatable {
    public var detections: [Detection]
    public init(detections: [Detection]) { self.detections = detections }
}
