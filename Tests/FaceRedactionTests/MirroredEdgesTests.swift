import BlazeFace
import BlazeImageIO
@testable import FaceRedaction
import Testing

/// A still's edges searched mirrored (`FaceRedactorOptions.searchesMirroredEdges`): a face cut
/// by the picture's edge, too little of it showing for the detectors, meets its reflection and
/// is found; its mask reaches over the edge.
@Suite struct MirroredEdgesTests {
    /// The padding mirrors the picture about each edge (the edge's own pixel first), and a box
    /// found in the padded picture maps back to the same pixels of the unpadded one.
    @Test func thePaddingIsAMirrorAndBoxesMapBack() throws {
        // A 5x3 picture whose pixel (x, y) holds x in red and y in green.
        var pixels = [UInt8](repeating: 0, count: 5 * 3 * 3)
        for y in 0..<3 { for x in 0..<5 { (pixels[(y * 5 + x) * 3], pixels[(y * 5 + x) * 3 + 1]) = (UInt8(x), UInt8(y)) } }
        let padded = try RGBImage(width: 5, height: 3, pixels: pixels).mirrorPadded(by: 2)
        #expect((padded.width, padded.height) == (9, 7))
        func at(_ x: Int, _ y: Int) -> (UInt8, UInt8) { (padded.pixels[(y * 9 + x) * 3], padded.pixels[(y * 9 + x) * 3 + 1]) }
        // Columns -2, -1, 0...4, 5, 6 come from 1, 0, 0...4, 4, 3; rows likewise.
        #expect((0..<9).map { at($0, 2).0 } == [1, 0, 0, 1, 2, 3, 4, 4, 3])
        #expect((0..<7).map { at(4, $0).1 } == [1, 0, 0, 1, 2, 2, 1])
        // A margin larger than the picture is cut to its shorter side.
        #expect(try RGBImage(width: 5, height: 3, pixels: pixels).mirrorPadded(by: 10).width == 5 + 2 * 3)
        // The padded picture's pixel box (1, 1)-(4, 5) is the picture's (-1, -1)-(2, 3).
        let found = RawDetection(score: 1, box: NormalizedRect(xMin: 1 / 9, yMin: 1 / 7, width: 3 / 9, height: 4 / 7),
                                 keypoints: KeypointList([(2 / 9, 3 / 7)]))
        let back = found.unpadded(fromPart: .init(x: 0, y: 0, width: 9, height: 7), margin: 2, width: 5, height: 3)
        let tolerance: Float = 1e-6
        #expect(abs(back.box.xMin + 1 / 5) < tolerance && abs(back.box.yMin + 1 / 3) < tolerance)
        #expect(abs(back.box.width - 3 / 5) < tolerance && abs(back.box.height - 4 / 3) < tolerance)
        #expect(abs(back.keypoints[0].x - 0) < tolerance && abs(back.keypoints[0].y - 1 / 3) < tolerance)
    }

    /// A part of the padded picture, made from the picture alone (a video frame's strip), holds
    /// the same pixels as that part of the whole padded picture, and its detections map back
    /// to the picture as the whole padded picture's do.
    @Test func aPartOfThePaddingIsThatPartOfTheWhole() throws {
        var pixels = [UInt8](repeating: 0, count: 7 * 5 * 3)
        for i in pixels.indices { pixels[i] = UInt8((i * 37) % 251) }
        let picture = try RGBImage(width: 7, height: 5, pixels: pixels)
        let whole = picture.mirrorPadded(by: 2)
        for part in [RGBImage.PixelRect(x: 0, y: 0, width: 4, height: 9), RGBImage.PixelRect(x: 3, y: 5, width: 8, height: 4),
                     RGBImage.PixelRect(x: 0, y: 0, width: 11, height: 9)] {
            let cut = RGBImage.mirrorPadded(picture, margin: 2, part: part)
            #expect((cut.width, cut.height) == (part.width, part.height))
            for y in 0..<part.height {
                let from = ((part.y + y) * whole.width + part.x) * 3
                #expect(Array(cut.pixels[(y * part.width * 3)..<((y + 1) * part.width * 3)]) == Array(whole.pixels[from..<(from + part.width * 3)]))
            }
        }
        // A box at pixels (1, 2)-(3, 4) of the part at (3, 5) is at (4, 7)-(6, 9) of the padded
        // picture: (2, 5)-(4, 7) of the picture.
        let part = RGBImage.PixelRect(x: 3, y: 5, width: 8, height: 4)
        let found = RawDetection(score: 1, box: NormalizedRect(xMin: 1 / 8, yMin: 2 / 4, width: 2 / 8, height: 2 / 4), keypoints: KeypointList([]))
        let back = found.unpadded(fromPart: part, margin: 2, width: 7, height: 5).box
        let tolerance: Float = 1e-6
        #expect(abs(back.xMin - 2 / 7) < tolerance && abs(back.yMin - 5 / 5) < tolerance)
        #expect(abs(back.width - 2 / 7) < tolerance && abs(back.height - 2 / 5) < tolerance)
        // The pixels a normalized region covers, cut to the picture; and a box within a part.
        #expect(RGBImage.PixelRect(covering: NormalizedRect(xMin: -0.1, yMin: 0.25, width: 0.5, height: 0.6), width: 10, height: 8)
                == RGBImage.PixelRect(x: 0, y: 2, width: 4, height: 5))
        let inPart = NormalizedRect(xMin: 0.5, yMin: 0.5, width: 0.25, height: 0.25).within(RGBImage.PixelRect(x: 2, y: 2, width: 4, height: 4), width: 8, height: 8)
        #expect(inPart == NormalizedRect(xMin: 0.5, yMin: 0.5, width: 0.5, height: 0.5))
    }

    /// A box counts as cut by the edge when it crosses it with a quarter of its area or more
    /// inside; a box wholly inside or (nearly) wholly outside does not.
    @Test func aBoxAcrossTheEdgeWithAQuarterInsideIsCut() {
        func cut(_ x: Float, _ y: Float, _ w: Float, _ h: Float) -> Bool {
            RawDetection(score: 1, box: NormalizedRect(xMin: x, yMin: y, width: w, height: h), keypoints: KeypointList([])).isCutByEdge
        }
        #expect(cut(-0.1, 0.4, 0.2, 0.2))    // half inside, across the left edge
        #expect(cut(0.9, 0.9, 0.2, 0.2))     // a quarter inside, across a corner
        #expect(cut(0.4, 0.85, 0.2, 0.2))    // three quarters inside, across the bottom
        #expect(!cut(0.4, 0.4, 0.2, 0.2))    // inside
        #expect(!cut(-0.18, 0.4, 0.2, 0.2))  // a tenth inside
        #expect(!cut(1.1, 0.4, 0.2, 0.2))    // outside
        #expect(!cut(0.5, 0.5, 0, 0))        // no area
    }

    /// Only the regions that reach the mirrored margin are searched again.
    @Test func onlyRegionsReachingTheMarginAreSearched() {
        func region(_ x: Float, _ y: Float, _ w: Float, _ h: Float) -> WideSearch.Region {
            WideSearch.Region(region: NormalizedRect(xMin: x, yMin: y, width: w, height: h), scale: 1)
        }
        // A 100x100 padded picture with a margin of 10.
        #expect(region(0, 0, 1, 1).reachesMargin(10, width: 100, height: 100))
        #expect(region(0.05, 0.3, 0.2, 0.2).reachesMargin(10, width: 100, height: 100))
        #expect(region(0.3, 0.8, 0.2, 0.15).reachesMargin(10, width: 100, height: 100))
        #expect(!region(0.2, 0.15, 0.6, 0.7).reachesMargin(10, width: 100, height: 100))
    }

    /// A video frame's mirrored edges are searched in four strips twice the margin wide, whole
    /// where they fit one input, else in pieces that overlap by the strip's width.
    @Test func aFramesEdgeStripsCoverEveryEdge() {
        let search = WideSearch()
        // 1280x720 padded by 108: 1496x936.
        let strips = search.edgeRegions(width: 1280, height: 720, margin: 108, scale: 1)
        #expect(strips.map { [$0.region.xMin * 1496, $0.region.yMin * 936, $0.region.width * 1496, $0.region.height * 936].map { $0.rounded() } }
                == [[0, 0, 216, 936], [1280, 0, 216, 936], [0, 0, 1496, 216], [0, 720, 1496, 216]])
        // 7680x4320 at scale 1: each strip is too large for one input, so it comes in pieces
        // that fit, overlap by 1296 pixels (twice the margin) and run from end to end.
        let (margin, pw, ph) = (648, Float(7680 + 1296), Float(4320 + 1296))
        let pieces = search.edgeRegions(width: 7680, height: 4320, margin: margin, scale: 1)
        #expect(pieces.count > 4)
        for p in pieces {
            let (w, h) = (p.region.width * pw, p.region.height * ph)
            #expect(w * h <= Float(search.maxInputPixels) * 1.001 && min(w, h).rounded() == 1296, "\(w) x \(h)")
        }
        let top = pieces.filter { $0.region.yMin == 0 && $0.region.height * ph < 1297 }.map { ($0.region.xMin * pw, ($0.region.xMin + $0.region.width) * pw) }
        #expect(top.first?.0 == 0 && abs((top.last?.1 ?? 0) - pw) < 1)
        #expect(zip(top, top.dropFirst()).allSatisfy { $0.1 - $1.0 >= 1295 })
    }

    /// In video, a face that stays cut by the edge (a third of it showing, a person standing at
    /// the edge of a fixed camera's view) is masked on every frame: its strip finds it, and
    /// between the strip's turns a mirrored close-up follows it. Without the mirrored search it
    /// is masked on some frames only.
    @Test func aFaceCutByTheEdgeOfAVideoIsMaskedOnEveryFrame() throws {
        let picture = try PNG.read(contentsOf: FaceRedactionTests.images.appendingPathComponent("astronaut.png").path)
        let (faceX, faceWidth) = (177, 95)
        let x0 = faceX + faceWidth * 65 / 100
        var pixels: [UInt8] = []
        for y in 0..<picture.height { pixels += picture.pixels[(y * picture.width + x0) * 3 ..< (y * picture.width + picture.width) * 3] }
        let cut = try RGBImage(width: picture.width - x0, height: picture.height, pixels: pixels)
        let shows = NormalizedRect(xMin: 0, yMin: 82 / 512, width: Float(faceWidth * 35 / 100) / Float(cut.width), height: 95 / 512)
        func framesMasked(mirrored: Bool) throws -> Int {
            let redactor = try FaceRedactor(options: FaceRedactorOptions(searchesMirroredEdges: mirrored))
            return try (0..<20).filter { i in
                try redactor.masks(inVideoFrame: cut, timestampInMilliseconds: 40 * i).contains { $0.box.intersectionArea(shows) > 0.8 * shows.width * shows.height }
            }.count
        }
        #expect(try framesMasked(mirrored: true) == 20)
        // Unmirrored, only the frames where the round searches the frame at its own size find
        // it (5 of the 20), and nothing follows it between them.
        #expect(try framesMasked(mirrored: false) < 20)
    }

    /// The astronaut's face (95 pixels wide at x = 177 in `astronaut.png`) cut by the left or
    /// the right edge, 35% of its width showing: BlazeFace alone misses it; with the edges
    /// mirrored it is found, its mask lies across the edge and covers what shows of the face.
    @Test(arguments: [true, false])
    func aFaceCutByTheEdgeIsFoundMirrored(_ cutOnTheLeft: Bool) throws {
        let picture = try PNG.read(contentsOf: FaceRedactionTests.images.appendingPathComponent("astronaut.png").path)
        let (faceX, faceWidth) = (177, 95)
        let x0 = cutOnTheLeft ? faceX + faceWidth * 65 / 100 : 0
        let x1 = cutOnTheLeft ? picture.width : faceX + faceWidth * 35 / 100
        var pixels: [UInt8] = []
        for y in 0..<picture.height { pixels += picture.pixels[(y * picture.width + x0) * 3 ..< (y * picture.width + x1) * 3] }
        let cut = try RGBImage(width: x1 - x0, height: picture.height, pixels: pixels)
        func masks(mirrored: Bool) throws -> [DrawnMask] {
            var image = cut
            return try FaceRedactor(options: FaceRedactorOptions(wideSearch: nil, searchesMirroredEdges: mirrored, runningMode: .image))
                .redactReportingMasks(image: &image)
        }
        #expect(try masks(mirrored: false).isEmpty)
        let found = try masks(mirrored: true)
        let mask = try #require(found.count == 1 ? found.first?.box : nil, "\(found)")
        // The face's rows 82...177 and what shows of its columns, normalized to the cut picture.
        let shows = NormalizedRect(xMin: Float(max(faceX, x0) - x0) / Float(cut.width), yMin: 82 / 512,
                                   width: Float(faceWidth * 35 / 100) / Float(cut.width), height: 95 / 512)
        #expect(cutOnTheLeft ? mask.xMin < 0 : mask.xMin + mask.width > 1, "across the edge: \(mask)")
        #expect(mask.intersectionArea(shows) > 0.9 * shows.width * shows.height, "\(mask) over \(shows)")
    }
}
