import Foundation
import Testing

@testable import BlazeImageHEIF

/// HEIC files made at test time from the PNG fixtures with libheif's `heif-enc` (x265).
enum HEIFSupport {
    static let images = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/images")
    static let heifEnc = ["/usr/bin/heif-enc", "/usr/local/bin/heif-enc"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static var available: Bool { heifEnc != nil && HEIF.canDecodeHEVC }

    /// A fresh temporary folder.
    static func folder() throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("BlazeImageHEIFTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url.path
    }

    /// `heif-enc -q quality -o output input` (with `-A`: AVIF, AV1 through libaom); the file's bytes.
    static func encode(_ input: String, quality: Int, avif: Bool = false, in folder: String) throws -> [UInt8] {
        let output = folder + "/\(UUID().uuidString).\(avif ? "avif" : "heic")"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(heifEnc))
        process.arguments = ["-q", "\(quality)"] + (avif ? ["-A"] : []) + ["-o", output, input]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "heif-enc failed on \(input)")
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
    }

    static func psnr(_ a: RGBImage, _ b: RGBImage) -> Double {
        var sum = 0.0
        for (x, y) in zip(a.pixels, b.pixels) { let d = Double(x) - Double(y); sum += d * d }
        let mse = sum / Double(a.pixels.count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    /// The same HEIF with an `irot` property (quarter turns anticlockwise) on its primary item:
    /// the meta box is rebuilt at the end of the file (its old place becomes a `free` box, so
    /// that every iloc offset into mdat still holds), with irot appended to ipco and associated
    /// in ipma. Handles the layout heif-enc writes (ipma version 0, 1-byte associations).
    static func addingRotation(_ heif: [UInt8], quarterTurns: UInt8) throws -> [UInt8] {
        func u32(_ b: [UInt8], _ o: Int) -> Int { Int(b[o]) << 24 | Int(b[o + 1]) << 16 | Int(b[o + 2]) << 8 | Int(b[o + 3]) }
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        func type(_ b: [UInt8], _ o: Int) -> String { String(decoding: b[(o + 4)..<(o + 8)], as: UTF8.self) }
        /// Child boxes of the box content b[start..<end].
        func children(_ b: [UInt8], _ start: Int, _ end: Int) -> [(type: String, range: Range<Int>)] {
            var result: [(String, Range<Int>)] = [], o = start
            while o + 8 <= end { let size = u32(b, o); result.append((type(b, o), o..<(o + size))); o += size }
            return result
        }
        var file = heif
        let top = children(file, 0, file.count)
        let metaRange = try #require(top.first { $0.type == "meta" }).range
        let meta = Array(file[metaRange])
        let primary = try #require(children(meta, 12, meta.count).first { $0.type == "pitm" }).range
        let primaryID = Int(meta[primary.lowerBound + 12]) << 8 | Int(meta[primary.lowerBound + 13])
        var newMetaBody: [UInt8] = []
        for child in children(meta, 12, meta.count) {
            guard child.type == "iprp" else { newMetaBody += meta[child.range]; continue }
            var ipco: [UInt8] = [], ipma: [UInt8] = []
            for property in children(meta, child.range.lowerBound + 8, child.range.upperBound) {
                if property.type == "ipco" {
                    let count = children(meta, property.range.lowerBound + 8, property.range.upperBound).count
                    let irot = be32(9) + Array("irot".utf8) + [quarterTurns & 3]
                    ipco = be32(property.range.count + 9) + Array("ipco".utf8) + meta[(property.range.lowerBound + 8)..<property.range.upperBound] + irot
                    let index = UInt8(count + 1) | 0x80   // essential
                    // ipma v0: version/flags, entry count, then per item: ID (2), count (1), associations (1 each).
                    let ipmaRange = try #require(children(meta, child.range.lowerBound + 8, child.range.upperBound).first { $0.type == "ipma" }).range
                    var entries = Array(meta[(ipmaRange.lowerBound + 8)..<ipmaRange.upperBound])
                    try #require(entries[0] == 0 && entries[3] & 1 == 0, "ipma version 0 with 1-byte associations expected")
                    var o = 8
                    for _ in 0..<u32(entries, 4) {
                        let id = Int(entries[o]) << 8 | Int(entries[o + 1]), n = Int(entries[o + 2])
                        if id == primaryID { entries[o + 2] += 1; entries.insert(index, at: o + 3 + n); break }
                        o += 3 + n
                    }
                    ipma = be32(entries.count + 8) + Array("ipma".utf8) + entries
                }
            }
            newMetaBody += be32(8 + ipco.count + ipma.count) + Array("iprp".utf8) + ipco + ipma
        }
        let newMeta = be32(12 + newMetaBody.count) + Array(meta[4..<12]) + newMetaBody
        file.replaceSubrange((metaRange.lowerBound + 4)..<(metaRange.lowerBound + 8), with: Array("free".utf8))
        return file + newMeta
    }
}

@Suite struct HEIFTests {
    /// The suite's prerequisites: a missing one fails here, by name, instead of the suite skipping itself.
    @Test func prerequisitesArePresent() {
        #expect(HEIFSupport.heifEnc != nil, "heif-enc is missing: install libheif-examples (Tools/install-deps.sh does)")
        #expect(HEIF.canDecodeHEVC, "libheif has no HEVC decoder: install libheif's plugins (Tools/install-deps.sh does)")
    }

    @Test func decodesCloseToTheSourcePNGWithItsProfile() throws {
        let folder = try HEIFSupport.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = HEIFSupport.images.appendingPathComponent("astronaut_223x231.png").path
        let png = try PNG.read(contentsOf: source)
        let heic = try HEIFSupport.encode(source, quality: 90, in: folder)
        #expect(HEIF.isHEIF(heic))
        #expect(ImageFormat(sniffing: heic) == .heif)
        let photo = try HEIF.readPhoto(data: heic)
        #expect(photo.format == .heif && photo.image.width == 223 && photo.image.height == 231)
        let psnr = HEIFSupport.psnr(photo.image, png)
        print("HEIC q90 of astronaut_223x231.png: \(heic.count) bytes, PSNR \(psnr) dB")
        #expect(psnr > 35)
        let sourceProfile = try PNG.iccProfile(try ImageFile.contents(of: source))
        #expect(photo.iccProfile != nil && photo.iccProfile == sourceProfile)
        #expect(try HEIF.decode(heic) == photo.image)
    }

    /// AVIF (an AV1 picture in HEIF's container, what newer phones and browsers save) is read
    /// by the same libheif call: Tools/install-deps.sh installs libheif with its AV1 decoders.
    @Test func decodesAnAVIFPhotoCloseToTheSourcePNG() throws {
        let folder = try HEIFSupport.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = HEIFSupport.images.appendingPathComponent("astronaut_223x231.png").path
        let avif = try HEIFSupport.encode(source, quality: 90, avif: true, in: folder)
        #expect(ImageFormat(sniffing: avif) == .heif)
        let photo = try HEIF.readPhoto(data: avif)
        #expect(photo.image.width == 223 && photo.image.height == 231)
        #expect(HEIFSupport.psnr(photo.image, try PNG.read(contentsOf: source)) > 30)
    }

    @Test func returnsTheEXIFBlockUpright() throws {
        let folder = try HEIFSupport.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // A JPEG with Make and Orientation 6: heif-enc copies its EXIF into the HEIC.
        let image = try PNG.read(contentsOf: HEIFSupport.images.appendingPathComponent("astronaut_tiny48.png").path)
        var tiff: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 2]
        tiff += [0x01, 0x0F, 0, 2, 0, 0, 0, 4] + Array("Sam".utf8) + [0]      // Make "Sam" (inline)
        tiff += [0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0]                     // Orientation 6
        tiff += [0, 0, 0, 0]
        let exif = try #require(EXIFBlock(tiff: tiff))
        let jpegPath = folder + "/in.jpg"
        try JPEG.write(image, to: jpegPath, quality: 95, exif: exif)
        let photo = try HEIF.readPhoto(data: try HEIFSupport.encode(jpegPath, quality: 90, in: folder))
        let read = try #require(photo.exif)
        #expect(read == read.upright())
        #expect(Array(read.tiff[18..<22]) == Array("Sam".utf8) + [0])
    }

    @Test func appliesTheRotationTransform() throws {
        let folder = try HEIFSupport.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = HEIFSupport.images.appendingPathComponent("wide_1200x300.png").path
        let heic = try HEIFSupport.encode(source, quality: 90, in: folder)
        let upright = try HEIF.decode(heic)
        let rotated = try HEIF.decode(try HEIFSupport.addingRotation(heic, quarterTurns: 1))   // 90 degrees anticlockwise
        #expect(rotated.width == upright.height && rotated.height == upright.width)
        #expect(rotated == upright.applying(.rotated90CounterClockwise))
    }

    /// A grid of thousands of tiles, or of one tile used again and again, and a header claiming
    /// more pixels than the file can hold, are refused before libheif allocates the canvas
    /// (issue 40: a 1,175-byte grid claiming 16000x6000 took 886 MB, 19,968 tiles 87 s).
    @Test func claimsAreCheckedBeforeDecoding() throws {
        func box(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let n = body.count + 8
            return [UInt8(n >> 24 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] + Array(type.utf8) + body
        }
        func grid(_ tiles: [UInt16]) -> [UInt8] {
            let count = UInt16(tiles.count)
            let dimg = box("dimg", [0, 1, UInt8(count >> 8), UInt8(count & 0xFF)] + tiles.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })
            return box("ftyp", Array("heic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8))
                + box("meta", [0, 0, 0, 0] + box("iref", [0, 0, 0, 0] + dimg))
        }
        #expect(throws: ImageError.unsupported(.heif, "item 1 is built from 3000 tiles, over the 2048 this reader decodes")) {
            try HEIF.decode(grid((0..<3000).map { UInt16($0 + 2) }))
        }
        #expect(throws: ImageError.corruptData(.heif, "item 1 uses one tile more than once: not a photo a camera wrote")) {
            try HEIF.decode(grid([2, 3, 2, 3]))
        }
        // A flat photo (the most compressible) is read; the same file claiming 16000x6000 is not.
        let folder = try HEIFSupport.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let flatPNG = folder + "/flat.png"
        try PNG.write(try RGBImage(width: 256, height: 256, pixels: [UInt8](repeating: 128, count: 256 * 256 * 3)), to: flatPNG)
        var heic = try HEIFSupport.encode(flatPNG, quality: 10, in: folder)
        #expect(try HEIF.decode(heic).width == 256)
        let ispe = try #require((0..<(heic.count - 16)).first { heic[$0..<($0 + 4)].elementsEqual("ispe".utf8) })
        heic.replaceSubrange((ispe + 8)..<(ispe + 16), with: [0, 0, 0x3E, 0x80, 0, 0, 0x17, 0x70])
        do {
            _ = try HEIF.decode(heic)
            Issue.record("no error")
        } catch {
            guard case .truncatedData(.heif, let detail) = error else { Issue.record("\(error)"); return }
            #expect(detail.contains("16000x6000"))
        }
    }

    @Test func refusesBrokenDataClearly() throws {
        let folder = try HEIFSupport.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let heic = try HEIFSupport.encode(HEIFSupport.images.appendingPathComponent("astronaut_tiny48.png").path, quality: 50, in: folder)
        for cut in [40, heic.count / 2, heic.count - 10] {
            #expect(throws: ImageError.self) { try HEIF.decode(Array(heic.prefix(cut))) }
        }
        do {
            _ = try HEIF.decode(Array(heic.prefix(heic.count / 2)))
        } catch {
            print("truncated HEIC: \(error)")
            #expect(error.description.contains("HEIF"))
        }
        #expect(throws: ImageError.self) { try HEIF.decode(Array(heic.prefix(32)) + [UInt8](repeating: 0xA5, count: 500)) }
        #expect(throws: ImageError.self) { try HEIF.decode(Array("not a heic at all".utf8)) }
        #expect(throws: ImageError.tooLarge(width: 48, height: 48, limits: ImageLimits(maxWidth: 32, maxHeight: 32, maxPixels: 1024))) {
            try HEIF.decode(heic, limits: ImageLimits(maxWidth: 32, maxHeight: 32, maxPixels: 1024))
        }
        let path = folder + "/cut.heic"
        try Data(heic.prefix(200)).write(to: URL(fileURLWithPath: path))
        #expect { try HEIF.readPhoto(contentsOf: path) } throws: { error in
            guard case .file(let p, _) = error as? ImageError else { return false }
            return p == path
        }
    }
}

@Test func sniffsHEIFBrands() {
    let ftyp: [UInt8] = [0, 0, 0, 24] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8)
    #expect(HEIF.isHEIF(ftyp))
    // An AVIF photo is read here; an AVIF sequence (an animation) is a video, for FFmpeg.
    #expect(HEIF.isHEIF([0, 0, 0, 28] + Array("ftypavif".utf8) + [0, 0, 0, 0] + Array("avifmif1miaf".utf8)))
    #expect(!HEIF.isHEIF([0, 0, 0, 28] + Array("ftypavis".utf8) + [0, 0, 0, 0] + Array("avismsf1miaf".utf8)))
    #expect(!HEIF.isHEIF(Array("GIF89a".utf8)))
    #expect(throws: ImageError.self) { try HEIF.decode(Array("GIF89a".utf8)) }
}
