import BlazeFace
import BlazeImage
import Foundation
import Synchronization
import Testing

/// Running modes as MediaPipe defines them: fixed at creation, wrong calls refused, timestamps
/// strictly increasing; the live stream's dropping, ordering and close.
@Suite struct RunningModeTests {
    func detector(_ mode: RunningMode, handler: (@Sendable (LiveStreamResult) -> Void)? = nil) throws -> FaceDetector {
        try FaceDetector(options: FaceDetectorOptions(weightsPath: Goldens.weights, runningMode: mode, liveStreamHandler: handler))
    }

    @Test func callsOfAnotherModeAreRefused() throws {
        let image = try Goldens.image("astronaut")
        let still = try detector(.image)
        #expect(throws: DetectorError.wrongRunningMode(called: "detect(videoFrame:timestampInMilliseconds:)", mode: .image)) {
            try still.detect(videoFrame: image, timestampInMilliseconds: 0)
        }
        #expect(throws: DetectorError.wrongRunningMode(called: "detectAsync(image:timestampInMilliseconds:)", mode: .image)) {
            try still.detectAsync(image: image, timestampInMilliseconds: 0)
        }
        let video = try detector(.video)
        #expect(throws: DetectorError.wrongRunningMode(called: "detect(image:)", mode: .video)) { try video.detect(image: image) }
        #expect(throws: DetectorError.wrongRunningMode(called: "detect(image:options:)", mode: .video)) {
            try video.detect(image: image, options: ImageProcessingOptions())
        }
        try image.pixels.withUnsafeBytes { bytes in
            let buffer = try PixelBuffer(format: .rgb, width: image.width, height: image.height, bytes: bytes)
            #expect(throws: DetectorError.wrongRunningMode(called: "detect(image:options:)", mode: .video)) {
                try video.detect(image: buffer)
            }
        }
        let live = try detector(.liveStream)
        #expect(throws: DetectorError.wrongRunningMode(called: "detect(image:)", mode: .liveStream)) { try live.detect(image: image) }
        #expect(throws: DetectorError.self) { try live.detect(videoFrame: image, timestampInMilliseconds: 1) }
        live.close()
    }

    @Test func aHandlerBelongsToTheLiveStreamOnly() {
        #expect(throws: DetectorError.self) { try detector(.video, handler: { _ in }) }
        #expect(throws: DetectorError.self) { try detector(.image, handler: { _ in }) }
    }

    @Test func videoTimestampsMustStrictlyIncrease() throws {
        let image = try Goldens.image("astronaut")
        let video = try detector(.video)
        let first = try video.detect(videoFrame: image, timestampInMilliseconds: 10)
        #expect(first == (try detector(.image).detect(image: image)))   // same pipeline as an image
        _ = try video.detect(videoFrame: image, timestampInMilliseconds: 20)
        #expect(throws: DetectorError.nonIncreasingTimestamp(previous: 20, current: 20)) {
            try video.detect(videoFrame: image, timestampInMilliseconds: 20)
        }
        do {
            _ = try video.detect(videoFrame: image, timestampInMilliseconds: 5)
            Issue.record("an earlier timestamp was accepted")
        } catch {
            #expect(error == .nonIncreasingTimestamp(previous: 20, current: 5))
            #expect(error.description.contains("5 ms") && error.description.contains("20 ms"))
        }
        _ = try video.detect(videoFrame: image, timestampInMilliseconds: 21)
    }

    @Test func liveStreamTimestampsMustStrictlyIncrease() throws {
        let image = try Goldens.image("astronaut_tiny48")
        let live = try detector(.liveStream)
        try live.detectAsync(image: image, timestampInMilliseconds: 100)
        #expect(throws: DetectorError.nonIncreasingTimestamp(previous: 100, current: 99)) {
            try live.detectAsync(image: image, timestampInMilliseconds: 99)
        }
        live.close()
        #expect(throws: DetectorError.closed) { try live.detectAsync(image: image, timestampInMilliseconds: 200) }
    }

    /// A consumer slower than the detector: frames are dropped (and counted), every frame is
    /// either delivered or dropped, deliveries come in timestamp order through both the handler
    /// and the AsyncStream, and nothing arrives after close().
    @Test func slowConsumerDropsFramesInOrderAndNothingAfterClose() async throws {
        let image = try Goldens.image("astronaut")
        let seen = Mutex<[Int]>([])
        let live = try detector(.liveStream) { output in
            Thread.sleep(forTimeInterval: 0.03)   // the slow consumer
            seen.withLock { $0.append(output.timestampInMilliseconds) }
        }
        let streamed = Task {
            var timestamps: [Int] = []
            for await output in live.liveStreamResults {
                if case .failure(let e) = output.result { Issue.record("frame failed: \(e)") }
                timestamps.append(output.timestampInMilliseconds)
            }
            return timestamps
        }
        let frames = 40
        for i in 0..<frames {
            try live.detectAsync(image: image, timestampInMilliseconds: i * 33)
            usleep(5_000)
        }
        // Wait (up to a minute) until every frame is accounted for.
        for _ in 0..<6000 where live.deliveredResultCount + live.droppedFrameCount < frames
            || seen.withLock({ $0.count }) < live.deliveredResultCount {
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        let delivered = live.deliveredResultCount, dropped = live.droppedFrameCount
        #expect(delivered + dropped == frames)
        #expect(dropped > 0)
        #expect(delivered > 0)
        let handled = seen.withLock { $0 }
        #expect(handled.count == delivered)
        #expect(zip(handled, handled.dropFirst()).allSatisfy { $0 < $1 })

        // One more frame, then close() (the contract): once close() returns nothing more is
        // delivered. The frame is delivered before close() returns if its detection ended before
        // close() was called (a few milliseconds: the caller may be off the CPU that long), and
        // never otherwise; which of the two happens is the scheduler's.
        try live.detectAsync(image: image, timestampInMilliseconds: 10_000)
        live.close()
        let atClose = seen.withLock { $0 }
        try await Task.sleep(nanoseconds: 300_000_000)
        #expect(seen.withLock { $0 } == atClose)
        #expect(atClose == handled || atClose == handled + [10_000])
        let fromStream = await streamed.value   // the stream finishes at close()
        #expect(fromStream == Array(atClose.prefix(fromStream.count)))
        #expect(fromStream.count >= handled.count)
        #expect(zip(fromStream, fromStream.dropFirst()).allSatisfy { $0 < $1 })
    }

    /// An app that uses only the handler leaves the results' stream unread: it keeps the 64
    /// newest results, not every one (issue 40: it grew by each result, without bound).
    @Test func anUnreadStreamKeepsOnlyTheNewestResults() async throws {
        let image = try Goldens.image("astronaut_tiny48")
        let handled = Mutex(0)
        let live = try detector(.liveStream) { _ in handled.withLock { $0 += 1 } }
        let frames = 72
        for i in 0..<frames {
            try live.detectAsync(image: image, timestampInMilliseconds: i)
            for _ in 0..<6000 where handled.withLock({ $0 }) <= i { try await Task.sleep(nanoseconds: 1_000_000) }
        }
        #expect(handled.withLock { $0 } == frames)
        live.close()
        var streamed: [Int] = []
        for await result in live.liveStreamResults { streamed.append(result.timestampInMilliseconds) }
        #expect(streamed == Array((frames - 64)..<frames))
    }

    @Test func closeFromTheHandlerStopsDelivery() async throws {
        let image = try Goldens.image("astronaut_tiny48")
        let count = Mutex(0)
        let box = Mutex<FaceDetector?>(nil)
        let live = try detector(.liveStream) { _ in
            count.withLock { $0 += 1 }
            box.withLock { $0 }?.close()
        }
        box.withLock { $0 = live }
        try live.detectAsync(image: image, timestampInMilliseconds: 0)
        for _ in 0..<6000 where count.withLock({ $0 }) == 0 { try await Task.sleep(nanoseconds: 10_000_000) }
        #expect(count.withLock { $0 } == 1)
        #expect(throws: DetectorError.closed) { try live.detectAsync(image: image, timestampInMilliseconds: 1) }
        var streamed = 0
        for await _ in live.liveStreamResults { streamed += 1 }   // finished by the close() in the handler
        #expect(streamed == 1)
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(count.withLock { $0 } == 1)
        box.withLock { $0 = nil }
    }
}
