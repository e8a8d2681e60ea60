/// A minimal, bounds-checked FlatBuffers reader: just enough to walk a TFLite model.
/// Every offset is checked before it is followed, so a corrupt file is an error, never a trap.
struct FlatBuffer: Sendable {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func u8(_ at: Int) throws(TFLiteError) -> UInt8 {
        guard at >= 0, at < bytes.count else { throw .corrupt("read at \(at) past the end (\(bytes.count) bytes)") }
        return bytes[at]
    }
    func u16(_ at: Int) throws(TFLiteError) -> UInt16 {
        UInt16(try u8(at)) | UInt16(try u8(at + 1)) << 8
    }
    func u32(_ at: Int) throws(TFLiteError) -> UInt32 {
        guard at >= 0, at <= bytes.count - 4 else { throw .corrupt("read at \(at) past the end (\(bytes.count) bytes)") }
        return UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }
    func i32(_ at: Int) throws(TFLiteError) -> Int32 { Int32(bitPattern: try u32(at)) }
    func u64(_ at: Int) throws(TFLiteError) -> UInt64 {
        UInt64(try u32(at)) | UInt64(try u32(at + 4)) << 32
    }

    /// The root table.
    func root() throws(TFLiteError) -> Table { try Table(buffer: self, position: Int(try u32(0))) }

    /// A table: a position and the vtable that says where each field lives.
    struct Table: Sendable {
        let buffer: FlatBuffer
        let position: Int
        private let vtable: Int
        private let vtableSize: Int

        init(buffer: FlatBuffer, position: Int) throws(TFLiteError) {
            self.buffer = buffer
            self.position = position
            let vt = position - Int(try buffer.i32(position))
            let size = Int(try buffer.u16(vt))
            guard size >= 4, size % 2 == 0, vt + size <= buffer.bytes.count else {
                throw .corrupt("bad vtable at \(vt)")
            }
            vtable = vt
            vtableSize = size
        }

        /// Absolute position of field `id`, or nil when the field is absent (default value).
        func field(_ id: Int) throws(TFLiteError) -> Int? {
            let entry = 4 + 2 * id
            guard entry < vtableSize else { return nil }
            let offset = Int(try buffer.u16(vtable + entry))
            return offset == 0 ? nil : position + offset
        }

        func u8(_ id: Int, default value: UInt8 = 0) throws(TFLiteError) -> UInt8 {
            guard let at = try field(id) else { return value }
            return try buffer.u8(at)
        }
        func i32(_ id: Int, default value: Int32 = 0) throws(TFLiteError) -> Int32 {
            guard let at = try field(id) else { return value }
            return try buffer.i32(at)
        }
        func u32(_ id: Int, default value: UInt32 = 0) throws(TFLiteError) -> UInt32 {
            guard let at = try field(id) else { return value }
            return try buffer.u32(at)
        }
        func u64(_ id: Int, default value: UInt64 = 0) throws(TFLiteError) -> UInt64 {
            guard let at = try field(id) else { return value }
            return try buffer.u64(at)
        }

        private func indirect(_ at: Int) throws(TFLiteError) -> Int { at + Int(try buffer.u32(at)) }

        func table(_ id: Int) throws(TFLiteError) -> Table? {
            guard let at = try field(id) else { return nil }
            return try Table(buffer: buffer, position: try indirect(at))
        }

        /// A vector field: its element count and the position of its first element.
        func vector(_ id: Int, elementSize: Int) throws(TFLiteError) -> (count: Int, start: Int)? {
            guard let at = try field(id) else { return nil }
            let v = try indirect(at)
            let count = Int(try buffer.u32(v))
            guard count <= (buffer.bytes.count - v - 4) / elementSize else {
                throw .corrupt("vector of \(count) elements at \(v) runs past the end")
            }
            return (count, v + 4)
        }

        func string(_ id: Int) throws(TFLiteError) -> String? {
            guard let (count, start) = try vector(id, elementSize: 1) else { return nil }
            return String(decoding: buffer.bytes[start..<start + count], as: UTF8.self)
        }

        func i32s(_ id: Int) throws(TFLiteError) -> [Int32] {
            guard let (count, start) = try vector(id, elementSize: 4) else { return [] }
            var out: [Int32] = []
            for i in 0..<count { out.append(try buffer.i32(start + 4 * i)) }
            return out
        }

        func bytes(_ id: Int) throws(TFLiteError) -> ArraySlice<UInt8>? {
            guard let (count, start) = try vector(id, elementSize: 1) else { return nil }
            return buffer.bytes[start..<start + count]
        }

        func tables(_ id: Int) throws(TFLiteError) -> [Table] {
            guard let (count, start) = try vector(id, elementSize: 4) else { return [] }
            var out: [Table] = []
            for i in 0..<count {
                let at = start + 4 * i
                out.append(try Table(buffer: buffer, position: at + Int(try buffer.u32(at))))
            }
            return out
        }
    }
}
