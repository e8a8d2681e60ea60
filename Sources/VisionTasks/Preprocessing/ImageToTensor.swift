import BlazeImage
import BlazeTensor
import CPixelWarp

/// Cuts a region out of an image into a model's input tensor, as MediaPipe's
/// ImageToTensorCalculator does on CPU (image_to_tensor_converter_opencv.cc):
/// `cv::warpPerspective` with INTER_LINEAR and a zero border on the 8-bit pixels,
/// then a linear map of 0...255 onto the tensor's value range (a fused multiply-add).
///
/// The warp is reproduced to the bit: OpenCV's double-precision transform, its rounding of
/// each sample position to 1/32 pixel, and its 15-bit fixed-point bilinear weights.
public struct ImageToTensor: Sendable {
    /// The tensor's width and height in pixels.
    public let width: Int, height: Int
    /// The values that pixel values 0 and 255 map to (output_tensor_float_range).
    public let valueRange: ClosedRange<Float>
    /// Whether the region is padded to the tensor's aspect ratio first (keep_aspect_ratio).
    public let keepAspectRatio: Bool
    /// What the warp reads outside the image.
    public let borderMode: BorderMode

    /// What the warp reads outside the image: OpenCV's BORDER_CONSTANT 0 (MediaPipe's
    /// BORDER_ZERO, the detectors' letterbox) or BORDER_REPLICATE (the calculator's default,
    /// which the landmark graph's crop uses: the nearest edge pixel).
    public enum BorderMode: Sendable, Hashable { case zero, replicate }

    /// A converter into `width` x `height` x 3 tensors; `borderMode` defaults to the zero border.
    public init(width: Int, height: Int, valueRange: ClosedRange<Float>, keepAspectRatio: Bool, borderMode: BorderMode = .zero) {
        (self.width, self.height, self.valueRange, self.keepAspectRatio) = (width, height, valueRange, keepAspectRatio)
        self.borderMode = borderMode
    }

    /// What one conversion did: the region actually sampled (after letterbox padding) and the
    /// 4x4 matrix that maps normalized tensor coordinates back to normalized image coordinates.
    public struct Transform: Sendable, Equatable {
        /// The region sampled, in image pixels, after any letterbox padding.
        public var region: RotatedRect
        /// The row-major 4x4 matrix from normalized tensor to normalized image coordinates.
        public var projection: SIMD16<Float>
    }

    /// Runs a job of `rows` destination rows, split into contiguous ranges, perhaps on several
    /// threads (`ThreadPool.parallelFor`), and returns when every row is done. Each row is
    /// computed alone, so any split gives the same tensor.
    public typealias RowRunner = (_ rows: Int, _ body: (Range<Int>) -> Void) -> Void

    /// Fills `tensor` (height x width x 3, NHWC) from `region` of `image` (default: all of it);
    /// the rows through `rowRunner` if given (say, over the threads of the network it feeds).
    public func convert(_ image: RGBImage, region: RotatedRect? = nil, into tensor: UnsafeMutableBufferPointer<Float>,
                        rowRunner: RowRunner? = nil) throws(VisionTaskError) -> Transform {
        try image.requireWhole()
        return try image.withSampler(Converting(converter: self, region: region, tensor: tensor, rowRunner: rowRunner)).get()
    }

    /// Fills `tensor` from `region` of a caller's pixel buffer (default: all of it), sampling
    /// its own format at each tap (YUV converted per tap by `YUVToRGB`): no RGB copy is made.
    /// Packed RGB gives exactly the tensor an `RGBImage` with the same pixels gives.
    public func convert(_ buffer: PixelBuffer, region: RotatedRect? = nil,
                        into tensor: UnsafeMutableBufferPointer<Float>) throws(VisionTaskError) -> Transform {
        try buffer.withSampler(Converting(converter: self, region: region, tensor: tensor)).get()
    }

    /// Fills `tensor` from `region` of any picture (an `RGBImage` or a camera `PixelBuffer`, default:
    /// all of it), sampled in its own format at each tap: no RGB copy is made.
    public func convert<P: SampledPixels>(sampling pixels: P, region: RotatedRect? = nil,
                                          into tensor: UnsafeMutableBufferPointer<Float>,
                                          rowRunner: RowRunner? = nil) throws(VisionTaskError) -> Transform {
        try pixels.withSampler(Converting(converter: self, region: region, tensor: tensor, rowRunner: rowRunner)).get()
    }

    /// Fills `tensor` from `region` of any pixel source (default: all of it): the letterbox,
    /// then the warp with the source's tap.
    public func convert<S: PixelSampler>(_ source: S, region: RotatedRect? = nil, into tensor: UnsafeMutableBufferPointer<Float>,
                                         rowRunner: RowRunner? = nil) throws(VisionTaskError) -> Transform {
        precondition(tensor.count == width * height * 3, "tensor buffer must hold \(width)x\(height)x3 floats")
        guard source.width > 0, source.height > 0 else { throw .invalidImage("\(source.width)x\(source.height) image") }
        var roi = region ?? .wholeImage(width: source.width, height: source.height)
        guard roi.width > 0, roi.height > 0, roi.centerX.isFinite, roi.centerY.isFinite, roi.rotation.isFinite,
              roi.width.isFinite, roi.height.isFinite else {
            throw .invalidRegion("region \(roi) must be finite with positive width and height")
        }
        if keepAspectRatio { roi = roi.paddedToAspect(tensorWidth: width, tensorHeight: height) }
        let (w, h) = (Float(width), Float(height))
        let destination = SIMD8<Float>(0, h, 0, 0, w, 0, w, h)
        guard let forward = PerspectiveTransform.mapping(roi.corners(), to: destination),
              let inverse = forward.inverted() else {
            throw .invalidRegion("region \(roi) is degenerate")
        }
        if let rowRunner {
            rowRunner(height) { rows in warpBilinear(source, inverse: inverse, into: tensor, rows: rows) }
        } else {
            warpBilinear(source, inverse: inverse, into: tensor, rows: 0..<height)
        }
        return Transform(region: roi, projection: roi.projectionMatrix(imageWidth: source.width, imageHeight: source.height))
    }

    /// `convert` run with the concrete sampler of an image's or buffer's pixel format.
    struct Converting: PixelSamplerVisitor {
        let converter: ImageToTensor
        let region: RotatedRect?
        let tensor: UnsafeMutableBufferPointer<Float>
        var rowRunner: RowRunner? = nil
        func visit<S: PixelSampler>(_ sampler: S) -> Result<Transform, VisionTaskError> {
            Result { () throws(VisionTaskError) in try converter.convert(sampler, region: region, into: tensor, rowRunner: rowRunner) }
        }
    }

    /// `cv::warpPerspective` (imgwarp.cpp, WarpPerspectiveInvoker + remapBilinear for 8UC3,
    /// BORDER_CONSTANT 0 or BORDER_REPLICATE) followed by `convertTo(CV_32F, scale, offset)`. Each of the four
    /// taps reads R, G, B through `source` (the pixel format's conversion happens per tap); where
    /// all four are inside the image, the source's `bilinearSum` reads them (packed RGB: two loads).
    /// Destination rows `rows` only. Specialised for each pixel format's sampler: the samplers
    /// come through a visitor, which Swift does not specialise across modules by itself.
    @_specialize(exported: false, where S == RGBSampler)
    @_specialize(exported: false, where S == FourByteSampler)
    @_specialize(exported: false, where S == GraySampler)
    @_specialize(exported: false, where S == YUVSampler)
    func warpBilinear<S: PixelSampler>(_ source: S, inverse t: PerspectiveTransform,
                                       into tensor: UnsafeMutableBufferPointer<Float>, rows: Range<Int>) {
        let scale = (valueRange.upperBound - valueRange.lowerBound) / 255
        let offset = valueRange.lowerBound
        let (iw, ih) = (source.width, source.height)
        let scale4 = SIMD4<Float>(repeating: scale), offset4 = SIMD4<Float>(repeating: offset)
        // The source pixels are likely cold (a network ran since the image was read), and the
        // warp reads them along slanted lines that hardware prefetchers do not follow: ask for
        // them `prefetchDistance` destination rows ahead, a chunk's share at a time.
        for y in rows.prefix(Self.prefetchDistance) {
            var hints = tapHints(of: y, t.m, source)
            hints.issue(through: width, of: width, source)
        }
        // Sample positions for up to 32 columns at a time, on the stack.
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * Self.chunk) { positions in
            for y in rows {
                var hints = y &+ Self.prefetchDistance < rows.upperBound ? tapHints(of: y &+ Self.prefetchDistance, t.m, source) : TapHints()
                let out = tensor.baseAddress! + y &* width &* 3
                var first = 0
                while first < width {
                    let end = min(first &+ Self.chunk, width)
                    hints.issue(through: end, of: width, source)
                    samplePositions(t.m, row: y, columns: first..<end, into: positions.baseAddress!)
                    var x = first
                    while x < end {
                        // Runs whose taps lie inside the image in one call where the format has
                        // a kernel for them; the pixel that stops a run below.
                        x &+= source.warpInterior(positions: positions.baseAddress! + 2 &* (x &- first), count: end &- x,
                                                  scale: scale, offset: offset, output: out + 3 &* x)
                        if x == end { break }
                        defer { x &+= 1 }
                        let X = Int(positions[2 &* (x &- first)]), Y = Int(positions[2 &* (x &- first) &+ 1])
                        let sx = X >> 5, sy = Y >> 5, ax = Int32(X & 31), ay = Int32(Y & 31)
                        let pixel = out + 3 &* x
                        if sx >= 0 && sx &+ 1 < iw && sy >= 0 && sy &+ 1 < ih {
                            let v = source.bilinearSum(sx, sy, ax: ax, ay: ay)
                            // One rounding, as OpenCV's AVX2 convertTo (an FMA) rounds.
                            let f = offset4.fma(SIMD4<Float>((v &+ 512) &>> 10), scale4)
                            // Four lanes where the next pixel (which overwrites the fourth) follows.
                            if x &+ 1 < width {
                                UnsafeMutableRawPointer(pixel).storeBytes(of: f, as: SIMD4<Float>.self)
                            } else {
                                pixel[0] = f[0]; pixel[1] = f[1]; pixel[2] = f[2]
                            }
                            continue
                        }
                        // OpenCV's 15-bit weights are these times 32; the rounding is the same.
                        let w00 = (32 - ay) * (32 - ax), w01 = (32 - ay) * ax, w10 = ay * (32 - ax), w11 = ay * ax
                        if borderMode == .replicate {
                            // remapBilinear's BORDER_REPLICATE: each tap clamped into the image.
                            let x0 = min(max(sx, 0), iw - 1), x1 = min(max(sx + 1, 0), iw - 1)
                            let y0 = min(max(sy, 0), ih - 1), y1 = min(max(sy + 1, 0), ih - 1)
                            var v = source.rgb(x0, y0) &* w00
                            v &+= source.rgb(x1, y0) &* w01
                            v &+= source.rgb(x0, y1) &* w10
                            v &+= source.rgb(x1, y1) &* w11
                            let f = offset4.fma(SIMD4<Float>((v &+ 512) &>> 10), scale4)
                            pixel[0] = f[0]; pixel[1] = f[1]; pixel[2] = f[2]
                        } else {
                            // Taps outside the image read OpenCV's constant border, 0.
                            let inX0 = sx >= 0 && sx < iw, inX1 = sx >= -1 && sx + 1 < iw
                            let inY0 = sy >= 0 && sy < ih, inY1 = sy >= -1 && sy + 1 < ih
                            if !(inX0 || inX1) || !(inY0 || inY1) {
                                // The letterbox band: every tap is border, fma(0, scale, offset) = offset.
                                pixel[0] = offset; pixel[1] = offset; pixel[2] = offset
                                continue
                            }
                            var v = SIMD4<Int32>.zero
                            if inX0 && inY0 { v &+= source.rgb(sx, sy) &* w00 }
                            if inX1 && inY0 { v &+= source.rgb(sx + 1, sy) &* w01 }
                            if inX0 && inY1 { v &+= source.rgb(sx, sy + 1) &* w10 }
                            if inX1 && inY1 { v &+= source.rgb(sx + 1, sy + 1) &* w11 }
                            let f = offset4.fma(SIMD4<Float>((v &+ 512) &>> 10), scale4)
                            pixel[0] = f[0]; pixel[1] = f[1]; pixel[2] = f[2]
                        }
                    }
                    first = end
                }
            }
        }
    }

    /// How many destination rows ahead of the warp its source taps are prefetched, and how far
    /// apart along the row, in source pixels: 12 packed-RGB pixels are 36 bytes, under a cache
    /// line, so every line the row's taps cross gets a hint, and a small region (many
    /// destination pixels per source pixel) gets a few instead of one per destination pixel.
    /// See the README, "Face analysis", "Speed".
    private static let prefetchDistance = 2, prefetchSpacing = 12.0

    /// Prefetch hints along one destination row's taps: `count` points from `point`, `step`
    /// apart, `prefetchSpacing` source pixels or less. A hint needs no exact pixel: the row's
    /// two ends are mapped exactly and the points between interpolated along the line (the
    /// perspective terms of a crop are about 1e-10), two divisions per row instead of one per
    /// hint. The warp issues them a chunk's share at a time, so that the misses spread over the
    /// row rather than queueing at its start.
    struct TapHints {
        var point = SIMD2<Double>.zero, step = SIMD2<Double>.zero
        var count = 0, issued = 0

        /// Issues the hints of the row's first `columns` of `width` destination columns (those
        /// not issued yet) where they fall inside the image.
        mutating func issue<S: PixelSampler>(through columns: Int, of width: Int, _ source: S) {
            let last = count &* columns / width
            let (iw, ih) = (Double(source.width), Double(source.height))
            while issued < last {
                if point.x >= 0, point.y >= 0, point.x < iw, point.y < ih { source.prefetchTaps(Int(point.x), Int(point.y)) }
                point += step
                issued &+= 1
            }
        }
    }

    /// The hints for destination row `y` (none where its ends do not map to finite points).
    private func tapHints<S: PixelSampler>(of y: Int, _ m: SIMD16<Double>, _ source: S) -> TapHints {
        let yd = Double(y)
        func map(_ xd: Double) -> SIMD2<Double> {
            let w = m[6] * xd + m[7] * yd + m[8]
            return SIMD2(m[0] * xd + m[1] * yd + m[2], m[3] * xd + m[4] * yd + m[5]) / w
        }
        let start = map(0), end = map(Double(width))
        guard start.x.isFinite, start.y.isFinite, end.x.isFinite, end.y.isFinite else { return TapHints() }
        let span = max(abs(end.x - start.x), abs(end.y - start.y))
        let steps = Int(min(span / Self.prefetchSpacing, Double(width))) &+ 1
        return TapHints(point: start, step: (end - start) / Double(steps), count: steps &+ 1)
    }

    /// Columns whose sample positions are computed together.
    private static let chunk = 32

    /// Where OpenCV samples destination pixels (`columns`, y), in 1/32 pixels, as (x, y) pairs
    /// from `out[0]` (WarpPerspectiveInvoker): `bf_opencv_positions_row`, with OpenCV's blocks of
    /// `1024 / min(16, height)` columns.
    private func samplePositions(_ m: SIMD16<Double>, row y: Int, columns: Range<Int>, into out: UnsafeMutablePointer<Int32>) {
        withUnsafeBytes(of: m) { m in
            bf_opencv_positions_row(m.baseAddress!.assumingMemoryBound(to: Double.self), y, columns.lowerBound, columns.count,
                                    min(1024 / min(16, height), width), out)
        }
    }
}

