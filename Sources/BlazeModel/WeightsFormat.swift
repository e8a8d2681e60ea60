import BlazeTensor
import Foundation

/// The flat weights format, version 1 (documented in Weights/README.md).
///
///     0  magic "BFWF"          4  version u32        8  alignment u32
///     12 metadata count u32    16 tensor count u32   20 node count u32
///     24 data offset u64       32 data size u64      40 checksum u64 (FNV-1a of bytes 48..<end)
///     48 metadata, tensor table, graph; then the aligned data section.
///
/// Little-endian throughout; strings are a u32 byte count and UTF-8 bytes.
public enum WeightsFormat {
    /// The file's first four bytes, "BFWF".
    public static let magic: [UInt8] = Array("BFWF".utf8)
    /// The format version this code reads and writes.
    public static let version: UInt32 = 1
    /// The byte alignment `encode` gives the data section and each tensor's data in it.
    public static let alignment = 64
    static let headerSize = 48
    /// Element type codes of the tensor table; version 1 stores float32 only.
    static let float32: UInt32 = 0

    // MARK: Reading

    /// Reads a weights file, checking magic, version, checksum, every count and offset.
    public static func read(contentsOf path: String) throws(ModelError) -> ModelFile {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw .io(path: path, reason: (error as NSError).localizedDescription)
        }
        return try decode([UInt8](data))
    }

    /// Decodes a weights file's bytes, checking magic, version, checksum, every count and offset.
    public static func decode(_ bytes: [UInt8]) throws(ModelError) -> ModelFile {
        var r = ByteReader(bytes)
        let magicBytes = try r.bytes(4, "magic")
        guard magicBytes == magic else {
            throw .notAWeightsFile(found: String(decoding: magicBytes.map { (0x20...0x7e).contains($0) ? $0 : 0x3f }, as: UTF8.self))
        }
        let v = try r.u32("version")
        guard v == version else { throw .unsupportedVersion(found: v, supported: version) }
        let align = try r.u32("alignment")
        let metadataCount = try r.u32("metadata count"), tensorCount = try r.u32("tensor count")
        let nodeCount = try r.u32("node count")
        let dataOffset = try r.u64("data offset"), dataSize = try r.u64("data size")
        let checksum = try r.u64("checksum")
        guard align > 0, align <= 4096 else { throw .malformed("alignment \(align)") }
        guard dataOffset <= UInt64(bytes.count), dataSize <= UInt64(bytes.count) - dataOffset else {
            throw .truncated("data section \(dataOffset)+\(dataSize) runs past the file's \(bytes.count) bytes")
        }
        let found = fnv1a(bytes[headerSize...])
        guard found == checksum else { throw .checksumMismatch(expected: checksum, found: found) }

        var metadata: [(key: String, value: String)] = []
        for _ in 0..<metadataCount {
            metadata.append((try r.string("metadata key"), try r.string("metadata value")))
        }
        var tensors: [(name: String, tensor: Tensor)] = []
        for _ in 0..<tensorCount {
            let name = try r.string("tensor name")
            let dtype = try r.u32("dtype of '\(name)'")
            guard dtype == float32 else { throw .malformed("tensor '\(name)' has element type \(dtype); version 1 stores float32 (0) only") }
            let rank = try r.u32("rank of '\(name)'")
            guard rank <= 8 else { throw .malformed("tensor '\(name)' has rank \(rank)") }
            var dims: [Int] = []
            for _ in 0..<rank { dims.append(Int(try r.u32("shape of '\(name)'"))) }
            let offset = try r.u64("offset of '\(name)'"), byteCount = try r.u64("size of '\(name)'")
            let (count, overflow) = dims.reduce((1, false)) { acc, d in
                let m = acc.0.multipliedReportingOverflow(by: d); return (m.partialValue, acc.1 || m.overflow)
            }
            guard !overflow, byteCount % 4 == 0, UInt64(count) == byteCount / 4 else {
                throw .malformed("tensor '\(name)' of shape \(Shape(dims)) has \(byteCount) bytes")
            }
            guard offset <= dataSize, byteCount <= dataSize - offset else {
                throw .truncated("tensor '\(name)' at \(offset)+\(byteCount) runs past the data section (\(dataSize) bytes)")
            }
            let start = Int(dataOffset + offset)
            var scalars = [Float](repeating: 0, count: count)
            scalars.withUnsafeMutableBytes { dst in
                bytes.withUnsafeBytes { src in
                    dst.copyMemory(from: UnsafeRawBufferPointer(rebasing: src[start..<start + Int(byteCount)]))
                }
            }
            #if _endian(big)
            scalars = scalars.map { Float(bitPattern: $0.bitPattern.byteSwapped) }
            #endif
            guard let t = try? Tensor(shape: Shape(dims), scalars: scalars) else {
                throw .malformed("tensor '\(name)'")
            }
            tensors.append((name, t))
        }
        var nodes: [Node] = []
        for i in 0..<nodeCount {
            let op = try r.string("operator of node \(i)")
            let inputs = try r.strings("inputs of node \(i)")
            let outputs = try r.strings("outputs of node \(i)")
            var attributes: [String: [Int64]] = [:]
            for _ in 0..<(try r.u32("attribute count of node \(i)")) {
                let key = try r.string("attribute key of node \(i)")
                let n = try r.u32("attribute '\(key)' of node \(i)")
                guard UInt64(n) * 8 <= UInt64(r.remaining) else { throw .truncated("attribute '\(key)' of node \(i)") }
                var values: [Int64] = []
                for _ in 0..<n { values.append(Int64(bitPattern: try r.u64("attribute '\(key)'"))) }
                attributes[key] = values
            }
            nodes.append(Node(op: op, inputs: inputs, outputs: outputs, attributes: attributes))
        }
        guard UInt64(r.position) <= dataOffset else {
            throw .malformed("tables end at \(r.position), after the data offset \(dataOffset)")
        }
        return ModelFile(metadata: metadata, tensors: tensors, nodes: nodes)
    }

    // MARK: Writing

    /// The file's bytes: tables, then each tensor's float32 data aligned to `alignment`.
    public static func encode(_ model: ModelFile) -> [UInt8] {
        var tables = ByteWriter()
        for (k, v) in model.metadata { tables.string(k); tables.string(v) }
        var dataSize = 0
        var offsets: [Int] = []
        for (_, t) in model.tensors {
            offsets.append(dataSize)
            dataSize = (dataSize + t.scalars.count * 4 + alignment - 1) / alignment * alignment
        }
        for ((name, t), offset) in zip(model.tensors, offsets) {
            tables.string(name)
            tables.u32(float32)
            tables.u32(UInt32(t.shape.rank))
            t.shape.dims.forEach { tables.u32(UInt32($0)) }
            tables.u64(UInt64(offset))
            tables.u64(UInt64(t.scalars.count * 4))
        }
        for node in model.nodes {
            tables.string(node.op)
            tables.strings(node.inputs)
            tables.strings(node.outputs)
            tables.u32(UInt32(node.attributes.count))
            for key in node.attributes.keys.sorted() {
                tables.string(key)
                tables.u32(UInt32(node.attributes[key]!.count))
                node.attributes[key]!.forEach { tables.u64(UInt64(bitPattern: $0)) }
            }
        }
        let dataOffset = (headerSize + tables.bytes.count + alignment - 1) / alignment * alignment
        var body = tables.bytes
        body += [UInt8](repeating: 0, count: dataOffset - headerSize - tables.bytes.count)
        for ((_, t), offset) in zip(model.tensors, offsets) {
            body += [UInt8](repeating: 0, count: dataOffset - headerSize + offset - body.count)
            for x in t.scalars { body += withUnsafeBytes(of: x.bitPattern.littleEndian, Array.init) }
        }
        body += [UInt8](repeating: 0, count: dataOffset - headerSize + dataSize - body.count)

        var header = ByteWriter()
        header.bytes += magic
        header.u32(version)
        header.u32(UInt32(alignment))
        header.u32(UInt32(model.metadata.count))
        header.u32(UInt32(model.tensors.count))
        header.u32(UInt32(model.nodes.count))
        header.u64(UInt64(dataOffset))
        header.u64(UInt64(dataSize))
        header.u64(fnv1a(body[...]))
        return header.bytes + body
    }

    /// Writes atomically (a temporary file, then a rename), so no partial file is left.
    public static func write(_ model: ModelFile, to path: String) throws(ModelError) {
        do { try Data(encode(model)).write(to: URL(fileURLWithPath: path), options: .atomic) } catch {
            throw .io(path: path, reason: (error as NSError).localizedDescription)
        }
    }

    /// 64-bit FNV-1a: a checksum against corruption, not a cryptographic hash.
    static func fnv1a(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        return h
    }
}

/// A bounds-checked little-endian cursor: every read says what it was reading when it fails.
struct ByteReader {
    let bytes: [UInt8]
    private(set) var position = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    var remaining: Int { bytes.count - position }

    mutating func bytes(_ n: Int, _ what: String) throws(ModelError) -> [UInt8] {
        guard n >= 0, n <= remaining else { throw .truncated("\(what) at byte \(position)") }
        defer { position += n }
        return Array(bytes[position..<position + n])
    }
    mutating func u32(_ what: String) throws(ModelError) -> UInt32 {
        let b = try bytes(4, what)
        return b.reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }
    mutating func u64(_ what: String) throws(ModelError) -> UInt64 {
        let b = try bytes(8, what)
        return b.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
    mutating func string(_ what: String) throws(ModelError) -> String {
        let n = try u32(what)
        guard n <= 1 << 16 else { throw .malformed("\(what) claims \(n) bytes") }
        guard let s = String(validating: try bytes(Int(n), what), as: UTF8.self) else {
            throw .malformed("\(what) is not UTF-8")
        }
        return s
    }
    mutating func strings(_ what: String) throws(ModelError) -> [String] {
        let n = try u32(what)
        guard UInt64(n) * 4 <= UInt64(remaining) else { throw .truncated(what) }
        var out: [String] = []
        for _ in 0..<n { out.append(try string(what)) }
        return out
    }
}

struct ByteWriter {
    var bytes: [UInt8] = []
    mutating func u32(_ v: UInt32) { bytes += withUnsafeBytes(of: v.littleEndian, Array.init) }
    mutating func u64(_ v: UInt64) { bytes += withUnsafeBytes(of: v.littleEndian, Array.init) }
    mutating func string(_ s: String) { u32(UInt32(s.utf8.count)); bytes += Array(s.utf8) }
    mutating func strings(_ s: [String]) { u32(UInt32(s.count)); s.forEach { string($0) } }
}
