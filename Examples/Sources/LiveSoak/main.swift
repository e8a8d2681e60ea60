// LiveSoak PHOTO [FRAMES] [detector|analysis]: a soak of a live path. FRAMES frames (default
// 100,000) are sent to a live-stream FaceDetector (or a live-stream FaceAnalysisPipeline) at 10,000 a second,
// far faster than they can be processed, so most are dropped; every tenth of the run
// prints the frames sent, delivered and dropped, the resident memory and the thread count
// (/proc/self/status). Both should stay flat after warm-up; only the handler is used (the
// results' AsyncStream is left unread, as an app using the handler leaves it). Tools/soak.sh
// runs both paths.
import BlazeFace
import BlazeImageIO
import MeshAnalysis
import FaceTracking
import Foundation
import Synchronization

/// Bad or missing arguments: the usage line, exit 64 (sysexits' EX_USAGE).
func usage(_ problem: String? = nil) -> Never {
    FileHandle.standardError.write(Data(((problem.map { "LiveSoak: \($0)\n" } ?? "")
        + "usage: LiveSoak PHOTO [FRAMES] [detector|analysis]\n").utf8))
    exit(64)
}
let arguments = CommandLine.arguments
guard (2...4).contains(arguments.count) else { usage() }
let photo: RGBImage
do { photo = try ImageFile.read(contentsOf: arguments[1]) } catch { usage("\(error)") }
let frames = arguments.count > 2 ? Int(arguments[2]) ?? -1 : 100_000
guard (1...10_000_000).contains(frames) else { usage("FRAMES must be in 1...10000000, not \(arguments[2])") }
let path = arguments.count > 3 ? arguments[3] : "detector"
guard ["detector", "analysis"].contains(path) else { usage("the path must be detector or analysis, not \(path)") }

/// VmRSS in MiB and the thread count of this process (Linux; 0 elsewhere).
func residentAndThreads() -> (mib: Double, threads: Int) {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
    func field(_ name: String) -> Double {
        let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
        return Double(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") ?? 0
    }
    return (field("VmRSS") / 1024, Int(field("Threads")))
}

let delivered = Atomic<Int>(0)
let send: (Int) throws -> Void
let counts: () -> (delivered: Int, dropped: Int)
let close: () -> Void
do {
    switch path {
    case "detector":
        let detector = try FaceDetector(options: FaceDetectorOptions(runningMode: .liveStream, liveStreamHandler: { _ in
            delivered.add(1, ordering: .relaxed)
        }))
        send = { try detector.detectAsync(image: photo, timestampInMilliseconds: $0) }
        // The results also go to an AsyncStream, left unread here: it keeps only the newest few.
        counts = { (delivered.load(ordering: .relaxed), detector.droppedFrameCount) }
        close = { detector.close() }
    default:
        let live = try FaceAnalysisPipeline(options: .init(analyzerOptions: FaceAnalyzerOptions(landmarkMode: .all, classificationMode: .all),
                                                           runningMode: .liveStream, tracking: FaceTrackingOptions(),
                                                           liveStreamHandler: { _ in delivered.add(1, ordering: .relaxed) }))
        send = { try live.analyzeAsync(image: photo, timestampInMilliseconds: $0) }
        counts = { (delivered.load(ordering: .relaxed), live.droppedFrameCount) }
        close = { live.close() }
    }
} catch {
    FileHandle.standardError.write(Data("LiveSoak: \(error)\n".utf8))
    exit(1)
}

let clock = ContinuousClock()
let start = clock.now
print("LiveSoak \(path): \(frames) frames of \(photo.width)x\(photo.height), \(ThreadPool.shared.threads)-thread shared pool")
print("    sent  delivered    dropped   seconds  RSS MiB  threads")
func report(_ sent: Int) {
    let (mib, threads) = residentAndThreads()
    let (done, dropped) = counts()
    let elapsed = clock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    print(String(format: "%8d %10d %10d %9.1f %8.1f %8d", sent, done, dropped, seconds, mib, threads))
}
do {
    for index in 0..<frames {
        try send(index)
        usleep(100)   // 10,000 frames a second offered: far more than either path takes
        if (index + 1) % max(frames / 10, 1) == 0 { report(index + 1) }
    }
} catch {
    FileHandle.standardError.write(Data("LiveSoak: \(error)\n".utf8))
    exit(1)
}
Thread.sleep(forTimeInterval: 0.5)
close()
report(frames)
