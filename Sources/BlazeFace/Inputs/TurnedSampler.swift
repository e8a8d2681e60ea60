import BlazeImage

/// A stored picture seen upright: `quarterTurns` clockwise quarter turns of `stored`, done by
/// re-indexing each tap (lossless, no copy). Width and height swap for odd turns.
struct TurnedSampler<Stored: PixelSampler>: PixelSampler {
    let stored: Stored
    let quarterTurns: Int
    let width: Int, height: Int

    init(_ stored: Stored, quarterTurns: Int) {
        self.stored = stored
        self.quarterTurns = quarterTurns & 3
        (width, height) = quarterTurns & 1 == 1 ? (stored.height, stored.width) : (stored.width, stored.height)
    }

    /// The stored pixel that lands on upright (x, y).
    @inline(__always)
    func rgb(_ x: Int, _ y: Int) -> SIMD4<Int32> {
        switch quarterTurns {
        case 1: stored.rgb(y, stored.height - 1 - x)                          // turned clockwise
        case 2: stored.rgb(stored.width - 1 - x, stored.height - 1 - y)
        case 3: stored.rgb(stored.width - 1 - y, x)                           // turned counter-clockwise
        default: stored.rgb(x, y)
        }
    }
}

/// Letterboxes a picture turned upright by `quarterTurns` (the plain sampler when 0).
struct ConvertingTurned: PixelSamplerVisitor {
    let converter: ImageToTensor
    let quarterTurns: Int
    let region: RotatedRect?
    let tensor: UnsafeMutableBufferPointer<Float>
    /// The rows' runner (`ImageToTensor.RowRunner`): the detector network's threads.
    let rowRunner: ImageToTensor.RowRunner?

    func visit<S: PixelSampler>(_ sampler: S) -> Result<ImageToTensor.Transform, DetectorError> {
        Result { () throws(DetectorError) in
            quarterTurns == 0 ? try converter.convert(sampler, region: region, into: tensor, rowRunner: rowRunner)
                : try converter.convert(TurnedSampler(sampler, quarterTurns: quarterTurns), region: region, into: tensor,
                                        rowRunner: rowRunner)
        }
    }
}
