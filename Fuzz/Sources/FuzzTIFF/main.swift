import BlazeImageIO
import CFuzzerDriver
import Glibc

/// TIFF's directories (`TIFFContainer`) on arbitrary bytes: the check of what FFmpeg's decoder
/// reads right, the directory chain (loops and offsets past the data), the orientation and the
/// colour profile: answers, errors or nil, never a trap or a read past the data; a profile found
/// lies inside the input.
func fuzzTIFF(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = ImageFormat(sniffing: bytes)
    if TIFFContainer.isTIFF(bytes) { _ = try? TIFFContainer.checkReadable(bytes) }
    _ = TIFFContainer.orientation(bytes)
    if let profile = TIFFContainer.iccProfile(bytes) { precondition(profile.count <= size, "a profile longer than the file") }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in data.map { fuzzTIFF($0, size) } ?? 0 })
