// LiveCamera PHOTO [SECONDS]: a live-stream detector fed by a simulated camera at 30 fps (the
// photo, panning), results consumed through the AsyncStream; at the end, how many frames were
// delivered and how many the detector dropped because one was still in flight.
import BlazeFace
import BlazeImageIO
import Foundation

let arguments = CommandLine.arguments
/// Bad or missing arguments: the usage line, exit 64 (sysexits' EX_USAGE).
func usage(_ problem: String? = nil) -> Never {
    FileHandle.standardError.write(Data(((problem.map { "LiveCamera: \($0)\n" } ?? "") + "usage: LiveCamera PHOTO [SECONDS]\n").utf8))
    exit(64)
}
guard (2...3).contains(arguments.count) else { usage() }
let photo: RGBImage
do { photo = try ImageFile.read(contentsOf: arguments[1]) } catch { usage("\(error)") }
let seconds = arguments.count > 2 ? Double(arguments[2]) ?? -1 : 2
guard seconds > 0, seconds <= 3600 else { usage("SECONDS must be a number in (0, 3600], not \(arguments[2])") }
let detector: FaceDetector
do { detector = try FaceDetector(options: FaceDetectorOptions(model: .fullRange, runningMode: .liveStream)) } catch {
    FileHandle.standardError.write(Data("LiveCamera: \(error)\n".utf8))
    exit(1)
}

// The consumer: every result, in timestamp order, until the stream closes.
let consumer = Task {
    var faces = 0, results = 0
    for await output in detector.liveStreamResults {
        if case .success(let result) = output.result { faces += result.detections.count }
        results += 1
    }
    return (results, faces)
}

do {
    // The camera: a frame every 1/30 s, handed over without waiting for the detector.
    let frames = Int(seconds * 30)
    let start = Date()
    for index in 0..<frames {
        let due = start.addingTimeInterval(Double(index) / 30)
        let wait = due.timeIntervalSinceNow
        if wait > 0 { try await Task.sleep(for: .seconds(wait)) }
        try detector.detectAsync(image: photo, timestampInMilliseconds: index * 1000 / 30)
    }
    try await Task.sleep(for: .milliseconds(200))   // let the last frame finish
    detector.close()
    let (results, faces) = await consumer.value
    print("LiveCamera: \(frames) frames sent at 30 fps, \(results) results (\(faces) faces), \(detector.droppedFrameCount) dropped")
} catch {
    FileHandle.standardError.write(Data("LiveCamera: \(error)\n".utf8))
    exit(1)
}
