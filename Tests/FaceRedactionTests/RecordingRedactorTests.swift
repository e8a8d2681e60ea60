import BlazeFace
import BlazeImageIO
@testable import FaceRedaction
import Foundation
import Testing

/// The recording guarantee in the library: an app's own frames in, masked frames out, in order,
/// none before its masks, the last one too; a failure cancels the sink.
@Suite struct RecordingRedactorTests {
    /// Frames from memory: the photo at frames `faces`, grey elsewhere; fails at `failAt`.
    final class Frames: VideoFrameSource {
        let photo: RGBImage, count: Int, faces: Range<Int>, failAt: Int?
        var index = 0
        init(_ photo: RGBImage, count: Int, faces: Range<Int>, failAt: Int? = nil) {
            (self.photo, self.count, self.faces, self.failAt) = (photo, count, faces, failAt)
        }
        var expectedFrameCount: Int? { count }
        func nextFrame() throws -> VideoFrame? {
            guard index < count else { return nil }
            if index == failAt { throw ImageError.y4m("frame \(index) is broken") }
            defer { index += 1 }
            var image = photo
            if !faces.contains(index) { image.pixels = [UInt8](repeating: 90, count: image.pixels.count) }
            return try VideoFrame(format: .rgb, width: image.width, height: image.height, bytes: image.pixels,
                                  presentationTime: Int64(index) * 40, timeBase: .milliseconds)
        }
    }

    /// Keeps what it is given, and whether it was finished or cancelled.
    final class Collected: VideoFrameSink, @unchecked Sendable {
        var frames: [VideoFrame] = []
        var finished = false, cancelled = false
        func write(_ frame: VideoFrame) throws { frames.append(frame) }
        func finish() throws { finished = true }
        func cancel() { cancelled = true }
    }

    static func redactor() throws -> FaceRedactor {
        try FaceRedactor(options: .init(detectorOptions: FaceDetectorOptions(weightsPath: FaceRedactionTests.weights),
                                        mask: RedactionOptions(mode: .solid), tiling: .off))
    }

    /// Black pixels (solid masks) in a frame.
    static func masked(_ frame: VideoFrame) -> Int { stride(from: 0, to: frame.bytes.count, by: 3).filter { frame.bytes[$0] == 0 }.count }

    @Test func everyFrameIsMaskedAndWrittenInOrderTheLastToo() throws {
        let photo = try FaceRedactionTests.photo()
        let sink = Collected()
        let summary = try RecordingRedactor(redactor: Self.redactor(), lookBehind: 10)
            .run(from: Frames(photo, count: 12, faces: 0..<12), to: sink)
        #expect(summary.frames == 12 && sink.finished && !sink.cancelled)
        #expect(sink.frames.map(\.presentationTime) == (0..<12).map { Int64($0) * 40 })
        for (i, frame) in sink.frames.enumerated() { #expect(Self.masked(frame) > 50_000, "frame \(i) is not masked") }
    }

    @Test func aFaceFoundLateIsMaskedBeforeToo() throws {
        // Grey frames, then the faces: the look-behind puts masks on the grey frames before them.
        let photo = try FaceRedactionTests.photo()
        let sink = Collected()
        let summary = try RecordingRedactor(redactor: Self.redactor(), lookBehind: 3)
            .run(from: Frames(photo, count: 10, faces: 5..<10), to: sink)
        #expect(summary.backfilledMasks > 0)
        #expect(Self.masked(sink.frames[4]) > 0 && Self.masked(sink.frames[0]) == 0)
    }

    @Test func aFailureCancelsTheSinkAndNamesTheFrame() throws {
        let photo = try FaceRedactionTests.photo()
        let sink = Collected()
        #expect {
            try RecordingRedactor(redactor: Self.redactor(), lookBehind: 2).run(from: Frames(photo, count: 10, faces: 0..<10, failAt: 6), to: sink)
        } throws: { error in
            guard let failure = error as? RecordingRedactor.Failure else { return false }
            return failure.frame == 6 && "\(failure)".hasPrefix("frame 6: ")
        }
        #expect(sink.cancelled && !sink.finished)
        for frame in sink.frames { #expect(Self.masked(frame) > 50_000, "an unmasked frame was written") }
    }
}
