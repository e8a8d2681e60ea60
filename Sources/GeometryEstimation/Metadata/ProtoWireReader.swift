/// A bounds-checked reader of the protocol buffers wire format (varint, 64-bit, length-delimited,
/// 32-bit fields). It never reads past its slice; every failure names the byte offset.
struct ProtoWireReader {
    /// The wire types this reader understands (groups, 3 and 4, are refused).
    enum WireType: UInt64 { case varint = 0, fixed64 = 1, lengthDelimited = 2, fixed32 = 5 }

    /// One field: its number, wire type and the payload (a varint value, or the bytes).
    struct Field {
        var number: UInt64
        var type: WireType
        var varint: UInt64 = 0
        var bytes: ArraySlice<UInt8> = []
        /// The byte offset of the field's tag in the whole buffer, for messages.
        var offset: Int
    }

    private let bytes: ArraySlice<UInt8>
    private var position: Int

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        position = bytes.startIndex
    }

    var isAtEnd: Bool { position >= bytes.endIndex }

    /// Reads the next field, or nil at the end of the message.
    mutating func next() throws(GeometryError) -> Field? {
        guard !isAtEnd else { return nil }
        let start = position
        let key = try varint()
        let number = key >> 3
        guard number > 0 else { throw .malformedProtobuf(offset: start, reason: "field number 0") }
        guard let type = WireType(rawValue: key & 7) else {
            throw .malformedProtobuf(offset: start, reason: "unsupported wire type \(key & 7) for field \(number)")
        }
        var field = Field(number: number, type: type, offset: start)
        switch type {
        case .varint: field.varint = try varint()
        case .fixed64: field.bytes = try take(8)
        case .fixed32: field.bytes = try take(4)
        case .lengthDelimited:
            let length = try varint()
            guard length <= UInt64(bytes.endIndex - position) else {
                throw .malformedProtobuf(offset: start, reason: "field \(number) claims \(length) bytes, \(bytes.endIndex - position) left")
            }
            field.bytes = try take(Int(length))
        }
        return field
    }

    private mutating func take(_ n: Int) throws(GeometryError) -> ArraySlice<UInt8> {
        guard n <= bytes.endIndex - position else {
            throw .malformedProtobuf(offset: position, reason: "needs \(n) bytes, \(bytes.endIndex - position) left")
        }
        defer { position += n }
        return bytes[position..<position + n]
    }

    private mutating func varint() throws(GeometryError) -> UInt64 {
        let start = position
        var value: UInt64 = 0
        for shift in stride(from: UInt64(0), to: 64, by: 7) {
            guard position < bytes.endIndex else { throw .malformedProtobuf(offset: start, reason: "truncated varint") }
            let byte = bytes[position]
            position += 1
            if shift == 63 && byte > 1 { throw .malformedProtobuf(offset: start, reason: "varint overflows 64 bits") }
            value |= UInt64(byte & 0x7f) << shift
            if byte & 0x80 == 0 { return value }
        }
        throw .malformedProtobuf(offset: start, reason: "varint longer than 10 bytes")
    }

    /// The little-endian float32 of a fixed32 payload.
    static func float(_ bytes: ArraySlice<UInt8>) -> Float {
        var bits: UInt32 = 0
        for (i, b) in bytes.prefix(4).enumerated() { bits |= UInt32(b) << (8 * UInt32(i)) }
        return Float(bitPattern: bits)
    }

    /// Every value of a repeated float field, packed (one length-delimited run) or not.
    static func floats(_ field: Field) throws(GeometryError) -> [Float] {
        switch field.type {
        case .fixed32: return [float(field.bytes)]
        case .lengthDelimited:
            guard field.bytes.count % 4 == 0 else {
                throw .malformedProtobuf(offset: field.offset, reason: "packed floats of \(field.bytes.count) bytes")
            }
            return stride(from: field.bytes.startIndex, to: field.bytes.endIndex, by: 4).map { float(field.bytes[$0..<$0 + 4]) }
        default: throw .malformedProtobuf(offset: field.offset, reason: "field \(field.number) is not a float")
        }
    }

    /// Every value of a repeated varint field, packed or not.
    static func varints(_ field: Field) throws(GeometryError) -> [UInt64] {
        switch field.type {
        case .varint: return [field.varint]
        case .lengthDelimited:
            var reader = ProtoWireReader(field.bytes)
            var values: [UInt64] = []
            while !reader.isAtEnd { values.append(try reader.varint()) }
            return values
        default: throw .malformedProtobuf(offset: field.offset, reason: "field \(field.number) is not a varint")
        }
    }
}
