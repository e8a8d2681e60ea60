import BlazeImageIO
import CFuzzerDriver
import Glibc

/// JPEG decoding (libjpeg-turbo behind our C shim, and our EXIF orientation parser) on
/// arbitrary bytes: an image or an ImageError, never a trap, a hang or an allocation past the
/// limits (2048 x 2048 here, so that a run stays fast).
func fuzzJPEG(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = ImageLimits(maxWidth: 2048, maxHeight: 2048, maxPixels: 1_000_000)
    if let image = try? JPEG.decode(bytes, limits: limits, applyingOrientation: true) {
        precondition(image.pixels.count == image.width * image.height * 3, "decoder returned a short buffer")
    }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in data.map { fuzzJPEG($0, size) } ?? 0 })
