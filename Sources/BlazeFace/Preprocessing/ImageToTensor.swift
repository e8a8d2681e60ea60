import BlazeImage

/// Cuts a region out of an image into a model's input tensor, as MediaPipe's
/// ImageToTensorCalculator does on CPU (image_to_tensor_converter_opencv.cc):
/// `cv::warpPerspective` with INTER_LINEAR and a zero border on the 8-bit pixels,
/// then a linear map of 0...255 onto the tensor's value range (a fused multiply-add).
///
/// The warp is reproduced to the bit: OpenCV's double-precision transform, its rounding of
/// each sample position to 1/32 pixel, and its 15-bit fixed-point bilinear weights.
public struct ImageToTensor: Sendable {
    public let width: Int, height: Int
    public let valueRange: ClosedRange<Float>
    public let keepAspectRatio: Bool

    public init(width: Int, height: Int, valueRange: ClosedRange<Float>, keepAspectRatio: Bool) {
        (self.width, self.height, self.valueRange, self.keepAspectRatio) = (width, height, valueRange, keepAspectRatio)
    }

    /// What one conversion did: the region actually sampled (after letterbox padding) and the
    /// 4x4 matrix that maps normalized tensor coordinates back to normalized image coordinates.
    public struct Transform: Sendable, Equatable {
        public var region: RotatedRect
        public var projection: [Float]
    }

    /// Fills `tensor` (height x width x 3, NHWC) from `region` of `image` (default: all of it).
    public func convert(_ image: RGBImage, region: RotatedRect? = nil,
                        into tensor: UnsafeMutableBufferPointer<Float>) throws(DetectorError) -> Transform {
        precondition(tensor.count == width * height * 3, "tensor buffer must hold \(width)x\(height)x3 floats")
        guard image.width > 0, image.height > 0, image.pixels.count == image.width * image.height * 3 else {
            throw .invalidImage("\(image.pixels.count) bytes do not make a \(image.width)x\(image.height) RGB image")
        }
        var roi = region ?? .wholeImage(width: image.width, height: image.height)
        guard roi.width > 0, roi.height > 0, roi.centerX.isFinite, roi.centerY.isFinite, roi.rotation.isFinite,
              roi.width.isFinite, roi.height.isFinite else {
            throw .invalidRegion("region \(roi) must be finite with positive width and height")
        }
        if keepAspectRatio { roi = roi.paddedToAspect(tensorWidth: width, tensorHeight: height) }
        let destination: [(x: Float, y: Float)] = [(0, Float(height)), (0, 0), (Float(width), 0), (Float(width), Float(height))]
        guard let forward = PerspectiveTransform.mapping(roi.corners(), to: destination),
              let inverse = forward.inverted() else {
            throw .invalidRegion("region \(roi) is degenerate")
        }
        warpBilinear(image, inverse: inverse, into: tensor)
        return Transform(region: roi, projection: roi.projectionMatrix(imageWidth: image.width, imageHeight: image.height))
    }

    /// `cv::warpPerspective` (imgwarp.cpp, WarpPerspectiveInvoker + remapBilinear for 8UC3,
    /// BORDER_CONSTANT 0) followed by `convertTo(CV_32F, scale, offset)`.
    private func warpBilinear(_ image: RGBImage, inverse t: PerspectiveTransform,
                              into tensor: UnsafeMutableBufferPointer<Float>) {
        let m = t.m
        let scale = (valueRange.upperBound - valueRange.lowerBound) / 255
        let offset = valueRange.lowerBound
        let (iw, ih) = (image.width, image.height)
        // OpenCV processes the destination in blocks of at most 32x32 / bh rows; the block's
        // first column enters the position sums separately, which can move a rounding.
        let bh0 = min(16, height)
        let bw0 = min(1024 / bh0, width)
        image.pixels.withUnsafeBufferPointer { px in
            for y in 0..<height {
                var xb = 0
                while xb < width {
                    let bw = min(bw0, width - xb)
                    let x0 = m[0] * Double(xb) + m[1] * Double(y) + m[2]
                    let y0 = m[3] * Double(xb) + m[4] * Double(y) + m[5]
                    let w0 = m[6] * Double(xb) + m[7] * Double(y) + m[8]
                    for x1 in 0..<bw {
                        var w = w0 + m[6] * Double(x1)
                        w = w != 0 ? 32 / w : 0
                        let fx = min(max((x0 + m[0] * Double(x1)) * w, Double(Int32.min)), Double(Int32.max))
                        let fy = min(max((y0 + m[3] * Double(x1)) * w, Double(Int32.min)), Double(Int32.max))
                        let X = Int(fx.rounded(.toNearestOrEven)), Y = Int(fy.rounded(.toNearestOrEven))
                        let sx = min(max(X >> 5, Int(Int16.min)), Int(Int16.max))
                        let sy = min(max(Y >> 5, Int(Int16.min)), Int(Int16.max))
                        let ax = X & 31, ay = Y & 31
                        let w00 = (32 - ay) * (32 - ax), w01 = (32 - ay) * ax
                        let w10 = ay * (32 - ax), w11 = ay * ax
                        let inX0 = sx >= 0 && sx < iw, inX1 = sx + 1 >= 0 && sx + 1 < iw
                        let inY0 = sy >= 0 && sy < ih, inY1 = sy + 1 >= 0 && sy + 1 < ih
                        let out = ((y * width) + xb + x1) * 3
                        for c in 0..<3 {
                            let v00 = inX0 && inY0 ? Int(px[(sy * iw + sx) * 3 + c]) : 0
                            let v01 = inX1 && inY0 ? Int(px[(sy * iw + sx + 1) * 3 + c]) : 0
                            let v10 = inX0 && inY1 ? Int(px[((sy + 1) * iw + sx) * 3 + c]) : 0
                            let v11 = inX1 && inY1 ? Int(px[((sy + 1) * iw + sx + 1) * 3 + c]) : 0
                            // Weights sum to 1024 here (32768 in OpenCV's table); round half up.
                            let value = (v00 * w00 + v01 * w01 + v10 * w10 + v11 * w11 + 512) >> 10
                            // One rounding, as OpenCV's AVX2 convertTo (an FMA) rounds.
                            tensor[out + c] = offset.addingProduct(Float(value), scale)
                        }
                    }
                    xb += bw
                }
            }
        }
    }
}
