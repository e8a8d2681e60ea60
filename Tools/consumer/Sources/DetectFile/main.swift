// detect-file IMAGE [--bench N] [--dump-bgra PATH]: detections as one JSON line; with --bench,
// also the median of N timed detect() calls; with --dump-bgra, the decoded pixels as BGRA.
import BlazeFace
import BlazeImageIO
import Foundation

let arguments = CommandLine.arguments
let image = try ImageFile.read(contentsOf: arguments[1])
let detector = try FaceDetector()
var result = try detector.detect(image: image)
print(DetectionJSON.line(image: arguments[1], width: image.width, height: image.height, result: result))

if let i = arguments.firstIndex(of: "--dump-bgra") {
    var bgra = [UInt8](repeating: 255, count: image.width * image.height * 4)
    for p in 0..<image.width * image.height {
        (bgra[4 * p], bgra[4 * p + 1], bgra[4 * p + 2]) = (image.pixels[3 * p + 2], image.pixels[3 * p + 1], image.pixels[3 * p])
    }
    try Data(bgra).write(to: URL(fileURLWithPath: arguments[i + 1]))
}
if let i = arguments.firstIndex(of: "--bench"), let n = Int(arguments[i + 1]) {
    var times: [Double] = []
    for _ in 0..<n {
        let start = DispatchTime.now().uptimeNanoseconds
        try detector.detect(image: image, into: &result)
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1000)
    }
    times.sort()
    print("detect median \(times[n / 2]) us, build \(BuildTarget.summary)")
}
