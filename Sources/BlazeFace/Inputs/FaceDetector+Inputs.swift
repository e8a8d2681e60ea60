import BlazeImage
import VisionTasks

/// Detection on every input: RGB images and caller-owned pixel buffers (any `PixelFormat`), with
/// an orientation and a region of interest (MediaPipe's `ImageProcessingOptions`). Results are in
/// the coordinates of the image or buffer as given: normalized to its width and height, unrotated.
extension FaceDetector {
    /// Either input, sampled in its own format straight into the model's input tensor.
    func detect<P: SampledPixels & Sendable>(sampled pixels: P, options: ImageProcessingOptions,
                                          into result: inout FaceDetectorResult) throws(DetectorError) {
        try state.withLock { pipeline throws(DetectorError) in
            try pipeline.detect(sampled: pixels, options: options, into: &result)
        }
    }

    /// Stage 1 for a pixel buffer: the model's input tensor (of the upright picture) and the
    /// transform back to the buffer's normalized coordinates.
    package func inputTensor(for pixelBuffer: PixelBuffer, options: ImageProcessingOptions = ImageProcessingOptions())
        throws(DetectorError) -> (tensor: [Float], transform: ImageToTensor.Transform) {
        try state.withLock { pipeline throws(DetectorError) in
            let t = try pipeline.letterbox(sampled: pixelBuffer, options: options)
            return (Array(pipeline.network.input()), t)
        }
    }
}

extension DetectorState {
    /// Either input, turned and cropped as `options` say, sampled straight into the model's input
    /// tensor; the transform back to the stored picture's normalized coordinates.
    mutating func letterbox<P: SampledPixels>(sampled pixels: P, options: ImageProcessingOptions)
        throws(DetectorError) -> ImageToTensor.Transform {
        try imageToTensor.convert(pixels, options: options, into: network.input(),
                                  rowRunner: network.threadPool.parallelFor(units:_:))
    }

    /// Detection on either input, turned and cropped as `options` say.
    mutating func detect<P: SampledPixels>(sampled pixels: P, options: ImageProcessingOptions, pass: Pass = Pass(),
                                           into result: inout FaceDetectorResult) throws(DetectorError) {
        let transform = try letterbox(sampled: pixels, options: options)
        run(transform: transform, imageWidth: pixels.width, imageHeight: pixels.height, pass: pass, into: &result)
    }

    /// The network and post-processing on the input tensor already written.
    mutating func run(transform: ImageToTensor.Transform, imageWidth: Int, imageHeight: Int, pass: Pass = Pass(),
                      into result: inout FaceDetectorResult) {
        network.run()
        postprocess(regressors: network.output(regressorsIndex), logits: network.output(logitsIndex),
                    transform: transform, imageWidth: imageWidth, imageHeight: imageHeight, pass: pass, into: &result)
    }
}
