import BlazeFace
import BlazeImage
import FaceTracking
import VisionTasks

/// One live analysis outcome: the frame's timestamp and its faces, or the error it gave.
public struct LiveAnalysisResult: Sendable {
    /// The timestamp the frame was sent with.
    public var timestampInMilliseconds: Int
    /// The faces (with tracking IDs when tracking is on), or why the frame failed.
    public var result: Result<FaceAnalysisResult, FaceAnalysisError>
}

/// ML Kit's face detector on a camera feed: frames handed over without waiting (`send`), each
/// analysed as `FaceAnalysisPipeline.analyze(pixels:orientation:)` does, frames that come while
/// one is in flight dropped (ML Kit's advice, MediaPipe's live-stream rule), results delivered in
/// timestamp order on one serial queue to a handler and to `results`. With tracking on (ML Kit's
/// `isTrackingEnabled`), every face carries a `trackingID` that stays the same while it stays
/// in view. The same live-stream machinery as `FaceDetector`'s (`LiveStreamRunner`).
public final class LiveFaceAnalysis: Sendable {
    private let pipeline: FaceAnalysisPipeline
    private let runner: LiveStreamRunner<LiveAnalysisResult>
    private let tracker: SharedFaceTracker?

    /// A live analysis with these options (see `FaceAnalysisPipeline.init`, and its pool); `tracking` nil
    /// (the default, as ML Kit's) gives no tracking IDs. Smoothing is not applied: the IDs
    /// follow the analysed detections as they are.
    public init(options: FaceAnalyzerOptions = FaceAnalyzerOptions(), numFaces: Int = 4, weightsFolder: String? = nil,
                tracking: FaceTrackingOptions? = nil, threadPool: ThreadPool = .shared,
                handler: (@Sendable (LiveAnalysisResult) -> Void)? = nil) throws(FaceAnalysisError) {
        pipeline = try FaceAnalysisPipeline(options: options, numFaces: numFaces, weightsFolder: weightsFolder, threadPool: threadPool)
        if var tracking {
            tracking.smoothing = nil
            do throws(VisionTaskError) { tracker = try SharedFaceTracker(options: tracking) } catch { throw .landmarker(error) }
        } else {
            tracker = nil
        }
        runner = LiveStreamRunner(label: "FaceAnalysis.liveStream", handler: handler)
    }

    deinit { runner.shutDown() }

    /// Hands a camera frame over and returns at once; its planes are copied first, so the camera
    /// may reuse its buffer. Timestamps must strictly increase.
    public func send(pixelBuffer: PixelBuffer, orientation: ImageOrientation = .up,
                     timestampInMilliseconds: Int) throws(FaceAnalysisError) {
        let frame = OwnedPixelBuffer(copying: pixelBuffer)
        try submit(timestampInMilliseconds) { () throws(VisionTaskError) in
            try frame.withPixelBuffer { buffer throws(VisionTaskError) in RGBImage(upright: buffer, orientation: orientation) }
        }
    }

    /// Hands a decoded frame over and returns at once.
    public func send(image: RGBImage, orientation: ImageOrientation = .up, timestampInMilliseconds: Int) throws(FaceAnalysisError) {
        try submit(timestampInMilliseconds) { () throws(VisionTaskError) in
            orientation == .up ? image : RGBImage(upright: image, orientation: orientation)
        }
    }

    /// Every result, in timestamp order (one consumer); finished at `close()`.
    public var results: AsyncStream<LiveAnalysisResult> { runner.results }
    /// Frames dropped so far because one was in flight.
    public var droppedFrameCount: Int { runner.counts.dropped }
    /// Results delivered so far.
    public var deliveredFrameCount: Int { runner.counts.delivered }

    /// Ends the stream: later `send` calls throw, and once this returns nothing more is delivered.
    public func close() { runner.close() }

    private func submit(_ timestamp: Int, upright: @escaping @Sendable () throws(VisionTaskError) -> RGBImage)
        throws(FaceAnalysisError) {
        do throws(VisionTaskError) {
            try runner.submit(timestamp) { [pipeline, tracker] in
                LiveAnalysisResult(timestampInMilliseconds: timestamp, result: Result { () throws(FaceAnalysisError) in
                    let image: RGBImage
                    do throws(VisionTaskError) { image = try upright() } catch { throw .landmarker(error) }
                    var analysed = try pipeline.analyze(image: image)
                    if let tracker {
                        try Self.assignTrackingIDs(&analysed, tracker: tracker, timestamp: timestamp)
                    }
                    return analysed
                })
            }
        } catch {
            throw .landmarker(error)
        }
    }

    /// The tracker's IDs for the analysed faces' detections (matched by their boxes).
    private static func assignTrackingIDs(_ result: inout FaceAnalysisResult, tracker: SharedFaceTracker,
                                          timestamp: Int) throws(FaceAnalysisError) {
        let detections = FaceDetectorResult(detections: result.faces.map(\.detection))
        let frame: TrackingFrame
        do throws(VisionTaskError) {
            frame = try tracker.update(detections, imageWidth: result.imageWidth, imageHeight: result.imageHeight,
                                       timestampInMilliseconds: timestamp)
        } catch { throw .landmarker(error) }
        for i in result.faces.indices {
            result.faces[i].trackingID = frame.faces.first { $0.detection.relativeBoundingBox == result.faces[i].detection.relativeBoundingBox }?
                .trackingID
        }
    }
}
