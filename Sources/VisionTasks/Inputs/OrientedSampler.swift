import BlazeImage

/// A stored picture seen upright: `orientation` applied by re-indexing each tap (lossless, no
/// copy), Pillow's `exif_transpose` per pixel. Width and height swap for the quarter turns.
struct OrientedSampler<Stored: PixelSampler>: PixelSampler {
    let stored: Stored
    let orientation: ImageOrientation
    let width: Int, height: Int

    init(_ stored: Stored, orientation: ImageOrientation) {
        self.stored = stored
        self.orientation = orientation
        (width, height) = orientation.swapsSides ? (stored.height, stored.width) : (stored.width, stored.height)
    }

    /// The stored pixel that lands on upright (x, y).
    @inline(__always)
    func rgb(_ x: Int, _ y: Int) -> SIMD4<Int32> {
        let (w, h) = (stored.width, stored.height)
        switch orientation {
        case .up: return stored.rgb(x, y)
        case .upMirrored: return stored.rgb(w - 1 - x, y)
        case .down: return stored.rgb(w - 1 - x, h - 1 - y)
        case .downMirrored: return stored.rgb(x, h - 1 - y)
        case .leftMirrored: return stored.rgb(y, x)                        // transposed
        case .right: return stored.rgb(y, h - 1 - x)                       // turned clockwise
        case .rightMirrored: return stored.rgb(w - 1 - y, h - 1 - x)       // transversed
        case .left: return stored.rgb(w - 1 - y, x)                        // turned counter-clockwise
        }
    }
}

/// Letterboxes a picture turned upright by `orientation` (the plain sampler when `.up`).
struct ConvertingOriented: PixelSamplerVisitor {
    let converter: ImageToTensor
    let orientation: ImageOrientation
    let region: RotatedRect?
    let tensor: UnsafeMutableBufferPointer<Float>
    /// The rows' runner (`ImageToTensor.RowRunner`): the detector network's thread pool.
    let rowRunner: ImageToTensor.RowRunner?

    func visit<S: PixelSampler>(_ sampler: S) -> Result<ImageToTensor.Transform, VisionTaskError> {
        Result { () throws(VisionTaskError) in
            orientation == .up ? try converter.convert(sampler, region: region, into: tensor, rowRunner: rowRunner)
                : try converter.convert(OrientedSampler(sampler, orientation: orientation), region: region, into: tensor,
                                        rowRunner: rowRunner)
        }
    }
}

extension RGBImage {
    /// Refuses an image whose pixels do not fill its size (`pixels` is a public var): every entry
    /// that samples an `RGBImage` directly checks it, as `ImageToTensor.convert` of an image does.
    public func requireWhole() throws(VisionTaskError) {
        guard width > 0, height > 0, pixels.count == width * height * 3 else {
            throw .invalidImage("\(pixels.count) bytes do not make a \(width)x\(height) RGB image")
        }
    }

    /// The picture in `pixels` (an `RGBImage` or a camera `PixelBuffer`, converted as the
    /// detector samples it) turned upright for `orientation`, in one pass: what ML Kit's
    /// `VisionImage` with an orientation stands for.
    public init(upright pixels: some SampledPixels, orientation: ImageOrientation) {
        self = pixels.withSampler(CopyUpright(orientation: orientation))
    }
}

/// Reads every upright pixel through an `OrientedSampler` into a new image.
private struct CopyUpright: PixelSamplerVisitor {
    let orientation: ImageOrientation

    func visit<S: PixelSampler>(_ sampler: S) -> RGBImage {
        RGBImage(sampling: OrientedSampler(sampler, orientation: orientation))
    }
}
