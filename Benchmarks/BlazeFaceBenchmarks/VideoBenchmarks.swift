import Benchmark
import BlazeVideoIO
import Foundation

/// The video reader and writer on a 720p clip: decoding it whole, and encoding its frames with
/// each x264 preset `redact --preset` takes (frames per second, and the file's size, as custom
/// metrics). The clip is made with the `ffmpeg` command at set-up (`testsrc2`, 6 s at 25 frames
/// a second), or BLAZEVIDEO_BENCH_INPUT names one's own (a real picture moving, with grain).
/// Before 2026-11-28 this was `VideoBenchmark` in the tests, a suite that skipped itself.
func videoBenchmarks() {
    let framesPerSecond = BenchmarkMetric.custom("frames/s", polarity: .prefersLarger, useScalingFactor: false)
    let kibibytes = BenchmarkMetric.custom("KiB", polarity: .prefersSmaller, useScalingFactor: false)

    Benchmark("video decode 720p", configuration: Benchmark.Configuration(metrics: [.wallClock, framesPerSecond], warmupIterations: 0,
                                                                         scalingFactor: .one, maxDuration: .seconds(20), maxIterations: 3)) {
        (benchmark: Benchmark, input: String) in
        let start = ContinuousClock.now
        let reader = try VideoFileReader(path: input)
        var count = 0
        while try reader.nextFrame() != nil { count += 1 }
        benchmark.measurement(framesPerSecond, Int(Double(count) / ((ContinuousClock.now - start) / .seconds(1))))
    } setup: {
        try VideoBenchClip.path()
    }

    for preset in ["ultrafast", "superfast", "veryfast", "faster"] {
        Benchmark("video encode 720p \(preset)",
                  configuration: Benchmark.Configuration(metrics: [.wallClock, framesPerSecond, kibibytes], warmupIterations: 0,
                                                         scalingFactor: .one, maxDuration: .seconds(30), maxIterations: 3)) {
            (benchmark: Benchmark, clip: VideoBenchClip) in
            let output = clip.folder + "/encode-\(preset).mp4"
            let start = ContinuousClock.now
            let writer = try VideoFileWriter(path: output, width: clip.width, height: clip.height, timeBase: clip.timeBase,
                                             frameRate: clip.frameRate, color: clip.color, options: VideoWriteOptions(preset: preset))
            for frame in clip.frames { try writer.write(frame) }
            try writer.finish()
            benchmark.measurement(framesPerSecond, Int(Double(clip.frames.count) / ((ContinuousClock.now - start) / .seconds(1))))
            let size = (try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0
            benchmark.measurement(kibibytes, size / 1024)
        } setup: {
            try VideoBenchClip()
        }
    }
}

/// The benchmark's clip, decoded once for the encoders.
struct VideoBenchClip: Sendable {
    let folder: String
    let frames: [VideoFrame]
    let width: Int, height: Int
    let timeBase: VideoFrame.TimeBase, frameRate: VideoFrameRate?, color: VideoColor

    init() throws {
        let input = try Self.path()
        folder = (input as NSString).deletingLastPathComponent
        let reader = try VideoFileReader(path: input)
        var frames: [VideoFrame] = []
        while let frame = try reader.nextFrame() { frames.append(frame) }
        self.frames = frames
        (width, height, timeBase, frameRate, color) = (reader.info.width, reader.info.height, reader.info.timeBase, reader.info.frameRate, reader.info.color)
    }

    /// BLAZEVIDEO_BENCH_INPUT, else a 720p testsrc2 clip made once in the temporary folder.
    static func path() throws -> String {
        if let own = ProcessInfo.processInfo.environment["BLAZEVIDEO_BENCH_INPUT"], !own.isEmpty { return own }
        let folder = NSTemporaryDirectory() + "blazeface-video-bench"
        let clip = folder + "/bench720.mp4"
        if FileManager.default.fileExists(atPath: clip) { return clip }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let ffmpeg = Process()
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        ffmpeg.arguments = ["ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc2=s=1280x720:r=25:d=6", "-c:v", "libx264",
                            "-preset", "medium", "-crf", "18", "-pix_fmt", "yuv420p", clip]
        try ffmpeg.run()
        ffmpeg.waitUntilExit()
        guard ffmpeg.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
        return clip
    }
}
