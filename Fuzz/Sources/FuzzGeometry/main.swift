import CFuzzerDriver
import GeometryEstimation
import Glibc

/// The face-geometry metadata reader (our protobuf wire-format parser) on arbitrary bytes; a
/// file that parses is turned into a pipeline and solved once on its own canonical vertices.
func fuzzGeometry(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let metadata = try? GeometryMetadata(protobuf: bytes),
          let pipeline = try? GeometryPipeline(metadata: metadata) else { return 0 }
    let landmarks = metadata.positions.map { SIMD3<Float>($0.x / 20 + 0.5, $0.y / 20 + 0.5, $0.z / 20) }
    _ = try? pipeline.estimate(landmarks: landmarks, imageWidth: 640, imageHeight: 480)
    return 0
}

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, size in data.map { fuzzGeometry($0, size) } ?? 0 })
