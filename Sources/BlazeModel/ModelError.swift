/// Why a weights file or a graph was refused. Every message names what was wrong and where.
public enum ModelError: Error, Equatable, CustomStringConvertible {
    /// The weights file at `path` could not be read, for `reason`.
    case io(path: String, reason: String)
    /// The file does not start with the magic "BFWF"; `found` is what it starts with.
    case notAWeightsFile(found: String)
    /// The file's format version is not the one this build reads.
    case unsupportedVersion(found: UInt32, supported: UInt32)
    /// A section, tensor or field runs past the end of the file or of its section.
    case truncated(String)
    /// The FNV-1a checksum of the bytes after the header differs from the header's.
    case checksumMismatch(expected: UInt64, found: UInt64)
    /// A field or the graph is invalid: a bad value, a redefined name, a node that cannot be bound.
    case malformed(String)
    /// Node `node` names an operator this library does not implement.
    case unknownOperator(op: String, node: Int)
    /// Node `node` reads a value that is neither a weight nor produced by an earlier node.
    case missingValue(name: String, node: Int)
    /// Node `node` has inputs or attributes its operator cannot take.
    case invalidNode(node: Int, op: String, reason: String)
    /// The graph is valid but not the network the caller expects (its inputs or outputs).
    case unexpectedModel(String)
    /// The build uses instructions this CPU lacks (`BuildTarget.unsupportedCPUMessage`).
    case unsupportedCPU(String)

    /// A one-line message naming what was wrong and where.
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
