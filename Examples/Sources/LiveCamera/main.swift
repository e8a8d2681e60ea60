// LiveCamera PHOTO [SECONDS]: a live-stream detector fed by a simulated camera at 30 fps (the
// photo, panning), results consumed through the AsyncStream; at the end, how many frames were
// delivered and how many the detector dropped because one was still in flight.
import BlazeFace
import BlazeImageIO
import Foundation

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: LiveCamera PHOTO [SECONDS]\n".utf8))
    exit(2)
}
let photo = try ImageFile.read(contentsOf: arguments[1])
let seconds = arguments.count > 2 ? Double(arguments[2]) ?? 2 : 2
let detector = try FaceDetector(options: FaceDetectorOptions(model: .fullRange, runningMode: .liveStream))

// The consumer: every result, in timestamp order, until the stream closes.
let consumer = Task {
    var faces = 0, results = 0
    for await output in detector.liveStreamResults {
        if case .success(let result) = output.result { faces += result.detections.count }
        results += 1
    }
    return (results, faces)
}

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
