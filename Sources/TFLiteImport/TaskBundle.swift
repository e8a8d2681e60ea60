import InternalUtilities
import Foundation

/// Why a MediaPipe `.task` bundle could not be read.
public enum TaskBundleError: Error, Equatable, CustomStringConvertible {
    /// The file at `path` could not be read; the system's reason.
    case io(path: String, reason: String)
    /// The data is not a zip archive (too short, or no end-of-central-directory record).
    case notAZip(String)
    /// The zip is broken or unsupported (zip64), or a member fails its CRC-32; what is wrong.
    case corrupt(String)
    /// A member is compressed (its zip method given); only stored members are read.
    case compressed(member: String, method: Int)
    /// The bundle's SHA-256 is not the expected one; both, in lowercase hex.
    case checksumMismatch(expected: String, found: String)
    /// No member of that name; the names the bundle holds.
    case missingMember(String, available: [String])

    /// A readable message saying what is wrong with the bundle.
    public var description: String {
        switch self {
        case .io(let path, let reason): "cannot read '\(path)': \(reason)"
        case .notAZip(let s): "not a .task bundle (zip): \(s)"
        case .corrupt(let s): "corrupt .task bundle: \(s)"
        case .compressed(let m, let method):
            "member '\(m)' is compressed (zip method \(method)); only stored (method 0) members are read"
        case .checksumMismatch(let e, let f): "bundle sha256 is \(f), expected \(e)"
        case .missingMember(let m, let available):
            "no member '\(m)' in the bundle (it holds: \(available.joined(separator: ", ")))"
        }
    }
}

/// A MediaPipe `.task` model bundle: a zip whose members (the .tflite models and metadata) are
/// stored uncompressed. Reads the central directory with every offset and size bounds-checked,
/// and hands out members by name after checking their CRC-32. Compressed members are refused.
public struct TaskBundle: Sendable {
    /// One stored member: its name and where its bytes lie in the bundle.
    public struct Member: Sendable, Equatable {
        /// The member's path inside the zip.
        public var name: String
        /// Where the member's bytes start in the bundle, and how many there are.
        public var offset: Int
        /// The member's byte count.
        public var size: Int
        /// The directory's CRC-32 of those bytes.
        public var crc32: UInt32
    }

    /// The whole bundle, as read.
    public let bytes: [UInt8]
    /// Its stored members, in directory order.
    public let members: [Member]
    /// SHA-256 of the whole bundle, lowercase hex (provenance).
    public let sha256: String

    /// Reads a bundle from disk; with `expectedSHA256` the whole file's hash must match.
    public init(contentsOf path: String, expectedSHA256: String? = nil) throws(TaskBundleError) {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw .io(path: path, reason: (error as NSError).localizedDescription)
        }
        try self.init(bytes: [UInt8](data), expectedSHA256: expectedSHA256)
    }

    /// Reads a bundle from its bytes; with `expectedSHA256` their hash must match.
    public init(bytes: [UInt8], expectedSHA256: String? = nil) throws(TaskBundleError) {
        let hash = SHA256.hex(bytes)
        if let expectedSHA256, expectedSHA256.lowercased() != hash {
            throw .checksumMismatch(expected: expectedSHA256.lowercased(), found: hash)
        }
        self.bytes = bytes
        self.sha256 = hash
        self.members = try Self.readDirectory(bytes)
    }

    /// The names of the members, in directory order.
    public var names: [String] { members.map(\.name) }

    /// The bytes of member `name`, CRC-checked.
    public func member(_ name: String) throws(TaskBundleError) -> [UInt8] {
        guard let m = members.first(where: { $0.name == name }) else {
            throw .missingMember(name, available: names)
        }
        let slice = Array(bytes[m.offset..<m.offset + m.size])
        let crc = CRC32.checksum(slice)
        guard crc == m.crc32 else {
            throw .corrupt("member '\(name)' has CRC-32 \(String(crc, radix: 16)), the directory says \(String(m.crc32, radix: 16))")
        }
        return slice
    }

    // MARK: The zip structure (PKWARE APPNOTE 4.3.7, 4.3.12, 4.3.16)

    private static func readDirectory(_ b: [UInt8]) throws(TaskBundleError) -> [Member] {
        func u16(_ o: Int) -> Int { Int(b[o]) | Int(b[o + 1]) << 8 }
        func u32(_ o: Int) -> Int { u16(o) | u16(o + 2) << 16 }
        guard b.count >= 22 else { throw .notAZip("\(b.count) bytes is too short") }
        // The end-of-central-directory record: the last signature within 22 + 65535 bytes of the end.
        var eocd = -1
        var o = b.count - 22
        while o >= max(0, b.count - 22 - 65_535) {
            if u32(o) == 0x0605_4b50 { eocd = o; break }
            o -= 1
        }
        guard eocd >= 0 else { throw .notAZip("no end-of-central-directory record") }
        let count = u16(eocd + 10), dirSize = u32(eocd + 12), dirOffset = u32(eocd + 16)
        guard count != 0xffff, dirOffset != 0xffff_ffff else { throw .corrupt("zip64 bundles are not supported") }
        guard dirOffset <= eocd, dirSize <= eocd - dirOffset else {
            throw .corrupt("central directory \(dirOffset)+\(dirSize) runs past its end record at \(eocd)")
        }
        var members: [Member] = []
        var p = dirOffset
        for i in 0..<count {
            guard p + 46 <= eocd, u32(p) == 0x0201_4b50 else { throw .corrupt("directory entry \(i) is missing") }
            let method = u16(p + 10), crc = UInt32(u32(p + 16))
            let compressed = u32(p + 20), size = u32(p + 24)
            let nameLength = u16(p + 28), extraLength = u16(p + 30), commentLength = u16(p + 32)
            let local = u32(p + 42)
            guard p + 46 + nameLength <= eocd else { throw .corrupt("directory entry \(i) name runs past the directory") }
            let name = String(decoding: b[(p + 46)..<(p + 46 + nameLength)], as: UTF8.self)
            p += 46 + nameLength + extraLength + commentLength
            if name.hasSuffix("/") { continue }   // a folder entry
            guard method == 0 else { throw .compressed(member: name, method: method) }
            guard compressed == size else { throw .corrupt("stored member '\(name)' has sizes \(compressed) and \(size)") }
            guard local <= b.count - 30, u32(local) == 0x0403_4b50 else {
                throw .corrupt("member '\(name)' has no local header at \(local)")
            }
            let start = local + 30 + u16(local + 26) + u16(local + 28)
            guard start <= b.count, size <= b.count - start else {
                throw .corrupt("member '\(name)' (\(size) bytes at \(start)) runs past the bundle's \(b.count) bytes")
            }
            members.append(Member(name: name, offset: start, size: size, crc32: crc))
        }
        return members
    }
}

/// CRC-32 (ISO-HDLC, the zip checksum), table-driven.
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xedb8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xffff_ffff
        for byte in bytes { c = table[Int((c ^ UInt32(byte)) & 0xff)] ^ (c >> 8) }
        return c ^ 0xffff_ffff
    }
}
