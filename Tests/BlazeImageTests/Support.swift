import Foundation
import Testing

@testable import BlazeImage

/// The fixtures made by Tools/fixtures/make_png_fixtures.py.
enum Fixtures {
    /// Every NAME.png that has an expected NAME.rgb.
    static let names = [
        "gray1", "gray2", "gray4", "gray8", "gray16", "gray8_trns", "gray16_trns",
        "gray_alpha8", "gray_alpha16", "rgb8", "rgb16", "rgb8_trns", "rgba8", "rgba16",
        "palette1", "palette2", "palette4", "palette8", "palette4_trns", "palette8_trns",
        "gray1_interlaced", "gray16_interlaced", "rgb8_interlaced", "rgba16_interlaced",
        "palette2_trns_interlaced",
    ]
    /// The size of all of them but gray16_ramp.
    static let width = 13, height = 11

    static func path(_ file: String) throws -> String {
        let url = Bundle.module.url(forResource: file, withExtension: nil, subdirectory: "Resources")
        return try #require(url, "missing fixture \(file)").path
    }

    static func bytes(_ file: String) throws -> [UInt8] {
        let data = try #require(FileManager.default.contents(atPath: try path(file)), "missing fixture \(file)")
        return [UInt8](data)
    }
}

/// PNG chunk surgery for hand-made broken files.
enum PNGBytes {
    static let signature: [UInt8] = [137, 80, 78, 71, 13, 10, 26, 10]

    /// A chunk with its length and a valid CRC.
    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
    }

    static func ihdr(width: UInt32, height: UInt32, depth: UInt8 = 8, colorType: UInt8 = 2) -> [UInt8] {
        chunk("IHDR", bigEndian(width) + bigEndian(height) + [depth, colorType, 0, 0, 0])
    }

    /// The chunks of a PNG as (offset, total length, type), after the signature.
    static func chunks(_ png: [UInt8]) -> [(offset: Int, length: Int, type: String)] {
        var result: [(Int, Int, String)] = []
        var offset = 8
        while offset + 12 <= png.count {
            let length = png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: png[offset + 4..<offset + 8], as: UTF8.self)
            result.append((offset, length + 12, type))
            offset += length + 12
        }
        return result
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xffff_ffff
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xedb8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

/// A fresh empty folder under the system temporary folder.
func makeTemporaryFolder() throws -> String {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("BlazeImageTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url.path
}
