import BlazeImage

/// Detection on every input: RGB images and caller-owned pixel buffers (any `PixelFormat`), with
/// an orientation and a region of interest (MediaPipe's `ImageProcessingOptions`). Results are in
/// the coordinates of the image or buffer as given: normalized to its width and height, unrotated.
extension FaceDetector {
    /// Detects faces in `image`, turned and cropped as `options` say.
    public func detect(image: RGBImage, options: ImageProcessingOptions) throws(DetectorError) -> FaceDetectorResult {
        var result = FaceDetectorResult()
        try detect(image: image, options: options, into: &result)
        return result
    }

    /// Detects faces in `image` into `result`, reusing its storage.
    public func detect(image: RGBImage, options: ImageProcessingOptions, into result: inout FaceDetectorResult) throws(DetectorError) {
        try requireMode(.image, for: "detect(image:options:)")
        guard image.width > 0, image.height > 0, image.pixels.count == image.width * image.height * 3 else {
            throw .invalidImage("\(image.pixels.count) bytes do not make a \(image.width)x\(image.height) RGB image")
        }
        try detect(sampled: image, options: options, into: &result)
    }

    /// Detects faces in a caller's pixel buffer, sampled in its own format straight into the
    /// model's input (no RGB copy); the buffer's memory must stay valid during the call.
    public func detect(pixelBuffer: PixelBuffer, options: ImageProcessingOptions = ImageProcessingOptions()) throws(DetectorError) -> FaceDetectorResult {
        var result = FaceDetectorResult()
        try detect(pixelBuffer: pixelBuffer, options: options, into: &result)
        return result
    }

    /// Detects faces in a pixel buffer into `result`, reusing its storage: with a result kept
    /// from frame to frame, a camera frame is detected without an image copy.
    public func detect(pixelBuffer: PixelBuffer, options: ImageProcessingOptions = ImageProcessingOptions(),
                       into result: inout FaceDetectorResult) throws(DetectorError) {
        try requireMode(.image, for: "detect(pixelBuffer:options:)")
        try detect(sampled: pixelBuffer, options: options, into: &result)
    }

    /// Either input, sampled in its own format straight into the model's input tensor.
    private func detect<P: SampledPixels & Sendable>(sampled pixels: P, options: ImageProcessingOptions,
                                          into result: inout FaceDetectorResult) throws(DetectorError) {
        let (turns, region) = try Self.geometry(options, width: pixels.width, height: pixels.height)
        try state.withLock { pipeline throws(DetectorError) in
            let transform = try pixels.withSampler(ConvertingTurned(converter: pipeline.imageToTensor, quarterTurns: turns,
                                                                    region: region, tensor: pipeline.network.input(),
                                                                    rowRunner: pipeline.network.runConcurrently(units:_:))).get()
            pipeline.run(transform: transform.followed(by: ImageProcessingOptions.storedFromUpright(quarterTurns: turns)),
                         imageWidth: pixels.width, imageHeight: pixels.height, into: &result)
        }
    }

    /// Stage 1 for a pixel buffer: the model's input tensor (of the upright picture) and the
    /// transform back to the buffer's normalized coordinates.
    public func inputTensor(for pixelBuffer: PixelBuffer, options: ImageProcessingOptions = ImageProcessingOptions())
        throws(DetectorError) -> (tensor: [Float], transform: ImageToTensor.Transform) {
        let (turns, region) = try Self.geometry(options, width: pixelBuffer.width, height: pixelBuffer.height)
        return try state.withLock { pipeline throws(DetectorError) in
            let t = try pixelBuffer.withSampler(ConvertingTurned(converter: pipeline.imageToTensor, quarterTurns: turns,
                                                                 region: region, tensor: pipeline.network.input(),
                                                                 rowRunner: pipeline.network.runConcurrently(units:_:))).get()
            return (Array(pipeline.network.input()), t.followed(by: ImageProcessingOptions.storedFromUpright(quarterTurns: turns)))
        }
    }

    /// Quarter turns and the upright region for a stored picture of `width` x `height`.
    private static func geometry(_ options: ImageProcessingOptions, width: Int, height: Int) throws(DetectorError) -> (Int, RotatedRect?) {
        let turns = try options.quarterTurns()
        let (w, h) = turns & 1 == 1 ? (height, width) : (width, height)
        return (turns, try options.uprightRegion(uprightWidth: w, uprightHeight: h))
    }
}

extension Pipeline {
    /// The network and post-processing on the input tensor already written.
    mutating func run(transform: ImageToTensor.Transform, imageWidth: Int, imageHeight: Int, into result: inout FaceDetectorResult) {
        network.run()
        postprocess(regressors: network.output(regressorsIndex), logits: network.output(logitsIndex),
                    transform: transform, imageWidth: imageWidth, imageHeight: imageHeight, into: &result)
    }
}
