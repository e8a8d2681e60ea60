import BlazeImageIO
import CFuzzerDriver
import Glibc

/// WebP's container (`WebPContainer`) on arbitrary bytes: the chunk walk, the animation flag,
/// the colour profile and the EXIF block with its orientation: answers or nil, never a trap or a
/// read past the data; what is found lies inside the input.
func fuzzWebP(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = ImageFormat(sniffing: bytes)
    _ = WebPContainer.isAnimated(bytes)
    if let profile = WebPContainer.iccProfile(bytes) { precondition(profile.count <= size, "a profile longer than the file") }
    if let exif = WebPContainer.exif(bytes) {
        precondition(exif.tiff.count <= size, "an EXIF block longer than the file")
        _ = exif.orientation
        _ = exif.upright()
        _ = exif.removingLocation()
    }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in data.map { fuzzWebP($0, size) } ?? 0 })
