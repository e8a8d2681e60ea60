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

    /// An interlaced frame of a moving scene: the photo on the even rows (the first field) and
    /// the photo `shift` pixels to the left on the odd rows (the second, a field period later).
    static func combed(_ photo: RGBImage, shift: Int, fieldOrder: VideoFrame.FieldOrder, index: Int) throws -> VideoFrame {
        var bytes = photo.pixels
        let row = 3 * photo.width
        for y in stride(from: 1, to: photo.height, by: 2) {
            for x in 0..<photo.width {
                let from = y * row + 3 * min(photo.width - 1, x + shift)
                for c in 0..<3 { bytes[y * row + 3 * x + c] = photo.pixels[from + c] }
            }
        }
        var frame = try VideoFrame(format: .rgb, width: photo.width, height: photo.height, bytes: bytes,
                                   presentationTime: Int64(index) * 40, timeBase: .milliseconds)
        frame.fieldOrder = fieldOrder
        return frame
    }

    /// Frames given in memory.
    final class Given: VideoFrameSource {
        var frames: [VideoFrame]
        init(_ frames: [VideoFrame]) { self.frames = frames }
        var expectedFrameCount: Int? { frames.count }
        func nextFrame() throws -> VideoFrame? { frames.isEmpty ? nil : frames.removeFirst() }
    }

    /// The fields of an interlaced frame of a moving face are a field period apart and comb into
    /// each other; the redactor searches the first field alone (its rows, the others filled in
    /// between them), so the combed faces are found and masked. The written frames keep both
    /// fields: only the masks change them.
    @Test func anInterlacedFrameIsSearchedInItsFirstField() throws {
        let photo = try FaceRedactionTests.photo()
        var masked: [VideoFrame.FieldOrder: [Int]] = [:]
        for order in [VideoFrame.FieldOrder.topFieldFirst, .progressive] {
            let frames = try (0..<2).map { try Self.combed(photo, shift: 40, fieldOrder: order, index: $0) }
            let sink = Collected()
            try RecordingRedactor(redactor: Self.redactor(), lookBehind: 0).run(from: Given(frames), to: sink)
            masked[order] = sink.frames.map(Self.masked)
            for (given, written) in zip(frames, sink.frames) {
                let unchanged = zip(given.bytes, written.bytes).filter { $0 == $1 }.count
                #expect(unchanged + 3 * Self.masked(written) >= given.bytes.count - 3 * 1000, "only the masks change a frame")
            }
        }
        let field = try #require(masked[.topFieldFirst]), combed = try #require(masked[.progressive])
        #expect(field.allSatisfy { $0 > 50_000 }, "\(field)")
        #expect(zip(field, combed).allSatisfy { $0 > $1 }, "field \(field), combed \(combed)")
    }

    /// The search picture of an interlaced frame: the first field's rows as they are, each other
    /// row the rounded mean of the rows above and below (the one neighbour at the edge).
    @Test func theSearchPictureOfAnInterlacedFrameIsItsFirstField() throws {
        // A gray 2x5 frame: rows 0...4 of values 10, 200, 30, 250, 50.
        var frame = try VideoFrame(format: .gray, width: 2, height: 5, bytes: [10, 10, 200, 200, 30, 30, 250, 250, 50, 50],
                                   presentationTime: 0, timeBase: .milliseconds)
        var scratch: [UInt8] = []
        func searched() throws -> [UInt8] {
            try frame.withSearchPixels(scratch: &scratch) { buffer in
                (0..<5).map { buffer.plane0.base.load(fromByteOffset: $0 * buffer.plane0.rowStride, as: UInt8.self) }
            }
        }
        #expect(try searched() == [10, 200, 30, 250, 50])   // progressive: the frame itself
        frame.fieldOrder = .topFieldFirst
        #expect(try searched() == [10, 20, 30, 40, 50])     // rows 0, 2, 4 kept
        frame.fieldOrder = .bottomFieldFirst
        #expect(try searched() == [200, 200, 225, 250, 250]) // rows 1, 3 kept; the edges copy their neighbour
        #expect(frame.bytes == [10, 10, 200, 200, 30, 30, 250, 250, 50, 50])
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
