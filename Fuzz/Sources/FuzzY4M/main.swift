import BlazeImageIO
import CFuzzerDriver
import Glibc

/// YUV4MPEG2 reading on arbitrary bytes: the header, then up to 16 frames, each an RGB image
/// of the header's size or an ImageError, never a trap or an allocation past the limits.
func fuzzY4M(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let reader = try? Y4MReader(bytes: bytes, limits: ImageLimits(maxWidth: 1024, maxHeight: 1024, maxPixels: 500_000))
    else { return 0 }
    for _ in 0..<16 {
        guard let frame = try? reader.nextFrame() else { break }
        precondition(frame.width == reader.header.width && frame.height == reader.header.height, "frame size differs from the header")
    }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in data.map { fuzzY4M($0, size) } ?? 0 })
