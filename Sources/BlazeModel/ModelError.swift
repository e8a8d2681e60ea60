/// Why a weights file or a graph was refused. Every message names what was wrong and where.
public enum ModelError: Error, Equatable, CustomStringConvertible {
    case io(path: String, reason: String)
    case notAWeightsFile(found: String)
    case unsupportedVersion(found: UInt32, supported: UInt32)
    case truncated(String)
    case checksumMismatch(expected: UInt64, found: UInt64)
    case malformed(String)
    case unknownOperator(op: String, node: Int)
    case missingValue(name: String, node: Int)
    case invalidNode(node: Int, op: String, reason: String)
    case unexpectedModel(String)
    /// The build uses instructions this CPU lacks (`BuildTarget.unsupportedCPUMessage`).
    case unsupportedCPU(String)

    public var description: String {
        switch self {
        case .io(let path, let reason): "cannot read weights '\(path)': \(reason)"
        case .notAWeightsFile(let found): "not a BlazeFace weights file (magic \(found), expected 'BFWF')"
        case .unsupportedVersion(let found, let supported): "weights format version \(found) is not supported (this build reads version \(supported))"
        case .truncated(let what): "weights file is truncated: \(what)"
        case .checksumMismatch(let expected, let found): "weights file is corrupt: checksum \(hex(found)), header says \(hex(expected))"
        case .malformed(let what): "weights file is malformed: \(what)"
        case .unknownOperator(let op, let node): "node \(node): operator '\(op)' is not supported"
        case .missingValue(let name, let node): "node \(node): input '\(name)' is neither a weight nor produced by an earlier node"
        case .invalidNode(let node, let op, let reason): "node \(node) (\(op)): \(reason)"
        case .unexpectedModel(let what): "weights do not match the model: \(what)"
        case .unsupportedCPU(let message): message
        }
    }
}

private func hex(_ v: UInt64) -> String { "0x" + String(v, radix: 16) }
