import CFuzzerDriver
import Glibc
import TFLiteImport

/// The exporter's TFLite reader on arbitrary bytes: parse, then convert to the flat format
/// (operators, sparsity, float16, constants): a model or a TFLiteError, never a trap.
func fuzzTFLite(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let model = try? TFLiteModel(bytes: bytes) else { return 0 }
    _ = try? Exporter.convert(model, metadata: [])
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in data.map { fuzzTFLite($0, size) } ?? 0 })
