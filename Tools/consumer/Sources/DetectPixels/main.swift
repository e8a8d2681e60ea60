// detect-pixels BGRA_FILE WIDTH HEIGHT: detections in a camera-style BGRA frame, one JSON line.
// Uses `import BlazeFace` alone: pixels in, no image codec.
import BlazeFace
import Foundation

let arguments = CommandLine.arguments
let bytes = try Data(contentsOf: URL(fileURLWithPath: arguments[1]))
guard let width = Int(arguments[2]), let height = Int(arguments[3]) else { fatalError("usage: detect-pixels FILE WIDTH HEIGHT") }
let detector = try FaceDetector()
let result = try bytes.withUnsafeBytes { raw in
    try detector.detect(image: PixelBuffer(format: .bgra, width: width, height: height, bytes: raw))
}
print(DetectionJSON.line(image: arguments[1], width: width, height: height, result: result))
