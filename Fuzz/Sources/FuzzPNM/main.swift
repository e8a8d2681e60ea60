import BlazeImageIO
import CFuzzerDriver
import Glibc

/// PPM/PGM decoding (binary and ASCII) through the sniffing entry point on arbitrary bytes:
/// an image or an ImageError, never a trap; a decoded image encodes and decodes back equal.
func fuzzPNM(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = ImageLimits(maxWidth: 4096, maxHeight: 4096, maxPixels: 4_000_000)
    guard let image = try? ImageFile.read(data: bytes, limits: limits) else { return 0 }
    precondition(image.pixels.count == image.width * image.height * 3, "decoder returned a short buffer")
    if let encoded = try? PNM.encode(image) {
        precondition((try? PNM.decode(encoded, limits: limits)) == image, "PPM round trip changed the image")
    }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in data.map { fuzzPNM($0, size) } ?? 0 })
