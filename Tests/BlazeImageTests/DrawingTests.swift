import Testing

@testable import BlazeImage

@Suite struct DrawingTests {
    static let red: (r: UInt8, g: UInt8, b: UInt8) = (255, 0, 0)

    /// The set pixels of an image drawn on black, as "x,y" strings.
    static func lit(_ image: RGBImage) -> Set<String> {
        var result = Set<String>()
        for y in 0..<image.height {
            for x in 0..<image.width where image[x, y] != (0, 0, 0) { result.insert("\(x),\(y)") }
        }
        return result
    }

    @Test("rectangle border is drawn inside the rectangle")
    func strokesRectangle() throws {
        var image = try RGBImage(width: 8, height: 8)
        image.strokeRectangle(x: 1, y: 2, width: 4, height: 3, color: Self.red, thickness: 1)
        let expected: Set<String> = ["1,2", "2,2", "3,2", "4,2", "1,3", "4,3", "1,4", "2,4", "3,4", "4,4"]
        #expect(Self.lit(image) == expected)
        image.strokeRectangle(x: -10, y: -10, width: 100, height: 100, color: (0, 0, 255), thickness: 11)
        // Only the first row and column are inside that thick border.
        #expect(image[0, 0] == (0, 0, 255) && image[0, 7] == (0, 0, 255) && image[7, 0] == (0, 0, 255))
        #expect(image[1, 1] == (0, 0, 0) && image[1, 3] == Self.red)
    }

    @Test("circle covers pixel centres within the radius")
    func fillsCircle() throws {
        var image = try RGBImage(width: 9, height: 9)
        image.fillCircle(centerX: 4.5, centerY: 4.5, radius: 1.0, color: Self.red)
        #expect(Self.lit(image) == ["4,3", "3,4", "4,4", "5,4", "4,5"])
        var tiny = try RGBImage(width: 4, height: 4)
        tiny.fillCircle(centerX: 2.9, centerY: 1.1, radius: 0, color: Self.red)
        #expect(Self.lit(tiny) == ["2,1"])
    }

    @Test("lines cover the pixels along them")
    func drawsLines() throws {
        var image = try RGBImage(width: 6, height: 6)
        image.drawLine(x0: 0.5, y0: 2.5, x1: 4.5, y1: 2.5, color: Self.red, thickness: 1)
        #expect(Self.lit(image) == ["0,2", "1,2", "2,2", "3,2", "4,2"])
        var diagonal = try RGBImage(width: 4, height: 4)
        diagonal.drawLine(x0: -100.5, y0: -100.5, x1: 100.5, y1: 100.5, color: Self.red, thickness: 1)
        #expect(Self.lit(diagonal) == ["0,0", "1,1", "2,2", "3,3"])
    }

    @Test("text draws glyphs over a background box")
    func drawsText() throws {
        var image = try RGBImage(width: 20, height: 12)
        image.drawText("1", x: 2, y: 1, color: Self.red, background: (0, 0, 255), scale: 1)
        // The box is 1 + 6 wide and 1 + 8 tall; the "1" glyph's top row is ..#.. at (5, 2).
        #expect(image[2, 1] == (0, 0, 255) && image[8, 9] == (0, 0, 255))
        #expect(image[9, 1] == (0, 0, 0) && image[2, 10] == (0, 0, 0))
        #expect(image[5, 2] == Self.red && image[4, 2] == (0, 0, 255))
        var noBackground = try RGBImage(width: 64, height: 20)
        noBackground.drawText("Az:#\u{1F600}", x: 0, y: 0, color: Self.red, background: nil, scale: 2)
        #expect(noBackground[2, 2] == (0, 0, 0) && noBackground[4, 2] == Self.red)  // "A" starts .###.
        #expect(noBackground[(1 + 4 * 6) * 2, 2] == Self.red)  // the unknown emoji is a box
    }

    @Test("out-of-range, NaN and huge input never traps")
    func neverTraps() throws {
        var image = try RGBImage(width: 7, height: 5, fill: (1, 2, 3))
        let ints = [Int.min, Int.min + 1, -1_000_000, -1, 0, 3, 1_000_000, Int.max - 1, Int.max]
        let doubles = [Double.nan, .infinity, -.infinity, -.greatestFiniteMagnitude, .greatestFiniteMagnitude,
                       -1e18, -2.5, 0, 3.3, 1e18]
        for x in ints {
            for y in ints {
                for size in ints {
                    image.strokeRectangle(x: x, y: y, width: size, height: size, color: Self.red, thickness: size)
                    image.strokeRectangle(x: x, y: y, width: 3, height: size, color: Self.red, thickness: 2)
                    image.drawText("Hi 1.5\n-:#?", x: x, y: y, color: Self.red, background: (0, 0, 1), scale: size)
                }
            }
        }
        for a in doubles {
            for b in doubles {
                for c in doubles {
                    image.fillCircle(centerX: a, centerY: b, radius: c, color: Self.red)
                    image.drawLine(x0: a, y0: b, x1: c, y1: 2, color: Self.red, thickness: 1)
                    image.drawLine(x0: 1, y0: a, x1: b, y1: c, color: Self.red, thickness: Int.max)
                }
            }
        }
        image.pixels = []  // inconsistent with the size: drawing does nothing
        image.fillCircle(centerX: 1, centerY: 1, radius: 3, color: Self.red)
        image.drawText("x", x: 0, y: 0, color: Self.red, background: Self.red, scale: 1)
        #expect(image.pixels.isEmpty)
    }
}
