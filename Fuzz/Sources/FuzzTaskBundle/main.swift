import CFuzzerDriver
import Glibc
import TFLiteImport

/// The .task bundle (zip) reader on arbitrary bytes: the member table, then every member's
/// bytes (CRC-32 checked), each a result or a TaskBundleError, never a trap.
func fuzzTaskBundle(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let bundle = try? TaskBundle(bytes: bytes) else { return 0 }
    for name in bundle.names {
        if let member = try? bundle.member(name), let model = try? TFLiteModel(bytes: member) {
            _ = try? Exporter.convert(model, metadata: [])
        }
    }
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in data.map { fuzzTaskBundle($0, size) } ?? 0 })
