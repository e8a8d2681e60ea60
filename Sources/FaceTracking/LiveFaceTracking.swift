import BlazeFace
import Synchronization
import VisionTasks

/// Mobile Vision's live face pipeline (`GMVMultiDataOutput` with a `GMVMultiProcessor`): camera
/// frames in, a `PerFaceTracker` per face out. Frames are handed over without waiting and
/// dropped while one is in flight (the same `LiveStreamRunner` as the detector's live-stream
/// mode); each frame's faces get tracking IDs (`FaceTracker`) and are fanned out to the faces'
/// trackers (`MultiFaceProcessor`) on the runner's one serial delivery queue, in timestamp
/// order. Every tracker call happens on that queue; `close()` ends the stream and calls
/// `onDone` for the faces still tracked.
public final class LiveFaceTracking: Sendable {
    private let detector: FaceDetector
    private let runner: LiveStreamRunner<Frame>
    private let state: Shared

    /// One frame's detections, with the size its boxes are normalized to.
    private struct Frame: Sendable {
        let timestamp: Int, width: Int, height: Int
        let result: Result<FaceDetectorResult, VisionTaskError>
    }

    /// What the delivery queue owns: the IDs and the per-face trackers.
    private struct State {
        var tracker: FaceTracker
        var processor: MultiFaceProcessor?
        var errors = 0
    }

    /// The state, shared with the runner's delivery handler.
    private final class Shared: Sendable {
        let value: Mutex<State>
        init(_ state: sending State) { value = Mutex(state) }
    }

    /// A live pipeline with these options (the detector runs each frame in image mode; its
    /// `runningMode` and `liveStreamHandler` are set here); `makeTracker` is called on the
    /// delivery queue for each new face, with the face.
    public init(detectorOptions: FaceDetectorOptions = FaceDetectorOptions(),
                trackingOptions: FaceTrackingOptions = FaceTrackingOptions(),
                makeTracker: @escaping @Sendable (TrackedFace) -> any PerFaceTracker) throws(VisionTaskError) {
        var options = detectorOptions
        (options.runningMode, options.liveStreamHandler) = (.image, nil)
        detector = try FaceDetector(options: options)
        let state = Shared(State(tracker: try FaceTracker(options: trackingOptions),
                                 processor: MultiFaceProcessor(factory: makeTracker)))
        self.state = state
        runner = LiveStreamRunner(label: "FaceTracking.liveStream") { frame in
            state.value.withLock { s in
                guard case .success(let result) = frame.result,
                      let tracked = try? s.tracker.update(result, imageWidth: frame.width, imageHeight: frame.height,
                                                          timestampInMilliseconds: frame.timestamp) else {
                    s.errors += 1
                    return
                }
                s.processor?.receive(tracked)
            }
        }
    }

    deinit { runner.shutDown() }

    /// Hands a camera frame over and returns at once (its planes are copied); dropped if a frame
    /// is still in flight. Timestamps must strictly increase.
    public func send(pixelBuffer: PixelBuffer, options: ImageProcessingOptions = ImageProcessingOptions(),
                     timestampInMilliseconds t: Int) throws(VisionTaskError) {
        let owned = OwnedPixelBuffer(copying: pixelBuffer)
        let (width, height) = (pixelBuffer.width, pixelBuffer.height)
        try runner.submit(t) { [detector] in
            Frame(timestamp: t, width: width, height: height, result: Result { () throws(VisionTaskError) in
                try owned.withPixelBuffer { buffer throws(VisionTaskError) in try detector.detect(image: buffer, options: options) }
            })
        }
    }

    /// Hands a decoded frame over and returns at once; dropped if a frame is still in flight.
    public func send(image: RGBImage, options: ImageProcessingOptions = ImageProcessingOptions(),
                     timestampInMilliseconds t: Int) throws(VisionTaskError) {
        try runner.submit(t) { [detector] in
            Frame(timestamp: t, width: image.width, height: image.height, result: Result { () throws(VisionTaskError) in
                try detector.detect(image: image, options: options)
            })
        }
    }

    /// Frames dropped so far because one was in flight.
    public var droppedFrameCount: Int { runner.counts.dropped }
    /// Frames delivered so far (each one's result went to the trackers, or failed).
    public var deliveredResultCount: Int { runner.counts.delivered }
    /// Delivered frames whose detection failed (their faces were not updated).
    public var failedFrameCount: Int { state.value.withLock { $0.errors } }

    /// Ends the stream: nothing more is delivered, then `onDone` for every face still tracked
    /// (on the caller's thread). Later `send` calls throw `.closed`.
    public func close() {
        runner.close()
        let processor = state.value.withLock { s in
            let p = s.processor
            s.processor = nil
            return p
        }
        processor?.finish()
    }
}
