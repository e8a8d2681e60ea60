import BlazeImageIO
import Foundation
import Testing

@testable import BlazeImage

@Suite struct PNGEncodeTests {
    /// A deterministic image with every byte value somewhere.
    static func sample(width: Int, height: Int) throws -> RGBImage {
        try RGBImage(width: width, height: height,
                     pixels: (0..<width * height * 3).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ $0 >> 8) })
    }

    @Test("encode then decode gives the same pixels", arguments: [(1, 1), (13, 11), (64, 3), (3, 100)])
    func roundTrips(_ size: (Int, Int)) throws {
        let image = try Self.sample(width: size.0, height: size.1)
        let png = try PNG.encode(image)
        #expect(Array(png.prefix(8)) == PNGBytes.signature)
        #expect(try PNG.decode(png) == image)
    }

    @Test("an image whose pixel count was changed is not encoded")
    func refusesInconsistentImage() throws {
        var image = try RGBImage(width: 2, height: 2)
        image.pixels.removeLast()
        #expect(throws: ImageError.pixelCountMismatch(expected: 12, actual: 11)) { try PNG.encode(image) }
    }

    @Test("write then read a file, leaving no temporary file")
    func writesAndReadsFile() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/out.png"
        let image = try Self.sample(width: 17, height: 9)
        try PNG.write(image, to: path)
        try PNG.write(image, to: path)  // replacing an existing file
        #expect(try PNG.read(contentsOf: path) == image)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["out.png"])
        let permissions = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(permissions == 0o644)
    }

    @Test("a file that cannot be written gives an io error naming it and leaves nothing")
    func reportsWriteFailure() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let image = try RGBImage(width: 2, height: 2)
        let missing = folder + "/no/such/folder/out.png"
        #expect { try PNG.write(image, to: missing) } throws: { error in
            guard case .io(let path, _) = error as? ImageError else { return false }
            return path == missing
        }
        try FileManager.default.createDirectory(atPath: folder + "/taken.png", withIntermediateDirectories: false)
        #expect(throws: ImageError.self) { try PNG.write(image, to: folder + "/taken.png") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["taken.png"])
    }

    @Test("missing and non-PNG files are reported with their path")
    func reportsReadFailures() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let missing = folder + "/missing.png"
        #expect { try PNG.read(contentsOf: missing) } throws: { error in
            guard let error = error as? ImageError, case .io(let path, _) = error else { return false }
            return path == missing && error.description.hasPrefix(missing + ": ")
        }
        #expect { try PNG.read(contentsOf: folder) } throws: { error in
            guard case .io(let path, _) = error as? ImageError else { return false }
            return path == folder
        }
        let text = folder + "/text.png"
        try Data("hello".utf8).write(to: URL(fileURLWithPath: text))
        #expect(throws: ImageError.file(path: text, .notPNG)) { try PNG.read(contentsOf: text) }
    }
}
