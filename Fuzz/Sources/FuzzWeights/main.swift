import CFuzzerDriver
import Glibc
import BlazeModel

/// The flat weights loader and the network builder on arbitrary bytes. The checksum is
/// recomputed first, so the fuzzer explores the tables and the graph behind it rather than
/// stopping at the checksum test; a file that loads is planned, bound and run once.
func fuzzWeights(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if bytes.count >= 48 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325   // FNV-1a, as the header's checksum
        for b in bytes[48...] { hash = (hash ^ UInt64(b)) &* 0x100_0000_01b3 }
        for i in 0..<8 { bytes[40 + i] = UInt8(truncatingIfNeeded: hash >> (8 * UInt64(i))) }
    }
    guard let model = try? WeightsFormat.decode(bytes),
          let network = try? Network(model: model) else { return 0 }
    // Only small graphs are run, so that one input stays fast.
    if network.inputShapes.allSatisfy({ $0.count <= 1 << 16 }) { network.run() }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in data.map { fuzzWeights($0, size) } ?? 0 })
