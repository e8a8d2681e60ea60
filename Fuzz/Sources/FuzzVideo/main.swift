import BlazeVideoIO
import CFuzzerDriver
import Glibc

/// FFmpeg through the C glue on arbitrary bytes: recognised by content from memory, up to 16
/// frames decoded, each of the size the reader announced or a VideoError, never a trap, a leak
/// or an allocation past the limits.
func fuzzVideo(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let options = VideoReadOptions(maxSide: 2048, maxPixels: 1 << 20, decoderThreads: 1)
    guard let reader = try? VideoFileReader(bytes: bytes, options: options) else { return 0 }
    for _ in 0..<16 {
        guard let frame = try? reader.nextFrame() else { break }
        precondition(frame.width == reader.info.width && frame.height == reader.info.height, "frame size differs from the info")
    }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in data.map { fuzzVideo($0, size) } ?? 0 })
