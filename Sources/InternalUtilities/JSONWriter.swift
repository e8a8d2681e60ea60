/// UTF-8 JSON text being built, the one writer of every JSON line this package prints (the
/// detect, track, analyze and landmarks contracts): keys in a fixed order, and everything
/// appended to one byte buffer, numbers included (no String kept per token; the analyze mesh
/// alone is 1434 numbers per face). The caller opens and closes objects and arrays; the
/// contracts' shared parts (a detection's fields) are functions of it, so a line nests them
/// instead of splicing one object's text into another. Its small methods are inlinable, so that
/// the writers in other modules (FaceAnalysis's 1434-point mesh) append bytes without a call each.
package struct JSONWriter: TextOutputStream {
    /// The text so far.
    package var bytes: [UInt8]

    /// An empty text with room for `capacity` bytes.
    @inlinable package init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Text to go on writing after (say, a line's start built elsewhere).
    @inlinable package init(bytes: [UInt8]) { self.bytes = bytes }

    /// The text as a String.
    @inlinable package var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Appends `string`'s UTF-8 as it is (no escaping): where `Float.write(to:)` and
    /// `Int.write(to:)` put their digits (a small string, kept inline, not allocated).
    @inlinable package mutating func write(_ string: String) {
        bytes.append(contentsOf: string.utf8)
    }

    /// One ASCII character.
    @inlinable package mutating func byte(_ c: Unicode.Scalar) { bytes.append(UInt8(ascii: c)) }

    /// Literal text (punctuation and keys) as it is.
    @inlinable package mutating func literal(_ s: StaticString) { s.withUTF8Buffer { bytes.append(contentsOf: $0) } }

    /// A number: the shortest decimal that reads back as the same float (`description`'s
    /// text, a small string: no allocation); JSON has no NaN or infinity, so those are written
    /// as null.
    @inlinable package mutating func number(_ v: Float) {
        if v.isFinite { write(v.description) } else { literal("null") }
    }

    /// A double as `number(_:)` writes a float: the shortest decimal that reads back the same.
    @inlinable package mutating func number(_ v: Double) {
        if v.isFinite { write(v.description) } else { literal("null") }
    }

    /// A float as string interpolation writes it, NaN and infinities included ("nan", "inf"):
    /// for the landmarks line, which has always written them so.
    @inlinable package mutating func interpolated(_ v: Float) { v.write(to: &self) }

    /// An integer in decimal.
    @inlinable package mutating func integer(_ v: Int) { write(v.description) }

    /// `[x,y]`, numbers as `number(_:)`.
    @inlinable package mutating func point(_ p: SIMD2<Float>) {
        byte("[")
        number(p.x)
        byte(",")
        number(p.y)
        byte("]")
    }

    /// `[x,y,z]`, numbers as `number(_:)`.
    @inlinable package mutating func point(_ p: SIMD3<Float>) {
        byte("[")
        number(p.x)
        byte(",")
        number(p.y)
        byte(",")
        number(p.z)
        byte("]")
    }

    /// A JSON string literal for `s`: quotes, backslashes, \n, \r and \t escaped, other
    /// control characters as \u00XX, everything else as it is (UTF-8).
    @inlinable package mutating func string(_ s: String) {
        byte("\"")
        for u in s.unicodeScalars {
            switch u {
            case "\"": literal("\\\"")
            case "\\": literal("\\\\")
            case "\n": literal("\\n")
            case "\r": literal("\\r")
            case "\t": literal("\\t")
            case _ where u.value < 0x20:
                let hex = String(u.value, radix: 16)
                literal("\\u")
                for _ in hex.count..<4 { byte("0") }
                write(hex)
            default:
                bytes.append(contentsOf: u.utf8)
            }
        }
        byte("\"")
    }
}
