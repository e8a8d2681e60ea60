import BlazeImageIO
import Foundation
import Testing
import TestSupport

@testable import BlazeImageIO

/// Helpers for the photo I/O tests: fixture pictures, PSNR, hand-made EXIF and ICC data.
enum PhotoSupport {
    static func fixture(_ name: String) throws -> RGBImage {
        try PNG.read(contentsOf: JPEGFixtures.root.appendingPathComponent("images/\(name)").path)
    }

    /// Peak signal-to-noise ratio over all samples, in dB.
    static func psnr(_ a: RGBImage, _ b: RGBImage) -> Double {
        var sum = 0.0
        for (x, y) in zip(a.pixels, b.pixels) { let d = Double(x) - Double(y); sum += d * d }
        let mse = sum / Double(a.pixels.count)
        return mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    /// A minimal well-formed ICC header (monitor, RGB, XYZ, "acsp", D50) padded with
    /// pseudo-random bytes to `size` (a multiple of 4), with no tags. Not compressible: libpng
    /// 1.6 refuses an iCCP chunk under 92 bytes as "too short", whatever it inflates to.
    static func iccProfile(size: Int) -> [UInt8] {
        var state: UInt32 = 0x1234_5678
        let fill = (0..<(size - 132)).map { _ -> UInt8 in state = state &* 1_664_525 &+ 1_013_904_223; return UInt8(state >> 24) }
        var p = [UInt8](repeating: 0, count: 128) + [0, 0, 0, 0] + fill
        func put(_ v: UInt32, _ at: Int) { for k in 0..<4 { p[at + k] = UInt8(v >> (24 - 8 * UInt32(k)) & 0xFF) } }
        func put(_ s: String, _ at: Int) { for (k, c) in s.utf8.enumerated() { p[at + k] = c } }
        put(UInt32(size), 0); put(0x0240_0000, 8); put("mntr", 12); put("RGB ", 16); put("XYZ ", 20)
        put("acsp", 36); put(0x0000_F6D6, 68); put(0x0001_0000, 72); put(0x0000_D32D, 76)
        return p
    }

    /// A TIFF block: IFD0 with Make "Canon", Orientation 6 and a GPS pointer; a GPS IFD with
    /// LatitudeRef "N" and a latitude of 51/1 30/1 2649/100 (3 rationals stored after it).
    static func exifWithGPS(little: Bool) -> [UInt8] {
        var t: [UInt8] = little ? [0x49, 0x49, 42, 0] : [0x4D, 0x4D, 0, 42]
        func u16(_ v: Int) -> [UInt8] { little ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { little ? u16(v & 0xFFFF) + u16(v >> 16) : u16(v >> 16) + u16(v & 0xFFFF) }
        func entry(_ tag: Int, _ type: Int, _ count: Int, _ value: [UInt8]) -> [UInt8] {
            u16(tag) + u16(type) + u32(count) + value + [UInt8](repeating: 0, count: 4 - value.count)
        }
        // IFD0 at 8: 3 entries (8 + 2 + 36 + 4 = 50), "Canon\0" at 50, GPS IFD at 56.
        t += u32(8)
        t += u16(3)
        t += entry(0x010F, 2, 6, u32(50))
        t += entry(0x0112, 3, 1, u16(6))
        t += entry(0x8825, 4, 1, u32(56))
        t += u32(0)
        t += Array("Canon".utf8) + [0]
        // GPS IFD at 56: 2 entries (56 + 2 + 24 + 4 = 86), the rationals at 86.
        t += u16(2)
        t += entry(0x0001, 2, 2, Array("N".utf8) + [0])
        t += entry(0x0002, 5, 3, u32(86))
        t += u32(0)
        t += u32(51) + u32(1) + u32(30) + u32(1) + u32(2649) + u32(100)
        return t
    }

    /// IFD0's tags, in order, or nil.
    static func ifd0Tags(_ t: [UInt8]) -> [Int]? {
        guard let r = TIFFReader(t), let ifd = r.u32(4), let n = r.u16(ifd) else { return nil }
        return (0..<n).compactMap { r.u16(ifd + 2 + 12 * $0) }
    }

    /// The APP2 ICC_PROFILE segments' count in JPEG bytes.
    static func iccSegmentCount(_ jpeg: [UInt8]) -> Int {
        (JPEG.segments(jpeg) ?? []).filter { $0.marker == 0xE2 && $0.body.starts(with: Array("ICC_PROFILE".utf8)) }.count
    }

    /// The luma component's sampling factors in the SOF0 segment.
    static func lumaSampling(_ jpeg: [UInt8]) -> (Int, Int)? {
        guard let sof = JPEG.segments(jpeg)?.first(where: { $0.marker == 0xC0 })?.body, sof.count >= 9 else { return nil }
        let factors = sof[sof.startIndex + 7]
        return (Int(factors >> 4), Int(factors & 0x0F))
    }
}

@Suite struct JPEGEncodingTests {
    @Test func roundTripsCloseToTheInput() throws {
        let image = try PhotoSupport.fixture("astronaut.png")
        for quality in [75, 90] {
            let jpeg = try JPEG.encode(image, quality: quality)
            let decoded = try JPEG.decode(jpeg)
            #expect(decoded.width == image.width && decoded.height == image.height)
            let psnr = PhotoSupport.psnr(image, decoded)
            print("JPEG q\(quality): \(jpeg.count) bytes for \(image.width)x\(image.height), PSNR \(psnr) dB")
            #expect(psnr > (quality == 90 ? 36 : 32))
        }
    }

    @Test func subsamplesChromaBelowQuality90() throws {
        let image = try PhotoSupport.fixture("astronaut_tiny48.png")
        #expect(PhotoSupport.lumaSampling(try JPEG.encode(image, quality: 89)) ?? (0, 0) == (2, 2))
        #expect(PhotoSupport.lumaSampling(try JPEG.encode(image, quality: 90)) ?? (0, 0) == (1, 1))
    }

    @Test func estimatesTheQualityItWasSavedAt() throws {
        let image = try PhotoSupport.fixture("astronaut_tiny48.png")
        for quality in stride(from: 50, through: 95, by: 1) {
            let estimate = try #require(JPEG.estimatedQuality(try JPEG.encode(image, quality: quality)))
            #expect(abs(estimate - quality) <= 2, "q\(quality) estimated as \(estimate)")
        }
        for quality in [1, 10, 25, 100] {
            #expect(JPEG.estimatedQuality(try JPEG.encode(image, quality: quality)) == quality)
        }
        #expect(JPEG.estimatedQuality(try PNG.encode(image)) == nil)
        #expect(JPEG.estimatedQuality([0xFF, 0xD8, 0xFF, 0xDB, 0xFF, 0xFF]) == nil)   // a DQT running past the end
        for name in ["astronaut_baseline.jpg", "two_faces_1280x853.jpg"] {
            #expect(JPEG.estimatedQuality(try JPEGFixtures.bytes(name)) != nil)
        }
    }

    @Test func carriesEXIFInAPP1() throws {
        let image = try PhotoSupport.fixture("astronaut_tiny48.png")
        let exif = try #require(EXIFBlock(tiff: PhotoSupport.exifWithGPS(little: false)))
        let jpeg = try JPEG.encode(image, quality: 80, exif: exif)
        #expect(EXIFBlock(file: jpeg) == exif)
        #expect(EXIFOrientation(jpeg: jpeg) == .rotated90Clockwise)
        #expect(EXIFBlock(file: try JPEG.encode(image, quality: 80)) == nil)
        let tooLarge = try #require(EXIFBlock(tiff: [0x49, 0x49, 42, 0] + [UInt8](repeating: 0, count: 70_000)))
        #expect(throws: ImageError.self) { try JPEG.encode(image, quality: 80, exif: tooLarge) }
    }

    @Test(arguments: [600, 65519, 65520, 200_000])
    func carriesTheICCProfileInAPP2(size: Int) throws {
        let image = try PhotoSupport.fixture("astronaut_tiny48.png")
        let profile = PhotoSupport.iccProfile(size: size / 4 * 4 + (size % 4 == 0 ? 0 : 4))
        let jpeg = try JPEG.encode(image, quality: 85, iccProfile: profile)
        #expect(JPEG.iccProfile(jpeg) == profile)
        #expect(PhotoSupport.iccSegmentCount(jpeg) == (profile.count + 65518) / 65519)
        #expect(try JPEG.decode(jpeg).width == image.width)
        #expect(JPEG.iccProfile(try JPEG.encode(image, quality: 85)) == nil)
    }

    @Test func refusesInconsistentICCSegments() throws {
        func app2(_ sequence: UInt8, _ count: UInt8, _ data: [UInt8]) -> [UInt8] {
            let body = Array("ICC_PROFILE".utf8) + [0, sequence, count] + data
            return [0xFF, 0xE2, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xFF)] + body
        }
        let soi: [UInt8] = [0xFF, 0xD8], eoi: [UInt8] = [0xFF, 0xD9]
        #expect(JPEG.iccProfile(soi + app2(2, 2, [3, 4]) + app2(1, 2, [1, 2]) + eoi) == [1, 2, 3, 4])   // out of order
        #expect(JPEG.iccProfile(soi + app2(1, 2, [1, 2]) + eoi) == nil)                              // one missing
        #expect(JPEG.iccProfile(soi + app2(1, 2, [1]) + app2(1, 2, [2]) + eoi) == nil)               // repeated
        #expect(JPEG.iccProfile(soi + app2(1, 1, [1]) + app2(2, 2, [2]) + eoi) == nil)               // counts differ
        #expect(JPEG.iccProfile(soi + app2(0, 1, [1]) + eoi) == nil)                                 // sequence 0
        #expect(JPEG.iccProfile(soi + Array(app2(1, 1, [1, 2, 3]).dropLast(2))) == nil)              // truncated
    }
}

@Suite struct EXIFLocationTests {
    @Test(arguments: [true, false])
    func removingLocationDropsGPSAndKeepsMake(little: Bool) throws {
        let exif = try #require(EXIFBlock(tiff: PhotoSupport.exifWithGPS(little: little)))
        #expect(PhotoSupport.ifd0Tags(exif.tiff) == [0x010F, 0x0112, 0x8825])
        let clean = try #require(exif.removingLocation())
        #expect(PhotoSupport.ifd0Tags(clean.tiff) == [0x010F, 0x0112])
        #expect(clean.tiff.count == exif.tiff.count)
        #expect(Array(clean.tiff[50..<56]) == Array("Canon".utf8) + [0])                  // Make's value kept
        #expect(clean.tiff[56...].allSatisfy { $0 == 0 })                                 // the GPS IFD and its rationals gone
        #expect(clean.upright() != clean && PhotoSupport.ifd0Tags(clean.upright().tiff) == [0x010F, 0x0112])
        #expect(clean.removingLocation() == clean)                                         // nothing left to drop
        // Carried through a JPEG, the orientation is still found after the shift.
        let jpeg = try JPEG.encode(try PhotoSupport.fixture("astronaut_tiny48.png"), quality: 80, exif: clean)
        #expect(EXIFOrientation(jpeg: jpeg) == .rotated90Clockwise)
    }

    @Test func dropsMalformedBlocksWhole() throws {
        var t = PhotoSupport.exifWithGPS(little: true)
        t[42] = 0xF0; t[43] = 0xFF                                                      // GPS pointer past the end
        #expect(EXIFBlock(tiff: t)?.removingLocation() == nil)
        var badType = PhotoSupport.exifWithGPS(little: true)
        badType[58 + 12 + 2] = 99                                                        // unknown field type in the GPS IFD
        #expect(EXIFBlock(tiff: badType)?.removingLocation() == nil)
        var badIFD0 = PhotoSupport.exifWithGPS(little: true)
        badIFD0[4] = 0xFF                                                                // IFD0 past the end
        #expect(EXIFBlock(tiff: badIFD0)?.removingLocation() == nil)
        var overIFD0 = PhotoSupport.exifWithGPS(little: true)
        overIFD0[42] = 8                                                                 // the GPS IFD is IFD0
        #expect(EXIFBlock(tiff: overIFD0)?.removingLocation() == nil)
        #expect(EXIFBlock(tiff: Array("GIF89a..".utf8)) == nil)
    }
}

/// A camera's EXIF block holds pictures of the unedited photo: the thumbnail in IFD1 and
/// previews in the maker note. Kept, they would show the faces a redaction masked.
@Suite struct EXIFPreviewTests {
    static func thumbnail() throws -> [UInt8] { try JPEG.encode(try PhotoSupport.fixture("astronaut_tiny48.png"), quality: 80) }

    @Test(arguments: [true, false])
    func removingPreviewsDropsTheThumbnailAndTheMakerNote(little: Bool) throws {
        let (tiff, layout) = EXIFSamples.withPreviews(little: little, thumbnail: try Self.thumbnail())
        let exif = try #require(EXIFBlock(tiff: tiff))
        let clean = try #require(exif.removingPreviews())
        #expect(clean.tiff.count == tiff.count)
        #expect(PhotoSupport.ifd0Tags(clean.tiff) == [0x010F, 0x8769])                     // Make and the Exif IFD kept
        #expect(clean.tiff[layout.ifd0Link..<(layout.ifd0Link + 4)].allSatisfy { $0 == 0 })  // no IFD1
        #expect(clean.tiff[layout.makeValue] == tiff[layout.makeValue] && clean.tiff[layout.dateValue] == tiff[layout.dateValue])
        #expect(clean.tiff[layout.makerNote.lowerBound...].allSatisfy { $0 == 0 })          // the note, IFD1 and the thumbnail zeroed
        let reader = try #require(TIFFReader(clean.tiff))
        #expect(reader.find(0x927C, in: 44)?.index == nil && reader.find(0x9003, in: 44)?.index == 0)
        #expect(clean.removingPreviews() == clean)                                            // nothing left to drop
        // A block with neither is passed on as it is.
        let gps = try #require(EXIFBlock(tiff: PhotoSupport.exifWithGPS(little: little)))
        #expect(gps.removingPreviews() == gps)
    }

    @Test func previewsThatCannotBeWalkedDropTheBlock() throws {
        let (tiff, layout) = EXIFSamples.withPreviews(little: true, thumbnail: try Self.thumbnail())
        var past = tiff
        past[layout.ifd1 + 2 + 24 + 8] = 0xFF; past[layout.ifd1 + 2 + 24 + 9] = 0xFF            // a thumbnail length past the end
        #expect(EXIFBlock(tiff: past)?.removingPreviews() == nil)
        var chained = tiff
        chained[layout.ifd1 + 2 + 36] = 8                                                       // IFD1 links on to another IFD
        #expect(EXIFBlock(tiff: chained)?.removingPreviews() == nil)
        var note = tiff
        note[44 + 2 + 12 + 8 + 1] = 0xFF                                                        // a maker note past the end
        #expect(EXIFBlock(tiff: note)?.removingPreviews() == nil)
        var onlyOffset = tiff
        onlyOffset[layout.ifd1 + 2 + 24] = 0x99                                                 // an offset with no length
        #expect(EXIFBlock(tiff: onlyOffset)?.removingPreviews() == nil)
        var overIFD0 = tiff
        overIFD0[layout.ifd1 + 2 + 12 + 8] = 8; overIFD0[layout.ifd1 + 2 + 12 + 9] = 0         // a thumbnail over IFD0
        overIFD0[layout.ifd1 + 2 + 12 + 10] = 0; overIFD0[layout.ifd1 + 2 + 12 + 11] = 0
        #expect(EXIFBlock(tiff: overIFD0)?.removingPreviews() == nil)
    }

    /// Written with its metadata, a photo keeps Make and the date, never the thumbnail.
    @Test func aPhotoKeptWithItsMetadataLeavesItsPreviewsBehind() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let thumbnail = try Self.thumbnail()
        let (tiff, _) = EXIFSamples.withPreviews(little: false, thumbnail: thumbnail)
        let photo = Photo(image: try PhotoSupport.fixture("astronaut_tiny48.png"), format: .jpeg, exif: EXIFBlock(tiff: tiff))
        for (name, location) in [("kept.jpg", false), ("located.png", true)] {
            try ImageFile.write(photo, to: folder + "/" + name, format: name.hasSuffix(".png") ? .png : .jpeg,
                                metadata: .keep(location: location))
            let bytes = try ImageFile.contents(of: folder + "/" + name)
            let exif = try #require(EXIFBlock(file: bytes))
            #expect(PhotoSupport.ifd0Tags(exif.tiff) == [0x010F, 0x8769])
            #expect(!bytes.contains(thumbnail[40..<72]), "\(name): the thumbnail's bytes are gone")
        }
    }
}

@Suite struct AtomicFileTests {
    @Test func writesAndReplacesWhole() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/out.bin"
        try AtomicFile.write([1, 2, 3], to: path)
        try AtomicFile.write([4, 5], to: path)
        #expect(try ImageFile.contents(of: path) == [4, 5])
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["out.bin"])
    }

    @Test func failuresNameThePathAndLeaveNothing() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let missing = folder + "/no/such/out.png"
        #expect(throws: ImageError.io(path: missing, reason: "no such folder: \(folder)/no/such")) {
            try AtomicFile.write([1], to: missing)
        }
        try FileManager.default.createDirectory(atPath: folder + "/taken.png", withIntermediateDirectories: false)
        #expect(throws: ImageError.io(path: folder + "/taken.png", reason: "is a folder")) {
            try ImageFile.write(try RGBImage(width: 2, height: 2), to: folder + "/taken.png", format: .png)
        }
        if getuid() != 0 {   // root writes anywhere
            let locked = folder + "/locked"
            try FileManager.default.createDirectory(atPath: locked, withIntermediateDirectories: false,
                                                    attributes: [.posixPermissions: 0o555])
            #expect(throws: ImageError.io(path: locked + "/x.jpg", reason: "cannot write: Permission denied")) {
                try AtomicFile.write([1], to: locked + "/x.jpg")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: locked).isEmpty)
        }
        // A failed encode leaves the existing destination as it was.
        let existing = folder + "/existing.jpg"
        try AtomicFile.write([9, 9, 9], to: existing)
        let broken = RGBImage(unchecked: 4, 4, [0, 0, 0])
        #expect(throws: ImageError.self) { try ImageFile.write(broken, to: existing, format: .jpeg) }
        #expect(try ImageFile.contents(of: existing) == [9, 9, 9])
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder)).isSubset(of: ["taken.png", "existing.jpg", "locked"]))
    }
}

@Suite struct PhotoTests {
    @Test func pngCarriesTheICCProfile() throws {
        let image = try PhotoSupport.fixture("astronaut_tiny48.png")
        let profile = PhotoSupport.iccProfile(size: 3000)
        let png = try PNG.encode(image, exif: nil, iccProfile: profile)
        #expect(try PNG.iccProfile(png) == profile)
        #expect(try PNG.decode(png) == image)
        #expect(try PNG.iccProfile(try PNG.encode(image)) == nil)
        #expect(try PNG.encode(image, exif: nil, iccProfile: nil) == (try PNG.encode(image)))   // same bytes without metadata
        #expect(throws: ImageError.self) { try PNG.encode(image, exif: nil, iccProfile: [1, 2, 3, 4]) }   // not a profile
        let exif = try #require(EXIFBlock(tiff: PhotoSupport.exifWithGPS(little: true)))
        let both = try PNG.encode(image, exif: exif, iccProfile: profile)
        #expect(EXIFBlock(file: both) == exif)
        #expect(try PNG.iccProfile(both) == profile)
    }

    /// A profile libpng refuses for the picture (a gray one, as a scanned TIFF or a gray JPEG
    /// carries, on RGB pixels) costs the profile, not the photo: said, and the PNG written.
    @Test func aProfileLibpngRefusesCostsTheProfileNotThePhoto() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let image = try PhotoSupport.fixture("astronaut_tiny48.png")
        var wrongLength = PhotoSupport.iccProfile(size: 400)
        wrongLength[3] = 0x80   // its header says 384 bytes
        #expect { try PNG.encode(image, exif: nil, iccProfile: wrongLength) } throws: {
            guard case .cannotEncode(.png, let reason) = $0 as? ImageError else { return false }
            return reason.contains("colour profile")
        }
        let notes = try ImageFile.write(Photo(image: image, format: .jpeg, iccProfile: wrongLength), to: folder + "/out.png", format: .png)
        #expect(notes.count == 1 && notes[0].contains("written without its colour profile"), "\(notes)")
        #expect(try PNG.read(contentsOf: folder + "/out.png") == image)
        // The same profile in a JPEG is carried as it is (APP2 takes any profile).
        #expect(try ImageFile.write(Photo(image: image, format: .jpeg, iccProfile: wrongLength), to: folder + "/out.jpg", format: .jpeg).isEmpty)
        #expect(JPEG.iccProfile(try ImageFile.contents(of: folder + "/out.jpg")) == wrongLength)
    }

    /// A profile for other channels than those written would make viewers misread the colours:
    /// a CMYK JPEG's profile does not follow its pixels, now RGB, nor a gray profile an RGB
    /// picture; a gray picture written gray keeps its gray profile.
    @Test func aProfileOfOtherChannelsIsNotCarried() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let cmyk = try ImageFile.readPhoto(contentsOf: JPEGFixtures.path("astronaut_cmyk.jpg"))
        let profile = try #require(cmyk.iccProfile)
        #expect(Array(profile[16..<20]) == Array("CMYK".utf8))
        for format in [ImageFormat.jpeg, .png] {
            let path = folder + "/cmyk." + (format == .jpeg ? "jpg" : "png")
            let notes = try ImageFile.write(cmyk, to: path, format: format)
            #expect(notes == ["written without its CMYK colour profile: the pixels are RGB now"])
            let written = try ImageFile.readPhoto(contentsOf: path)
            #expect(written.iccProfile == nil && written.image.width == 512)
        }
        let image = try PhotoSupport.fixture("astronaut_tiny48.png")
        var gray = PhotoSupport.iccProfile(size: 400)
        gray.replaceSubrange(16..<20, with: Array("GRAY".utf8))
        #expect(try ImageFile.write(Photo(image: image, format: .png, iccProfile: gray), to: folder + "/rgb.jpg", format: .jpeg)
                == ["written without its GRAY colour profile: the pixels are RGB now"])
        #expect(JPEG.iccProfile(try ImageFile.contents(of: folder + "/rgb.jpg")) == nil)
        let grayImage = RGBImage(unchecked: 2, 1, [9, 9, 9, 200, 200, 200])
        #expect(try ImageFile.write(Photo(image: grayImage, format: .jpeg, iccProfile: gray, isGrayscale: true), to: folder + "/gray.jpg",
                                    format: .jpeg).isEmpty)
        #expect(JPEG.iccProfile(try ImageFile.contents(of: folder + "/gray.jpg")) == gray)
    }

    @Test func readsAPhotoUprightWithItsMetadata() throws {
        let path = JPEGFixtures.path("astronaut_exif6.jpg")
        let photo = try ImageFile.readPhoto(contentsOf: path)
        #expect(photo.format == .jpeg)
        #expect(photo.image == (try ImageFile.read(contentsOf: path, applyingOrientation: true)))
        let exif = try #require(photo.exif)
        #expect(exif == exif.upright())
        #expect(photo.jpegQuality != nil)
        let png = try ImageFile.readPhoto(contentsOf: JPEGFixtures.root.appendingPathComponent("images/astronaut_tiny48.png").path)
        #expect(png.format == .png && png.jpegQuality == nil && png.exif == nil)
    }

    @Test func writesEachFormatAndReadsItBack() throws {
        let folder = try makeTemporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let image = try PhotoSupport.fixture("astronaut_tiny48.png")
        let exif = try #require(EXIFBlock(tiff: PhotoSupport.exifWithGPS(little: true))?.upright().removingLocation())
        let profile = PhotoSupport.iccProfile(size: 800)
        for name in ["a.jpg", "b.JPEG", "c.png", "d.ppm", "e.pgm"] {
            let path = folder + "/" + name
            let format = try #require(ImageFormat.forOutput(path: path))
            try ImageFile.write(image, to: path, format: format, exif: exif, iccProfile: profile, jpegQuality: 77)
            let photo = try ImageFile.readPhoto(contentsOf: path)
            #expect(photo.format == format)
            if format != .pnm { #expect(photo.exif == exif && photo.iccProfile == profile) }
            if format == .jpeg { #expect(photo.jpegQuality == 77) }
            if format == .png { #expect(photo.image == image) }
        }
        #expect(try PNM.decode(try ImageFile.contents(of: folder + "/e.pgm")).width == image.width)
        #expect(try ImageFile.contents(of: folder + "/e.pgm").starts(with: Array("P5".utf8)))
    }

    @Test func outputFormatFromTheExtension() {
        #expect(ImageFormat.forOutput(path: "a/b.jpg") == .jpeg)
        #expect(ImageFormat.forOutput(path: "B.JPEG") == .jpeg)
        #expect(ImageFormat.forOutput(path: "x.Png") == .png)
        #expect(ImageFormat.forOutput(path: "x.ppm") == .pnm)
        #expect(ImageFormat.forOutput(path: "x.pgm") == .pnm)
        for path in ["x.heic", "x.gif", "x", ".png", "dir.png/x", "x.png.bak"] {
            #expect(ImageFormat.forOutput(path: path) == nil, "\(path)")
        }
    }

    @Test func sniffsHEIFAndPointsAtItsModule() {
        func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
            let body = Array(major.utf8) + [0, 0, 0, 0] + compatible.flatMap { Array($0.utf8) }
            return [0, 0, 0, UInt8(8 + body.count)] + Array("ftyp".utf8) + body + [0, 0, 0, 8] + Array("meta".utf8)
        }
        #expect(ImageFormat(sniffing: ftyp("heic", ["mif1", "heic"])) == .heif)
        #expect(ImageFormat(sniffing: ftyp("mif1", ["heic"])) == .heif)
        #expect(ImageFormat(sniffing: ftyp("isom", ["mif1"])) == .heif)
        #expect(ImageFormat(sniffing: ftyp("avif", ["mif1", "miaf"])) == .heif, "an AVIF photo: libheif reads it")
        #expect(ImageFormat(sniffing: ftyp("avis", ["avif", "msf1", "miaf"])) == nil, "an AVIF sequence: a video, for FFmpeg")
        #expect(ImageFormat(sniffing: ftyp("isom", ["iso2", "mp41"])) == nil)
        let heic = ftyp("heic", ["mif1"])
        #expect(throws: ImageFile.heifNeedsItsModule) { try ImageFile.read(data: heic) }
        #expect(throws: ImageFile.heifNeedsItsModule) { try ImageFile.readPhoto(data: heic) }
        #expect(ImageFile.heifNeedsItsModule.description.contains("BlazeImageHEIF"))
    }

    /// Re-encoding a JPEG at its estimated quality keeps the file near its size (the redactor's
    /// rule: output at most 1.5x the input). Prints the ratios.
    @Test func reencodingAtTheEstimatedQualityKeepsTheSize() throws {
        let image = try PhotoSupport.fixture("two_faces_1280x853.png")
        var inputs: [(String, [UInt8])] = []
        for quality in [60, 75, 85, 95] { inputs.append(("libjpeg q\(quality)", try JPEG.encode(image, quality: quality))) }
        for name in ["two_faces_1280x853.jpg", "astronaut_baseline.jpg", "astronaut_progressive.jpg"] {
            inputs.append((name, try JPEGFixtures.bytes(name)))
        }
        for (name, input) in inputs {
            let photo = try ImageFile.readPhoto(data: input)
            let quality = photo.jpegQuality ?? ImageFile.defaultJPEGQuality
            let output = try JPEG.encode(photo.image, quality: quality)
            let ratio = Double(output.count) / Double(input.count)
            print("re-encode \(name): estimated q\(quality), \(input.count) -> \(output.count) bytes, ratio \(ratio)")
            #expect(ratio <= 1.5, "\(name)")
        }
    }
}
