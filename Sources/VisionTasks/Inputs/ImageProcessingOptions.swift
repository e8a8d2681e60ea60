import BlazeImage

/// How a picture must be turned to be upright, as MediaPipe's MPImage and ML Kit's VisionImage
/// take it (UIImage.Orientation's names and meaning): `.right` means the pixels must be turned 90
/// degrees clockwise (EXIF orientation 6; MediaPipe's rotation_degrees 90), `.upMirrored` that
/// they must be flipped left to right (EXIF 2): a front camera's frames. Every case is a lossless
/// re-indexing of the stored pixels; results come back in the stored picture's coordinates.
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

    /// The EXIF Orientation tag's value (1...8) that says the same: up 1, upMirrored 2, down 3,
    /// downMirrored 4, leftMirrored 5, right 6, rightMirrored 7, left 8.
    public var exifValue: Int {
        switch self {
        case .up: 1
        case .upMirrored: 2
        case .down: 3
        case .downMirrored: 4
        case .leftMirrored: 5
        case .right: 6
        case .rightMirrored: 7
        case .left: 8
        }
    }

    /// The orientation whose `exifValue` is `exif` (1...8); nil otherwise.
    public init?(exifValue exif: Int) {
        guard let found = Self.allCases.first(where: { $0.exifValue == exif }) else { return nil }
        self = found
    }

    /// Whether the upright picture's width is the stored picture's height (a quarter turn).
    var swapsSides: Bool { exifValue >= 5 }

    /// Where upright normalized (x, y) lies in the stored picture: the inverse of the turn.
    func stored(fromUpright x: Float, _ y: Float) -> (Float, Float) {
        switch self {
        case .up: (x, y)
        case .upMirrored: (1 - x, y)
        case .down: (1 - x, 1 - y)
        case .downMirrored: (x, 1 - y)
        case .leftMirrored: (y, x)
        case .right: (y, 1 - x)
        case .rightMirrored: (1 - y, 1 - x)
        case .left: (1 - y, x)
        }
    }

    /// Where stored normalized (x, y) lies in the upright picture: `stored(fromUpright:)` of the
    /// inverse orientation (the quarter turns swap; a half turn and the mirrorings undo themselves).
    func upright(fromStored x: Float, _ y: Float) -> (Float, Float) {
        let inverse: ImageOrientation = self == .right ? .left : self == .left ? .right : self
        return inverse.stored(fromUpright: x, y)
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

    /// The region the letterbox cuts from the upright picture (`uprightWidth` x `uprightHeight`):
    /// the region of interest, given in the stored picture's normalized coordinates, turned with
    /// it (the whole picture if none). Checked as MediaPipe's `ConvertToNormalizedRect` checks
    /// it; scaled to pixels as ImageToTensorCalculator's `GetRoi` does (normalized centre and
    /// size times the image size, in float).
    public func uprightRegion(uprightWidth: Int, uprightHeight: Int) throws(VisionTaskError) -> RotatedRect? {
        guard let r = regionOfInterest else { return nil }
        guard [r.left, r.top, r.right, r.bottom].allSatisfy(\.isFinite), r.left < r.right, r.top < r.bottom else {
            throw .invalidRegion("expected a finite rect with left < right and top < bottom, got \(r)")
        }
        guard r.left >= 0, r.top >= 0, r.right <= 1, r.bottom <= 1 else {
            throw .invalidRegion("expected rect values in [0, 1], got \(r)")
        }
        // The stored rect's corners, turned (each turn takes edges to edges).
        let a = orientation.upright(fromStored: r.left, r.top), b = orientation.upright(fromStored: r.right, r.bottom)
        let (left, top, right, bottom) = (min(a.0, b.0), min(a.1, b.1), max(a.0, b.0), max(a.1, b.1))
        let (w, h) = (Float(uprightWidth), Float(uprightHeight))
        return RotatedRect(centerX: (left + right) / 2 * w, centerY: (top + bottom) / 2 * h,
                           width: (right - left) * w, height: (bottom - top) * h)
    }

    /// The 4x4 matrix taking normalized upright coordinates back to the stored picture's (entries
    /// 0, 1 and -1: exact), so results land in the caller's coordinates.
    static func storedFromUpright(_ orientation: ImageOrientation) -> SIMD16<Float> {
        // Row-major on (x, y, z, 1): the images of (0, 0), (1, 0) and (0, 1) give the columns.
        let o = orientation.stored(fromUpright: 0, 0), ex = orientation.stored(fromUpright: 1, 0)
        let ey = orientation.stored(fromUpright: 0, 1)
        return SIMD16(ex.0 - o.0, ey.0 - o.0, 0, o.0,
                      ex.1 - o.1, ey.1 - o.1, 0, o.1,
                      0, 0, 1, 0,
                      0, 0, 0, 1)
    }
}

extension ImageToTensor {
    /// Fills `tensor` from any picture (an `RGBImage` or a camera `PixelBuffer`) turned and
    /// cropped as `options` say (MediaPipe's ImageToTensorCalculator with a rotation and a region
    /// of interest), sampled in its own format; the transform maps the tensor back to the stored
    /// picture's normalized coordinates, so results land in the caller's coordinates.
    public func convert<P: SampledPixels>(_ pixels: P, options: ImageProcessingOptions, into tensor: UnsafeMutableBufferPointer<Float>,
                                          rowRunner: RowRunner? = nil) throws(VisionTaskError) -> Transform {
        let orientation = options.orientation
        let (w, h) = orientation.swapsSides ? (pixels.height, pixels.width) : (pixels.width, pixels.height)
        let region = try options.uprightRegion(uprightWidth: w, uprightHeight: h)
        let transform = try pixels.withSampler(ConvertingOriented(converter: self, orientation: orientation, region: region,
                                                                  tensor: tensor, rowRunner: rowRunner)).get()
        return transform.followed(by: ImageProcessingOptions.storedFromUpright(orientation))
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
