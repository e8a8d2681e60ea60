// PanningVideo PHOTO OUT.y4m: eight frames of a photo panning right, 8 pixels a frame.
import BlazeImageIO
import Foundation

/// Bad or missing arguments: the usage line, exit 64 (sysexits' EX_USAGE).
func usage(_ problem: String? = nil) -> Never {
    FileHandle.standardError.write(Data(((problem.map { "PanningVideo: \($0)\n" } ?? "") + "usage: PanningVideo PHOTO OUT.y4m\n").utf8))
    exit(64)
}
guard CommandLine.arguments.count == 3 else { usage() }
let photo: RGBImage
do { photo = try ImageFile.read(contentsOf: CommandLine.arguments[1]) } catch { usage("\(error)") }
guard photo.width >= 66 + 64, photo.height >= 2 else { usage("\(CommandLine.arguments[1]): the photo must be at least 130 pixels wide") }
let (width, height) = (photo.width / 2 * 2 - 64, photo.height / 2 * 2)
do {
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
} catch {
    FileHandle.standardError.write(Data("PanningVideo: \(error)\n".utf8))
    exit(1)
}
