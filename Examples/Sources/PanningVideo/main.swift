// PanningVideo PHOTO OUT.y4m: eight frames of a photo panning right, 8 pixels a frame.
import BlazeImageIO

let photo = try ImageFile.read(contentsOf: CommandLine.arguments[1])
let (width, height) = (photo.width / 2 * 2 - 64, photo.height / 2 * 2)
let writer = try Y4MWriter(path: CommandLine.arguments[2], width: width, height: height)
for frame in 0..<8 {
    var pixels = [UInt8](repeating: 0, count: width * height * 3)
    for y in 0..<height {
        let from = (y * photo.width + frame * 8) * 3
        pixels.replaceSubrange(y * width * 3..<(y + 1) * width * 3, with: photo.pixels[from..<from + width * 3])
    }
    try writer.write(try RGBImage(width: width, height: height, pixels: pixels))
}
try writer.flush()
