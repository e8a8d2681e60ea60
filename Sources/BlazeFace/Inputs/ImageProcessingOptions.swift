import BlazeImage

/// How a picture must be turned to be upright, as MediaPipe's MPImage and ML Kit's VisionImage
/// take it (UIImage.Orientation's names): `.right` means the pixels must be turned 90 degrees
/// clockwise (EXIF orientation 6; MediaPipe's rotation_degrees 90). Mirrored orientations are
/// refused, as MediaPipe refuses them.
public enum ImageOrientation: String, Sendable, CaseIterable {
    case up, right, down, left
    case upMirrored, rightMirrored, downMirrored, leftMirrored

    /// Clockwise degrees for up, right, down, left (0, 90, 180, 270); nil when mirrored.
    public var rotationDegrees: Int? {
        switch self {
        case .up: 0
        case .right: 90
        case .down: 180
        case .left: 270
        case .upMirrored, .rightMirrored, .downMirrored, .leftMirrored: nil
        }
    }

    /// The orientation for clockwise `degrees` (any multiple of 90, negative too); nil otherwise.
    public init?(rotationDegrees degrees: Int) {
        guard degrees % 90 == 0 else { return nil }
        self = [.up, .right, .down, .left][((degrees / 90) % 4 + 4) % 4]
    }
}

/// A region of interest in normalized image coordinates (0...1, origin top left), given by its
/// edges as MediaPipe's `RectF` (left < right, top < bottom).
public struct RegionOfInterest: Sendable, Equatable {
    public var left: Float, top: Float, right: Float, bottom: Float

    public init(left: Float, top: Float, right: Float, bottom: Float) {
        (self.left, self.top, self.right, self.bottom) = (left, top, right, bottom)
    }
}

/// Where and how to look in an image: MediaPipe's `ImageProcessingOptions` (orientation as
/// rotation, and a region of interest). Results always come back in the coordinates of the
/// image or buffer as given (unrotated, uncropped).
public struct ImageProcessingOptions: Sendable, Equatable {
    public var orientation: ImageOrientation
    /// Detect only inside this region (nil: the whole image).
    public var regionOfInterest: RegionOfInterest?

    public init(orientation: ImageOrientation = .up, regionOfInterest: RegionOfInterest? = nil) {
        (self.orientation, self.regionOfInterest) = (orientation, regionOfInterest)
    }

    /// Clockwise quarter turns that make the picture upright (0...3); mirrored ones are refused.
    public func quarterTurns() throws(DetectorError) -> Int {
        guard let degrees = orientation.rotationDegrees else {
            throw .invalidOption(name: "orientation", value: orientation.rawValue,
                                 allowed: "up, right, down or left (mirrored orientations are not supported, as in MediaPipe)")
        }
        return degrees / 90
    }

    /// The region the letterbox cuts from the upright picture (`uprightWidth` x `uprightHeight`):
    /// the region of interest, given in the stored picture's normalized coordinates, turned with
    /// it (the whole picture if none). Checked as MediaPipe's `ConvertToNormalizedRect` checks
    /// it; scaled to pixels as ImageToTensorCalculator's `GetRoi` does (normalized centre and
    /// size times the image size, in float).
    public func uprightRegion(uprightWidth: Int, uprightHeight: Int) throws(DetectorError) -> RotatedRect? {
        let turns = try quarterTurns()
        guard let r = regionOfInterest else { return nil }
        guard [r.left, r.top, r.right, r.bottom].allSatisfy(\.isFinite), r.left < r.right, r.top < r.bottom else {
            throw .invalidRegion("expected a finite rect with left < right and top < bottom, got \(r)")
        }
        guard r.left >= 0, r.top >= 0, r.right <= 1, r.bottom <= 1 else {
            throw .invalidRegion("expected rect values in [0, 1], got \(r)")
        }
        // The stored rect's edges, turned: clockwise, stored (x, y) goes to upright (1 - y, x).
        let (left, top, right, bottom): (Float, Float, Float, Float)
        switch turns {
        case 1: (left, top, right, bottom) = (1 - r.bottom, r.left, 1 - r.top, r.right)
        case 2: (left, top, right, bottom) = (1 - r.right, 1 - r.bottom, 1 - r.left, 1 - r.top)
        case 3: (left, top, right, bottom) = (r.top, 1 - r.right, r.bottom, 1 - r.left)
        default: (left, top, right, bottom) = (r.left, r.top, r.right, r.bottom)
        }
        let (w, h) = (Float(uprightWidth), Float(uprightHeight))
        return RotatedRect(centerX: (left + right) / 2 * w, centerY: (top + bottom) / 2 * h,
                           width: (right - left) * w, height: (bottom - top) * h)
    }

    /// The 4x4 matrix taking normalized upright coordinates back to the stored picture's:
    /// an exact quarter turn (entries 0, 1 and -1), so results land in the caller's coordinates.
    static func storedFromUpright(quarterTurns: Int) -> SIMD16<Float> {
        switch quarterTurns & 3 {
        case 1: SIMD16(0, 1, 0, 0, -1, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1)    // (x, y) -> (y, 1 - x)
        case 2: SIMD16(-1, 0, 0, 1, 0, -1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1)   // (1 - x, 1 - y)
        case 3: SIMD16(0, -1, 0, 1, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1)    // (1 - y, x)
        default: SIMD16(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1)
        }
    }
}

extension ImageToTensor.Transform {
    /// This transform followed by `m` (both row-major 4x4 on (x, y, z, 1)), in float.
    func followed(by m: SIMD16<Float>) -> ImageToTensor.Transform {
        var out = SIMD16<Float>()
        for r in 0..<4 { for c in 0..<4 { for k in 0..<4 { out[4 * r + c] += m[4 * r + k] * projection[4 * k + c] } } }
        return ImageToTensor.Transform(region: region, projection: out)
    }
}
