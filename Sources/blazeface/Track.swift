import BlazeImageIO
import BlazeVideoIO
import ArgumentParser
import BlazeFace
import BlazeImage
import FaceRedaction
import FaceTracking
import FileRedaction
import Foundation
import MediaFiles

struct Track: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Detect and track faces through a video: one JSON line per frame, with tracking IDs.",
        discussion: "INPUT is recognised by its content: a video FFmpeg reads (MP4, MOV, MKV, WebM, ...; phone videos turned upright), "
            + "a YUV4MPEG2 stream (a .y4m file, or - for stdin, as `ffmpeg -f yuv4mpegpipe` writes) "
            + "or a folder of numbered PNG images.")

    @Argument(help: "A video, a .y4m file, - for stdin, or a folder of numbered PNGs.")
    var input: String

    @Option(help: "Run the full detector every K frames; in between, search only around tracked faces (1...1000; 1 is every frame).")
    var every: Int = 1

    @Option(help: "Write the frames with boxes and IDs drawn: a video (.y4m, or .mp4, .mov, .mkv, .webm with the input's audio), or a folder for numbered PNGs.")
    var annotate: String?

    @Option(help: "The model: short (ML Kit's fast) or full (accurate).")
    var model: ModelChoice = .short

    @Option(help: "Frames per second of a PNG folder (for timestamps).")
    var fps: Double = 30

    @Option(help: "Frames a face may be missing and keep its ID (0...1000).")
    var maxMissing: Int = 3

    @Flag(inversion: .prefixedNo, help: "Give faces tracking IDs (ML Kit's isTrackingEnabled).")
    var tracking = true

    @Flag(help: "Smooth boxes and keypoints with a one-euro filter.")
    var smooth = false

    @Option(help: "Drop faces scoring below this (0...1; default: 0.5 for short, 0.6 for full, as MediaPipe).")
    var minDetectionConfidence: Float?

    @Option(help: "Report at most this many faces per frame (at least 1; default: no limit).")
    var maxFaces: Int?

    @Option(help: "A weights file (default: the bundled weights of --model).")
    var weights: String?

    @Option(help: "What is searched: mediapipe (MediaPipe's detector, tracked) or redact (what `blazeface redact` masks on each frame, live: every scale, BlazeFace and CenterFace, lingering and hidden faces; one line per frame with its masks in normalized coordinates; the look-behind of a file's redaction adds masks before a face was found, see redact --preview).")
    var search: PictureFaceSearch.Kind = .mediapipe

    @Flag(help: "At the end, print frames, full detections, region searches, fallbacks and time on stderr.")
    var stats = false

    @Flag(help: "Instead of JSON Lines: run every frame and every K-th frame on the same frames and print one JSON summary of speed and agreement.")
    var compare = false

    @Option(help: "With --compare: alternate the two runs this many times and keep each one's fastest.")
    var rounds: Int = 3

    @Option(help: "How each frame's pixels must be turned to be upright (UIImage's names); frames are turned upright first, and results are in the upright frames' coordinates.")
    var orientation: ImageOrientation = .up

    func validate() throws {
        try checkRange(every, 1...1000, "--every")
        guard fps > 0, fps <= 1000, fps.isFinite else { throw ValidationError("--fps must be in (0, 1000], not \(fps)") }
        try checkRange(rounds, 1...100, "--rounds")
        try checkUnitInterval(minDetectionConfidence, "--min-detection-confidence")
        try checkPositive(maxFaces, "--max-faces")
        try checkRange(maxMissing, 0...1000, "--max-missing")
        if compare, annotate != nil { throw ValidationError("--compare and --annotate do not go together") }
        if search == .redact, compare || every != 1 || smooth || maxFaces != nil || !tracking {
            throw ValidationError("--search redact takes none of --compare, --every, --smooth, --max-faces, --no-tracking")
        }
    }

    func makeTracker(every: Int) throws -> VideoFaceTracker {
        var trackingOptions = FaceTrackingOptions(trackingEnabled: tracking, maxMissingFrames: maxMissing,
                                                  smoothing: smooth ? OneEuroParameters() : nil, detectionInterval: every)
        trackingOptions.trackingEnabled = tracking
        do {
            return try VideoFaceTracker(options: VideoFaceTrackerOptions(
                detectorOptions: FaceDetectorOptions(model: model.detectorModel, weightsPath: weights,
                                                     minDetectionConfidence: minDetectionConfidence, maxFaces: maxFaces),
                trackingOptions: trackingOptions))
        } catch { throw ToolError(error.description) }
    }

    func run() throws {
        if let annotate { try refuseOverwriting(input: input, with: annotate) }
        let kind = try MediaKind.of(input)
        if kind == .photo { throw ToolError("\(input): a photo, not a video (use detect)") }
        let source: any RGBFrameSource
        do { source = try RGBFrames.open(input, kind: kind, fps: fps) } catch let e as ImageError { throw ToolError(e.description.hasPrefix("\(input): ") ? e.description : "\(input): \(e.description)") }
        if compare { return try runComparison(source) }
        if search == .redact { return try runRedactorSearch(source) }
        let tracker = try makeTracker(every: every)
        let clock = ContinuousClock()
        var busy = Duration.zero
        try forEachFrame(of: source) { image, timestamp, index in
            let start = clock.now
            let frame = try tracker.track(videoFrame: image, timestampInMilliseconds: timestamp)
            busy += clock.now - start
            return (TrackingJSON.line(frame: index, frame), { frame.draw(on: &$0) })
        }
        if stats {
            let s = tracker.statistics
            printError("\(s.frames) frames, \(s.fullDetections) full detections, \(s.regionSearches) region searches, "
                       + "\(s.fallbacks) fallbacks, \(busy) detecting and tracking")
        }
    }
}

extension Track {
    /// `--compare`: the video held in memory, tracked detecting on every frame and every
    /// `--every`-th, `--rounds` times (`TrackingComparison`); one JSON line.
    func runComparison(_ source: any RGBFrameSource) throws {
        var frames: [(image: RGBImage, timestampInMilliseconds: Int)] = []
        while let (image, timestamp) = try source.next() {
            frames.append((image, timestamp))
            guard frames.count <= 3000 else { throw ToolError("--compare holds the video in memory: at most 3000 frames") }
        }
        do {
            print(try TrackingComparison(frames: frames, every: every, rounds: rounds, makeTracker: makeTracker).jsonLine(model: model.canonical))
        } catch let error as ToolError { throw error } catch { throw ToolError("\(error)") }
    }

    /// `--search redact`: the redactor's masks on each frame (what `redact` masks, live: without
    /// the look-behind), one JSON line a frame; `--annotate` draws them as outlines.
    func runRedactorSearch(_ source: any RGBFrameSource) throws {
        let redactor: FaceRedactor
        do {
            redactor = try FaceRedactor(options: .init(detectorOptions: FaceDetectorOptions(model: model.detectorModel, weightsPath: weights,
                                                                                            minDetectionConfidence: minDetectionConfidence)))
        } catch { throw ToolError(error.description) }
        var last = Int.min
        try forEachFrame(of: source) { image, timestamp, index in
            // The redactor needs strictly increasing times (as `redact` does).
            last = max(timestamp, last &+ 1)
            let masks = try redactor.masks(inVideoFrame: image, timestampInMilliseconds: last)
            return (MasksJSON.searchLine(frame: index, timestampMs: timestamp, masks: masks),
                    { FaceMask.apply(to: &$0, boxes: masks.map(\.box), options: RedactionOptions(mode: .outline)) })
        }
    }
}

extension Track {
    /// Each frame of `source` turned upright, through `body` (its JSON line, and how to draw it
    /// on the frame for `--annotate`): the line printed, the drawn frame written; on an error the
    /// annotated output is cancelled and the error names the frame.
    func forEachFrame(of source: any RGBFrameSource,
                      _ body: (RGBImage, Int, Int) throws -> (line: String, draw: (inout RGBImage) -> Void)) throws {
        var sink: RGBFrameSink?
        var index = 0
        do {
            while let (stored, timestamp) = try source.next() {
                let image = orientation == .up ? stored : RGBImage(upright: stored, orientation: orientation)
                let (line, draw) = try body(image, timestamp, index)
                print(line)
                if let annotate {
                    if sink == nil { sink = try RGBFrameSink(path: annotate, width: image.width, height: image.height, source: source) }
                    var canvas = image
                    draw(&canvas)
                    try sink?.write(canvas, index: index, timestampMs: timestamp)
                }
                index += 1
            }
            try sink?.finish()
        } catch {
            sink?.cancel()
            throw ToolError("\(input == "-" ? "<stdin>" : input): frame \(index): \(error)")
        }
    }
}
