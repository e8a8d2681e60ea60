/// A bounding box in pixels of the input image, as MediaPipe Tasks reports it.
public struct BoundingBox: Sendable, Equatable, Hashable {
    /// Top-left corner and size, in whole pixels.
    public var originX: Int, originY: Int, width: Int, height: Int
    /// A box from its top-left corner and size.
    public init(originX: Int, originY: Int, width: Int, height: Int) {
        (self.originX, self.originY, self.width, self.height) = (originX, originY, width, height)
    }
}

/// A class and its score; BlazeFace has one class, index 0, "face".
public struct Category: Sendable, Equatable {
    /// The class index: always 0 ("face") for BlazeFace.
    public var index: Int
    /// The class's score, 0...1.
    public var score: Float
    /// A category from its index and score.
    public init(index: Int, score: Float) { (self.index, self.score) = (index, score) }
}

/// A point normalized to the image: x and y in 0...1 from the top-left corner.
public struct NormalizedKeypoint: Sendable, Equatable {
    /// Position, normalized to the image width and height.
    public var x: Float, y: Float
    /// The keypoint's name (a `FaceKeypoint` label), or nil when unnamed.
    public var label: String?
    /// A keypoint at (x, y), optionally labelled.
    public init(x: Float, y: Float, label: String? = nil) { (self.x, self.y, self.label) = (x, y, label) }
}

/// A box in normalized image coordinates (may extend past 0...1).
public struct NormalizedRect: Sendable, Equatable {
    /// Top-left corner and size, as fractions of the image width and height.
    public var xMin: Float, yMin: Float, width: Float, height: Float
    /// A box from its top-left corner and size.
    public init(xMin: Float, yMin: Float, width: Float, height: Float) {
        (self.xMin, self.yMin, self.width, self.height) = (xMin, yMin, width, height)
    }
}

/// Up to eight (x, y) points stored inline, so that a detection costs no heap allocation.
public struct KeypointList: Sendable, Equatable, RandomAccessCollection, MutableCollection {
    /// The most points a list can hold: the inline storage's size.
    public static let capacity = 8
    /// The number of points held.
    public private(set) var count: Int
    /// x0, y0, x1, y1, ...; lanes past `count` stay zero.
    private var storage = SIMD16<Float>()

    /// `count` points at (0, 0).
    public init(count: Int) {
        precondition((0...Self.capacity).contains(count), "at most \(Self.capacity) keypoints")
        self.count = count
    }

    /// A list of these points; there may be at most `capacity`.
    public init(_ points: [(x: Float, y: Float)]) {
        self.init(count: points.count)
        for (i, p) in points.enumerated() { self[i] = p }
    }

    /// The first index: 0.
    public var startIndex: Int { 0 }
    /// One past the last point's index: `count`.
    public var endIndex: Int { count }
    /// The point at index `i` (below `count`), as (x, y).
    public subscript(i: Int) -> (x: Float, y: Float) {
        get { (storage[2 * i], storage[2 * i + 1]) }
        set { storage[2 * i] = newValue.x; storage[2 * i + 1] = newValue.y }
    }

    /// Equal when both lists hold the same points in the same order.
    public static func == (a: KeypointList, b: KeypointList) -> Bool { a.count == b.count && a.storage == b.storage }
}

/// One detected face: MediaPipe's `Detection`.
public struct Detection: Sendable, Equatable {
    /// Pixel box, truncated and clamped to the image as MediaPipe's DetectionTransformationCalculator does.
    public var boundingBox: BoundingBox
    /// The unrounded box in normalized image coordinates (MediaPipe's relative_bounding_box).
    public var relativeBoundingBox: NormalizedRect
    /// The face score, 0...1.
    public var score: Float
    /// The keypoints in `FaceKeypoint` order, normalized to the image.
    public var keypointList: KeypointList

    /// A detection from its parts; `keypoints` becomes `keypointList`.
    public init(boundingBox: BoundingBox, relativeBoundingBox: NormalizedRect, score: Float, keypoints: KeypointList) {
        (self.boundingBox, self.relativeBoundingBox, self.score, self.keypointList) = (boundingBox, relativeBoundingBox, score, keypoints)
    }

    /// MediaPipe's categories: one, index 0, with the score.
    public var categories: [Category] { [Category(index: 0, score: score)] }

    /// The keypoints with their labels (`rightEye`, `leftEye`, ...), as MediaPipe lists them.
    public var keypoints: [NormalizedKeypoint] {
        keypointList.enumerated().map { i, p in
            NormalizedKeypoint(x: p.x, y: p.y, label: FaceKeypoint(rawValue: i)?.label)
        }
    }
}

/// The six BlazeFace keypoints, in the model's order. "Right" is the subject's right.
public enum FaceKeypoint: Int, CaseIterable, Sendable {
    /// Eyes, nose tip, mouth centre and ear tragions; in each pair the subject's right first.
    case rightEye, leftEye, noseTip, mouthCenter, rightEarTragion, leftEarTragion

    /// The keypoint's label in `Detection.keypoints`: its case name.
    public var label: String {
        switch self {
        case .rightEye: "rightEye"
        case .leftEye: "leftEye"
        case .noseTip: "noseTip"
        case .mouthCenter: "mouthCenter"
        case .rightEarTragion: "rightEarTragion"
        case .leftEarTragion: "leftEarTragion"
        }
    }
}

/// What `FaceDetector.detect` returns: the faces, highest score first.
public struct FaceDetectorResult: Sendable, Equatable {
    /// The detected faces, highest score first (a `.regions` search: region by region, each
    /// region's best first).
    public var detections: [Detection]
    /// A `.regions` search (`SearchArea.regions`): each region's faces, in the order the regions
    /// were given; empty for the other searches.
    public var perRegion: [FaceDetectorResult] = []
    /// The faces found but narrower than `FaceDetectorOptions.minFaceSize`, and so left out
    /// (counted until `maxFaces` faces were kept): what ML Kit's minFaceSize hid.
    public var narrowerThanMinFaceSize = 0
    /// A result holding `detections` (none by default).
    public init(detections: [Detection] = []) { self.detections = detections }
}
