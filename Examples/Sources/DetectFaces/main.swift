// DetectFaces FOLDER: one JSON line per photo in FOLDER (PNG, JPEG, PPM, PGM), in name order.
import BlazeFace
import BlazeImageIO
import Foundation

/// Bad or missing arguments: the usage line, exit 64 (sysexits' EX_USAGE).
func usage(_ problem: String? = nil) -> Never {
    FileHandle.standardError.write(Data(((problem.map { "DetectFaces: \($0)\n" } ?? "") + "usage: DetectFaces FOLDER\n").utf8))
    exit(64)
}
var isFolder: ObjCBool = false
guard CommandLine.arguments.count == 2 else { usage() }
guard FileManager.default.fileExists(atPath: CommandLine.arguments[1], isDirectory: &isFolder), isFolder.boolValue else {
    usage("\(CommandLine.arguments[1]): no such folder")
}
let folder = URL(fileURLWithPath: CommandLine.arguments[1])
do {
    let detector = try FaceDetector()
    for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
        let path = folder.appendingPathComponent(name).path
        guard let image = try? ImageFile.read(contentsOf: path, applyingOrientation: true) else { continue }   // not an image
        let result = try detector.detect(image: image)
        print(DetectionJSON.line(image: path, width: image.width, height: image.height, result: result))
    }
} catch {
    FileHandle.standardError.write(Data("DetectFaces: \(error)\n".utf8))
    exit(1)
}
