// What `import BlazeFace` alone gives a dependent besides the detector: the pixel types it
// detects from (RGBImage, PixelBuffer, ...; no image codecs, which are in BlazeImageIO), and
// what the build was compiled for.
@_exported import BlazeImage
@_exported import BlazeThreads
import BlazeTensor

/// What this build's kernels were compiled for (vector instructions, FMA arithmetic) and
/// whether the running CPU can run them: `BuildTarget.summary`.
public typealias BuildTarget = BlazeTensor.BuildTarget
