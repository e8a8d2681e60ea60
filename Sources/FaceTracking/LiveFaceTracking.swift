import BlazeFace
import Synchronization

/// Mobile Vision's live face pipeline (`GMVMultiDataOutput` with a `GMVMultiProcessor`): camera
/// frames in, a `PerFaceTracker` per face out. Frames are handed over without waiting and
/// dropped while one is in flight (the detector's live-stream mode); each result gets tracking
/// IDs (`FaceTracker`) and is fanned out to the faces' trackers (`MultiFaceProcessor`), all on
/// the detector's one serial delivery queue, in timestamp order. Every tracker call happens on
/// that queue; `close()` ends the stream and calls `onDone` for the faces still tracked.
public final class LiveFaceTracking: Sendable {
    private let detector: FaceDetector
    private let shared: Shared

    /// What the delivery queue owns: the IDs and the per-face trackers.
    private struct State {
        var tracker: FaceTracker
        var processor: MultiFaceProcessor?
        var errors = 0
    }

    /// The state and each frame's size (by timestamp, until its result is delivered or the
    /// frame is dropped), shared with the detector's result handler.
    private final class Shared: Sendable {
        let state: Mutex<State>
        let sizes = Mutex([Int: (width: Int, height: Int)]())
        init(_ state: sending State) { self.state = Mutex(state) }
    }

    /// A live pipeline with these options (`runningMode` and `liveStreamHandler` are set here);
    /// `makeTracker` is called on the delivery queue for each new face, with the face.
    public init(detectorOptions: FaceDetectorOptions = FaceDetectorOptions(),
                trackingOptions: FaceTrackingOptions = FaceTrackingOptions(),
                makeTracker: @escaping @Sendable (TrackedFace) -> any PerFaceTracker) throws(DetectorError) {
        let shared = Shared(State(tracker: try FaceTracker(options: trackingOptions),
                                  processor: MultiFaceProcessor(factory: makeTracker)))
        self.shared = shared
        var options = detectorOptions
        options.runningMode = .liveStream
        options.liveStreamHandler = { output in
            let size = shared.sizes.withLock { $0.removeValue(forKey: output.timestampInMilliseconds) }
            shared.state.withLock { s in
                guard let size, case .success(let result) = output.result,
                      let frame = try? s.tracker.update(result, imageWidth: size.width, imageHeight: size.height,
                                                        timestampInMilliseconds: output.timestampInMilliseconds) else {
                    s.errors += 1
                    return
                }
                s.processor?.receive(frame)
            }
        }
        detector = try FaceDetector(options: options)
    }

    /// Hands a camera frame over and returns at once (its planes are copied); dropped if a frame
    /// is still in flight. Timestamps must strictly increase.
    public func send(pixelBuffer: PixelBuffer, options: ImageProcessingOptions = ImageProcessingOptions(),
                     timestampInMilliseconds: Int) throws(DetectorError) {
        record(pixelBuffer.width, pixelBuffer.height, timestampInMilliseconds)
        try detector.detectAsync(pixelBuffer: pixelBuffer, options: options, timestampInMilliseconds: timestampInMilliseconds)
    }

    /// Hands a decoded frame over and returns at once; dropped if a frame is still in flight.
    public func send(image: RGBImage, options: ImageProcessingOptions = ImageProcessingOptions(),
                     timestampInMilliseconds: Int) throws(DetectorError) {
        record(image.width, image.height, timestampInMilliseconds)
        try detector.detectAsync(image: image, options: options, timestampInMilliseconds: timestampInMilliseconds)
    }

    private func record(_ width: Int, _ height: Int, _ timestamp: Int) {
        shared.sizes.withLock { sizes in
            // Frames dropped before delivery leave their entry: keep only recent ones.
            if sizes.count > 64 { sizes = sizes.filter { $0.key >= timestamp - 10_000 } }
            sizes[timestamp] = (width, height)
        }
    }

    /// Frames dropped so far because one was in flight.
    public var droppedFrameCount: Int { detector.droppedFrameCount }
    /// Frames delivered so far (each one's result went to the trackers, or failed).
    public var deliveredFrameCount: Int { detector.deliveredResultCount }
    /// Delivered frames whose detection failed (their faces were not updated).
    public var failedFrameCount: Int { shared.state.withLock { $0.errors } }

    /// Ends the stream: nothing more is delivered, then `onDone` for every face still tracked
    /// (on the caller's thread). Later `send` calls throw `.closed`.
    public func close() {
        detector.close()
        let processor = shared.state.withLock { s in
            let p = s.processor
            s.processor = nil
            return p
        }
        processor?.finish()
    }
}
