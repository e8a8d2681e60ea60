import Foundation
import Testing
@testable import BlazeVideoIO

/// Tiny clips made once per run with the ffmpeg tool (lavfi's testsrc2, color and sine sources)
/// in a temporary folder, and ffprobe/ffmpeg helpers to check what the writer made.
enum Media {
    struct Failure: Error, CustomStringConvertible { let description: String }

    /// The shared folder and clips, or why they could not be made.
    static let clips: Result<Clips, Failure> = Result { try Clips() }.mapError { $0 as? Failure ?? Failure(description: "\($0)") }

    /// The clips, or a recorded issue that says to install FFmpeg.
    static func get() throws -> Clips {
        switch clips {
        case .success(let clips): return clips
        case .failure(let failure):
            Issue.record("\(failure.description)")
            throw failure
        }
    }

    /// Runs a tool and returns its standard output; throws with its standard error if it fails.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        do { try process.run() } catch {
            throw Failure(description: "\(tool) cannot be run (\(error)): run Tools/install-deps.sh, or install FFmpeg's ffmpeg and ffprobe")
        }
        // Output first (it can be large), then the errors (small at -v error).
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errorData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: errorData, as: UTF8.self)
            if process.terminationStatus == 127 {
                throw Failure(description: "\(tool) is not installed: run Tools/install-deps.sh, or install FFmpeg's ffmpeg and ffprobe")
            }
            throw Failure(description: "\(tool) \(arguments.joined(separator: " ")) failed: \(text.suffix(600))")
        }
        return data
    }

    /// Makes a clip with ffmpeg (quiet, overwriting).
    static func ffmpeg(_ arguments: [String]) throws { try run("ffmpeg", ["-v", "error", "-y"] + arguments) }

    /// ffprobe's JSON for the file.
    static func probe(_ path: String, _ arguments: [String]) throws -> [String: Any] {
        let data = try run("ffprobe", ["-v", "error", "-of", "json"] + arguments + [path])
        return try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
    }

    /// The video frames' presentation times in seconds, in presentation order.
    static func videoTimes(_ path: String) throws -> [Double] {
        let json = try probe(path, ["-select_streams", "v:0", "-show_entries", "packet=pts_time"])
        let packets = json["packets"] as? [[String: Any]] ?? []
        return packets.compactMap { ($0["pts_time"] as? String).flatMap(Double.init) }.sorted()
    }

    /// The first video stream's entries (width, height, time_base, side_data_list...).
    static func videoStream(_ path: String) throws -> [String: Any] {
        let json = try probe(path, ["-select_streams", "v:0", "-show_streams"])
        return (json["streams"] as? [[String: Any]])?.first ?? [:]
    }

    /// All streams' entries.
    static func streams(_ path: String) throws -> [[String: Any]] {
        try probe(path, ["-show_streams"])["streams"] as? [[String: Any]] ?? []
    }

    /// The container's tags.
    static func formatTags(_ path: String) throws -> [String: String] {
        let format = try probe(path, ["-show_format"])["format"] as? [String: Any] ?? [:]
        return format["tags"] as? [String: String] ?? [:]
    }

    /// The MD5 of the audio packets' bytes (FFmpeg's md5 muxer over a stream copy).
    static func audioMD5(_ path: String) throws -> String {
        String(decoding: try run("ffmpeg", ["-v", "error", "-i", path, "-map", "0:a", "-c", "copy", "-f", "md5", "-"]), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// FFmpeg's own decode of the file (autorotated), as packed yuv420p frames.
    static func rawYUV(_ path: String) throws -> [UInt8] {
        [UInt8](try run("ffmpeg", ["-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"]))
    }

    /// The clips, each in the shared folder.
    struct Clips: Sendable {
        let folder: String
        /// H.264 + AAC, 160x120, 25 fps, 20 frames; then the same streams in MOV and MKV.
        let mp4, mov, mkv: String
        /// VP9 + Opus.
        let webm: String
        /// MPEG-4 Part 2 at an odd size (161x121), turned by a display matrix: 90 (ffprobe's
        /// counter-clockwise rotation=90), 180 and 270.
        let rotated90, rotated180, rotated270: String
        /// Variable frame rate (every third gap 1.5 frames long).
        let vfr: String
        /// MP4 with a title, an ISO 6709 location and Apple's location key, all written as mdta keys.
        let location: String
        /// Solid 0x3366CC, 64x48, 8-bit and 10-bit, lossless H.264.
        let solid8, solid10: String
        /// H.264 + AAC cut at half its size: with its moov box first (+faststart), and without.
        let cutFaststart, cutPlain: String
        /// A PNG picture and garbage bytes.
        let png, garbage: String
        /// Interlaced H.264 (160x120, two fields a frame, coded as fields), top and bottom field first.
        let interlacedTop, interlacedBottom: String

        init() throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("BlazeVideoIOTests-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            self.folder = folder
            // The folder lives as long as the test process, and goes with it.
            atexit { if case .success(let clips) = Media.clips { try? FileManager.default.removeItem(atPath: clips.folder) } }
            func at(_ name: String) -> String { (folder as NSString).appendingPathComponent(name) }
            let source = ["-f", "lavfi", "-i", "testsrc2=s=160x120:r=25:d=0.8", "-f", "lavfi", "-i", "sine=f=440:d=0.8"]
            (mp4, mov, mkv, webm) = (at("clip.mp4"), at("clip.mov"), at("clip.mkv"), at("clip.webm"))
            try ffmpeg(source + ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "64k", mp4])
            try ffmpeg(["-i", mp4, "-c", "copy", mov])
            try ffmpeg(["-i", mp4, "-c", "copy", mkv])
            try ffmpeg(source + ["-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-c:a", "libopus", webm])

            let odd = at("odd.mp4")
            try ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=160x120:r=25:d=0.4", "-vf", "scale=161:121", "-c:v", "mpeg4", "-q:v", "2", odd])
            (rotated90, rotated180, rotated270) = (at("rot90.mp4"), at("rot180.mp4"), at("rot270.mp4"))
            for (angle, path) in [(90, rotated90), (180, rotated180), (270, rotated270)] {
                // FFmpeg 5.1 writes a display matrix from the rotate tag on a stream copy.
                try ffmpeg(["-i", odd, "-c", "copy", "-metadata:s:v:0", "rotate=\(angle)", path])
            }

            vfr = at("vfr.mp4")
            try ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=160x120:r=25:d=0.6", "-vf", "setpts='(N+floor(N/3)*0.5)/25/TB'",
                        "-fps_mode", "vfr", "-c:v", "libx264", "-preset", "ultrafast", vfr])
            location = at("location.mp4")
            try ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=160x120:r=25:d=0.4", "-c:v", "libx264", "-preset", "ultrafast",
                        "-metadata", "title=Holiday", "-metadata", "location=+48.8583+002.2945/",
                        "-metadata", "com.apple.quicktime.location.ISO6709=+48.8583+002.2945+035.000/",
                        "-metadata", "com.apple.quicktime.make=Apple",
                        "-movflags", "use_metadata_tags", location])
            (solid8, solid10) = (at("solid8.mp4"), at("solid10.mp4"))
            for (format, path) in [("yuv420p", solid8), ("yuv420p10le", solid10)] {
                try ffmpeg(["-f", "lavfi", "-i", "color=c=0x3366CC:s=64x48:r=25:d=0.2", "-c:v", "libx264", "-qp", "0",
                            "-pix_fmt", format, path])
            }

            let long = at("long.mp4"), faststart = at("faststart.mp4")
            try ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=160x120:r=25:d=2", "-f", "lavfi", "-i", "sine=d=2",
                        "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", long])
            try ffmpeg(["-i", long, "-c", "copy", "-movflags", "+faststart", faststart])
            (cutFaststart, cutPlain) = (at("cut-faststart.mp4"), at("cut-plain.mp4"))
            for (from, to) in [(faststart, cutFaststart), (long, cutPlain)] {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: from))
                try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: to))
            }

            (interlacedTop, interlacedBottom) = (at("tff.mp4"), at("bff.mp4"))
            for (order, path) in [("tff", interlacedTop), ("bff", interlacedBottom)] {
                try ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=160x120:r=50:d=0.4",
                            "-vf", "tinterlace=mode=interleave_\(order == "tff" ? "top" : "bottom"),setfield=\(order)",
                            "-c:v", "libx264", "-preset", "ultrafast", "-flags", "+ildct+ilme", "-x264-params", "\(order)=1", path])
            }
            png = at("picture.png")
            try ffmpeg(["-f", "lavfi", "-i", "testsrc2=s=64x48", "-frames:v", "1", png])
            garbage = at("garbage.mp4")
            var generator = SystemRandomNumberGenerator()
            try Data((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: URL(fileURLWithPath: garbage))
        }

        /// A fresh path in the folder for an output.
        func output(_ name: String) -> String {
            (folder as NSString).appendingPathComponent("\(UUID().uuidString.prefix(8))-\(name)")
        }

        /// The hidden temporary files left in the folder by writers.
        /// The temporary files left for `output` (tests run in parallel in the same folder, so
        /// each looks only for its own).
        func partials(of output: String) throws -> [String] {
            let name = (output as NSString).lastPathComponent
            return try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(".\(name).partial-") }
        }
    }
}

/// Reads every frame of the reader.
func readAll(_ reader: VideoFileReader) throws(VideoError) -> [VideoFrame] {
    var frames: [VideoFrame] = []
    while let frame = try reader.nextFrame() { frames.append(frame) }
    return frames
}

/// Re-encodes `input` into `output` frame by frame, copying streams as `options` says.
@discardableResult
func transcode(_ input: String, to output: String, options: VideoWriteOptions = .init()) throws(VideoError) -> VideoFileWriter {
    let reader = try VideoFileReader(path: input)
    let writer = try VideoFileWriter(path: output, copying: reader, options: options)
    do {
        while let frame = try reader.nextFrame() { try writer.write(frame) }
        try writer.finish()
    } catch {
        writer.cancel()
        throw error
    }
    return writer
}
