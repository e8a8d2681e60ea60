import Testing

@testable import BlazeImage

@Suite struct RGBImageTests {
    @Test("sizes are validated")
    func validatesSizes() {
        #expect(throws: ImageError.invalidSize(width: 0, height: 3)) { try RGBImage(width: 0, height: 3) }
        #expect(throws: ImageError.invalidSize(width: 3, height: -1)) { try RGBImage(width: 3, height: -1, pixels: []) }
        #expect(throws: ImageError.invalidSize(width: Int.max, height: 2)) { try RGBImage(width: .max, height: 2) }
        #expect(throws: ImageError.pixelCountMismatch(expected: 6, actual: 5)) {
            try RGBImage(width: 2, height: 1, pixels: [1, 2, 3, 4, 5])
        }
    }

    @Test("fill and subscript address R,G,B of row-major pixels")
    func fillsAndSubscripts() throws {
        var image = try RGBImage(width: 3, height: 2, fill: (10, 20, 30))
        #expect(image.pixels == [UInt8](repeating: 0, count: 6).indices.flatMap { _ in [10, 20, 30] as [UInt8] })
        image[2, 1] = (1, 2, 3)
        #expect(image[2, 1] == (1, 2, 3))
        #expect(Array(image.pixels[15..<18]) == [1, 2, 3])
        #expect(try RGBImage(width: 1, height: 1).pixels == [0, 0, 0])
    }
}
