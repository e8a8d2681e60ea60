// DetectFaces FOLDER: one JSON line per photo in FOLDER (PNG, JPEG, PPM, PGM), in name order.
import BlazeFace
import BlazeImageIO
import Foundation

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: DetectFaces FOLDER\n".utf8))
    exit(2)
}
let folder = URL(fileURLWithPath: CommandLine.arguments[1])
let detector = try FaceDetector()
for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
    let path = folder.appendingPathComponent(name).path
    guard let image = try? ImageFile.read(contentsOf: path, applyingOrientation: true) else { continue }   // not an image
    let result = try detector.detect(image: image)
    print(DetectionJSON.line(image: path, width: image.width, height: image.height, result: result))
}
