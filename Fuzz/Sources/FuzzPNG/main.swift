import CFuzzerDriver
import Glibc
import BlazeImageIO

/// PNG decoding of arbitrary bytes: an image or an ImageError, never a trap, a hang or an
/// allocation past the limits (4096 x 4096 here, so that a run stays fast).
func fuzzPNG(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let image = try? PNG.decode(bytes, limits: ImageLimits(maxWidth: 4096, maxHeight: 4096, maxPixels: 4_000_000)) {
        precondition(image.pixels.count == image.width * image.height * 3, "decoder returned a short buffer")
    }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in data.map { fuzzPNG($0, size) } ?? 0 })
