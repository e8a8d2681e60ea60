// TEMPORARY: stands in for BlazeVideoIO's API until the video branch is merged.
import ArgumentParser
import BlazeImageIO
import Foundation

struct VideoWriteOptions {
    enum Codec: String, CaseIterable { case automatic, h264, hevc, vp9 }
    enum Metadata { case strip, keep(location: Bool) }
    var codec: Codec = .automatic
    var crf: Int?
    var preset: String?
    var copyAudio = true
    var copySubtitles = true
    var metadata: Metadata = .strip
}

final class VideoFileReader: VideoFrameSource {
    static func probe(path: String) -> Bool { false }
    init(path: String) throws { throw ToolError("\(path): video files are not wired yet") }
    func nextFrame() throws -> VideoFrame? { nil }
    var expectedFrameCount: Int? { nil }
    var y4mHeader: Y4MHeader { Y4MHeader(width: 1, height: 1) }
    var warnings: [String] { [] }
}

final class VideoFileWriter: VideoFrameSink {
    init(path: String, matching: any VideoFrameSource, options: VideoWriteOptions) throws { throw ToolError("not wired") }
    func write(_ frame: VideoFrame) throws {}
    func finish() throws {}
    func cancel() {}
    var warnings: [String] { [] }
}
extension VideoWriteOptions.Codec: ExpressibleByArgument {}
