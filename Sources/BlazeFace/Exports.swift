// What `import BlazeFace` alone gives a dependent besides the detector: the pixel types it
// detects from (RGBImage, PixelBuffer, ...; no image codecs, which are in BlazeImageIO), and
// what the build was compiled for; and the task layer it is built on (running modes, image
// processing options, regions, the error type).
@_exported import BlazeImage
@_exported import BlazeThreads
@_exported import VisionTasks
import BlazeTensor

/// What this build's kernels were compiled for (vector instructions, FMA arithmetic) and
/// whether the running CPU can run them: `BuildTarget.summary`.
public typealias BuildTarget = BlazeTensor.BuildTarget

/// The detector's errors: the task layer's `VisionTaskError`, which every face module throws.
public typealias DetectorError = VisionTaskError
