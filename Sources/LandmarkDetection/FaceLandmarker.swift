import BlazeFace
import BlazeImage
import BlazeModel
import BlazeTensor
import Foundation
import Synchronization
import VisionTasks

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Darwin
#endif

/// MediaPipe's Face Landmarker in pure Swift, stage for stage as face_landmarker_graph.cc and
/// face_landmarks_detector_graph.cc: the short-range face detector (the bundle's
/// face_detector.tflite is the same network), a rotated region per face, a 256x256 crop, the
/// landmark network (478 points and a face-presence logit), projection back to the image, and
/// the blendshape model on 146 of the points. In video and live-stream modes each face's next
/// region comes from its landmarks and the detector runs only while fewer than `numFaces` faces
/// are tracked.
///
/// MediaPipe's three verbs, one per running mode (`options.runningMode`, fixed at creation):
/// `detect(image:)`, `detect(videoFrame:timestampInMilliseconds:)` and
/// `detectAsync(image:timestampInMilliseconds:)`, whose results arrive in timestamp order
/// through `options.liveStreamHandler` and `liveStreamResults`. A verb of another mode throws
/// `VisionTaskError.wrongRunningMode`.
///
/// One landmarker serves one call at a time (calls from several threads are serialised).
public final class FaceLandmarker: VisionTask {
    /// The options in force (validated).
    public let options: FaceLandmarkerOptions
    private let detector: FaceDetector
    private let state: Mutex<LandmarkerState>
    /// With a pool of more than one thread: more lanes (networks with their own activations,
    /// sharing the first lane's weights), so faces run at the same time, one lane per thread.
    private let extraStates: [LandmarkerLane]
    /// The live-stream machinery; nil unless `options.runningMode` is `.liveStream`.
    public let liveStream: LiveStreamRunner<TimestampedResult<FaceLandmarkerResult>>?
    /// How frames arrive (`options.runningMode`).
    public var runningMode: RunningMode { options.runningMode }

    /// The weights files the landmarker reads (in `weightsFolder`, or where WeightsLocator looks).
    public static let landmarksWeightsFile = "face_landmarks_detector.bin"
    /// The blendshape model's weights file, read only with `outputFaceBlendshapes`.
    public static let blendshapesWeightsFile = "face_blendshapes.bin"

    /// Validates `options` and loads the face detector, the landmark network and, if asked, the
    /// blendshape model; throws for an option out of range or weights it cannot find or use.
    public init(options: FaceLandmarkerOptions = FaceLandmarkerOptions()) throws(VisionTaskError) {
        let options = try options.validated()
        func path(_ file: String) throws(VisionTaskError) -> String {
            if let folder = options.weightsFolder { return folder + "/" + file }
            return try WeightsLocator.path(for: file)
        }
        detector = try FaceDetector(options: FaceDetectorOptions(
            model: options.detectorModel, weightsPath: try path(options.detectorModel.weightsFile),
            minDetectionConfidence: options.minFaceDetectionConfidence, maxFaces: options.numFaces,
            // The detector runs alone, before the faces, on the same pool.
            threadPool: options.threadPool, minFaceSize: options.minFaceSize))
        let landmarks = try Self.load(try path(Self.landmarksWeightsFile))
        let blendshapes = options.outputFaceBlendshapes ? try Self.load(try path(Self.blendshapesWeightsFile)) : nil
        self.options = options
        let first = try LandmarkerState(landmarks: landmarks, blendshapes: blendshapes, options: options)
        var extra: [LandmarkerLane] = []
        for _ in 1..<Self.maxLanes(options.threadPool) {
            // The lanes share the first lane's packed weights (one copy in the shared cache).
            extra.append(LandmarkerLane(state: try first.sharingWeights()))
        }
        self.state = Mutex(first)
        extraStates = extra
        liveStream = LiveStreamRunner(for: options.runningMode, label: "LandmarkDetection.liveStream", handler: options.liveStreamHandler)
    }

    deinit { liveStream?.shutDown() }

    /// Faces run at the same time on `pool`: one per thread, at most 8.
    static func maxLanes(_ pool: ThreadPool) -> Int { min(pool.threads, 8) }

    /// How many faces of an image run at the same time (image mode): one per thread of the
    /// pool, at most 8.
    public var faceLanes: Int { 1 + extraStates.count }

    /// The pools its networks borrow: the detector's, then each lane's landmark and blendshape
    /// networks' (for tests: one pool serves a pipeline).
    package var threadPools: [ThreadPool] {
        func pools(_ s: borrowing Mutex<LandmarkerState>) -> [ThreadPool] {
            s.withLock { [$0.landmarkNetwork.threadPool] + ($0.blendshapeNetwork.map { [$0.threadPool] } ?? []) }
        }
        return [detector.networkThreadPool] + pools(state) + extraStates.flatMap { pools($0.state) }
    }

    private static func load(_ path: String) throws(VisionTaskError) -> ModelFile {
        do { return try WeightsFormat.read(contentsOf: path) } catch {
            if case .io = error { throw .weights(error) }
            throw .weightsFile(path: path, error)
        }
    }

    private static func faces(in lane: borrowing Mutex<LandmarkerState>, _ image: RGBImage, regions: [FaceRegion],
                              detections: [Detection]) -> Result<[FaceLandmarks?], VisionTaskError> {
        lane.withLock { s in
            Result { () throws(VisionTaskError) in try s.faces(image, regions: regions, detections: detections) }
        }
    }

    /// Finds faces in `image` and their landmarks (image mode).
    public func detect(image: RGBImage) throws(VisionTaskError) -> FaceLandmarkerResult {
        try options.runningMode.require(.image, for: "detect(image:)")
        return try landmarks(for: image, detections: try detections(for: image))
    }

    /// Image mode on detections already made (say, a `FaceDetector`'s, filtered by size): the
    /// landmarks of each detection's region; each face keeps its `detection`.
    public func landmarks(for image: RGBImage, detections: [Detection]) throws(VisionTaskError) -> FaceLandmarkerResult {
        var result = FaceLandmarkerResult(imageWidth: image.width, imageHeight: image.height)
        result.faces = try landmarks(for: image, detections: detections) { $0 }.compactMap { $0 }
        return result
    }

    /// `landmarks(for:detections:)`, with `finish` applied to each face on the lane that found
    /// it, as soon as it is found: work that follows the landmarks (the ML Kit view, writing
    /// the face out) then runs side by side as the networks do. One slot per detection, in
    /// order: nil where the region holds no face.
    public func landmarks<T: Sendable>(for image: RGBImage, detections: [Detection],
                                       finish: @Sendable (FaceLandmarks) -> T) throws(VisionTaskError) -> [T?] {
        try options.runningMode.require(.image, for: "landmarks(for:detections:)")
        let regions = detections.map { FaceRegion(detection: $0, imageWidth: image.width, imageHeight: image.height) }
        let lanes = min(regions.count, 1 + extraStates.count)
        guard lanes > 1 else {
            return try state.withLock { s throws(VisionTaskError) in
                try s.faces(image, regions: regions, detections: detections).map { $0.map(finish) }
            }
        }
        // One face per lane at a time, each lane on its own networks, taking the next face as
        // soon as it is done with one.
        let slots = options.threadPool.map(count: regions.count, lanes: lanes) { i, lane in
            let (r, d) = ([regions[i]], [detections[i]])
            return (lane == 0 ? Self.faces(in: state, image, regions: r, detections: d)
                : Self.faces(in: extraStates[lane - 1].state, image, regions: r, detections: d)).map { $0[0].map(finish) }
        }
        var result: [T?] = []
        for slot in slots { result.append(try slot.get()) }
        return result
    }

    /// Video mode: landmarks for one frame, with regions carried over from the previous frame's
    /// landmarks; the detector runs only while fewer than `numFaces` faces are tracked, and its
    /// regions replace tracked ones they overlap (IoU above `minTrackingConfidence`).
    /// Timestamps must strictly increase.
    public func detect(videoFrame image: RGBImage, timestampInMilliseconds t: Int) throws(VisionTaskError) -> FaceLandmarkerResult {
        try options.runningMode.require(.video, for: "detect(videoFrame:timestampInMilliseconds:)")
        try state.withLock { s throws(VisionTaskError) in try s.timestamps.admit(t) }
        return try track(image)
    }

    /// Live-stream mode: hands a decoded frame over and returns at once; the frame is tracked
    /// as in video mode on the stream's serial queue, and its result (or error) delivered in
    /// timestamp order. A frame that comes while one is in flight is dropped (MediaPipe's flow
    /// limiter). Timestamps must strictly increase.
    public func detectAsync(image: RGBImage, timestampInMilliseconds t: Int) throws(VisionTaskError) {
        try submitToLiveStream("detectAsync(image:timestampInMilliseconds:)", timestamp: t, image: image) { [self] picture throws(VisionTaskError) in try track(picture) }
    }

    /// Live-stream mode on a camera frame, turned upright for `orientation`: its planes are
    /// copied before this returns (not converted), so the camera may reuse its memory at once.
    public func detectAsync(pixelBuffer: PixelBuffer, orientation: ImageOrientation = .up,
                            timestampInMilliseconds t: Int) throws(VisionTaskError) {
        try submitToLiveStream("detectAsync(pixelBuffer:orientation:timestampInMilliseconds:)", timestamp: t, pixelBuffer: pixelBuffer,
                               orientation: orientation) { [self] picture throws(VisionTaskError) in try track(picture) }
    }

    /// Video and live-stream modes: one frame's landmarks, its timestamp already admitted.
    private func track(_ image: RGBImage) throws(VisionTaskError) -> FaceLandmarkerResult {
        let tracked = state.withLock { $0.trackedRegions }
        var regions = tracked
        if regions.count < options.numFaces {
            regions = RegionAssociation.merge(tracked: tracked, detected: try self.regions(for: image),
                                              minSimilarity: options.minTrackingConfidence)
        }
        regions = Array(regions.prefix(options.numFaces))
        return try state.withLock { s throws(VisionTaskError) in
            let result = try s.landmarks(image, regions: regions)
            s.trackedRegions = result.faces.compactMap(\.nextRegion)
            return result
        }
    }

    /// Forgets the faces tracked in video or live-stream mode (the next frame runs the detector);
    /// in video mode the next timestamp may start anew.
    public func resetTracking() {
        state.withLock { $0.trackedRegions = []; $0.timestamps.reset() }
    }

    // MARK: Stages, for tests and tools (package)

    /// Stage 1a: the face detector's detections, best first, at most `numFaces`.
    package func detections(for image: RGBImage) throws(VisionTaskError) -> [Detection] {
        try detectorResult(for: image).detections
    }

    /// The face detector's result for `image`: its detections, and the faces `minFaceSize` left out.
    package func detectorResult(for image: RGBImage) throws(VisionTaskError) -> FaceDetectorResult {
        try detector.detect(image: image)
    }

    /// Stage 1: the face detector's detections and the landmark region of each (EXPANDED_FACE_RECTS).
    package func regions(for image: RGBImage) throws(VisionTaskError) -> [FaceRegion] {
        try detections(for: image).map {
            FaceRegion(detection: $0, imageWidth: image.width, imageHeight: image.height)
        }
    }

    /// Stage 2: the landmark network's 1x256x256x3 input for `region` of `image`.
    package func inputTensor(for image: RGBImage, region: FaceRegion) throws(VisionTaskError) -> [Float] {
        try state.withLock { s throws(VisionTaskError) in
            try s.crop(image, region: region)
            return Array(s.landmarkNetwork.input())
        }
    }

    /// Stage 3: the landmark network's raw outputs for an input tensor: 1434 landmark values
    /// (478 x, y, z in crop pixels) and the face-presence logit.
    package func rawOutputs(for tensor: [Float]) throws(VisionTaskError) -> (landmarks: [Float], presenceLogit: Float) {
        try state.withLock { s throws(VisionTaskError) in
            let input = s.landmarkNetwork.input()
            guard tensor.count == input.count else {
                throw .invalidOption(name: "tensor", value: "\(tensor.count) values", allowed: "\(input.count) values")
            }
            _ = input.update(fromContentsOf: tensor)
            s.landmarkNetwork.run()
            return (Array(s.landmarkNetwork.output(s.landmarksIndex)), s.landmarkNetwork.output(s.presenceIndex)[0])
        }
    }

    /// Stage 4: the 52 blendshapes for 478 landmarks normalized to an image of this size.
    package func blendshapes(for landmarks: [SIMD3<Float>], imageWidth: Int, imageHeight: Int) throws(VisionTaskError) -> [Blendshape] {
        guard landmarks.count == LandmarkDecoding.count else {
            throw .invalidOption(name: "landmarks", value: "\(landmarks.count) points", allowed: "\(LandmarkDecoding.count) points")
        }
        return try state.withLock { s throws(VisionTaskError) in
            guard s.blendshapeNetwork != nil else {
                throw .invalidOption(name: "outputFaceBlendshapes", value: "false", allowed: "true to compute blendshapes")
            }
            return s.blendshapes(landmarks, imageWidth: imageWidth, imageHeight: imageHeight)
        }
    }

    /// Runs the landmark network once on its current input (for benchmarks).
    package func runLandmarkNetwork() { state.withLock { $0.landmarkNetwork.run() } }

    /// Runs the blendshape network once on its current input (for benchmarks).
    package func runBlendshapeNetwork() { state.withLock { $0.blendshapeNetwork?.run() } }

    /// Per-layer median times of the blendshape network (empty without blendshapes).
    package func profileBlendshapeLayers(iterations: Int) -> [(op: String, shape: String, medianSeconds: Double, macs: Int)] {
        state.withLock { $0.blendshapeNetwork?.profileLayers(iterations: iterations).map { ($0.node.op, "\($0.shape)", $0.medianSeconds, $0.macs) } ?? [] }
    }

    /// Per-layer median times of the landmark network (see `Network.profileLayers`).
    package func profileLandmarkLayers(iterations: Int) -> [(op: String, shape: String, medianSeconds: Double, macs: Int)] {
        state.withLock { $0.landmarkNetwork.profileLayers(iterations: iterations).map { ($0.node.op, "\($0.shape)", $0.medianSeconds, $0.macs) } }
    }
}

/// A second (third, ...) set of networks for faces run at the same time.
final class LandmarkerLane: Sendable {
    let state: Mutex<LandmarkerState>
    init(state: sending LandmarkerState) { self.state = Mutex(state) }
}

/// The landmarker's networks and what they keep between calls.
struct LandmarkerState {
    let landmarkNetwork: Network
    let landmarksIndex: Int, presenceIndex: Int
    let blendshapeNetwork: Network?
    let cropper = ImageToTensor(width: 256, height: 256, valueRange: 0...1, keepAspectRatio: false, borderMode: .replicate)
    let minPresence: Float
    var trackedRegions: [FaceRegion] = []
    var timestamps = TimestampGate()

    init(landmarks: ModelFile, blendshapes: ModelFile?, options: FaceLandmarkerOptions) throws(VisionTaskError) {
        // A lane's networks borrow the pool too: a face run alone (video, one face) shares its
        // layers over it; faces run side by side as lanes of it run their networks inline.
        let threads = Network.Options(threadPool: options.threadPool)
        do { landmarkNetwork = try Network(model: landmarks, options: threads) } catch { throw .weights(error) }
        guard landmarkNetwork.inputShapes == [Shape([1, 256, 256, 3])],
              let l = landmarkNetwork.outputShapes.firstIndex(of: Shape([1, 1, 1, 3 * LandmarkDecoding.count])),
              let p = landmarkNetwork.outputShapes.firstIndex(of: Shape([1, 1, 1, 1])) else {
            throw .weights(.unexpectedModel("input \(landmarkNetwork.inputShapes), outputs \(landmarkNetwork.outputShapes): expected the face landmark network (1x256x256x3 in; 1x1x1x1434 and 1x1x1x1 among its outputs)"))
        }
        (landmarksIndex, presenceIndex) = (l, p)
        if let blendshapes {
            let network: Network
            do { network = try Network(model: blendshapes, options: threads) } catch { throw .weights(error) }
            guard network.inputShapes == [Shape([1, BlendshapeModel.landmarkSubset.count, 2])],
                  network.outputShapes.first?.count == BlendshapeModel.names.count else {
                throw .weights(.unexpectedModel("input \(network.inputShapes), outputs \(network.outputShapes): expected the blendshape model (1x146x2 in, 52 out)"))
            }
            blendshapeNetwork = network
        } else {
            blendshapeNetwork = nil
        }
        minPresence = options.minFacePresenceConfidence
    }

    private init(landmarkNetwork: Network, landmarksIndex: Int, presenceIndex: Int, blendshapeNetwork: Network?, minPresence: Float) {
        (self.landmarkNetwork, self.landmarksIndex, self.presenceIndex) = (landmarkNetwork, landmarksIndex, presenceIndex)
        (self.blendshapeNetwork, self.minPresence) = (blendshapeNetwork, minPresence)
    }

    /// A fresh state (nothing tracked) whose networks share this one's weights.
    func sharingWeights() throws(VisionTaskError) -> sending LandmarkerState {
        do {
            return LandmarkerState(landmarkNetwork: try landmarkNetwork.sharingWeights(), landmarksIndex: landmarksIndex,
                                   presenceIndex: presenceIndex, blendshapeNetwork: try blendshapeNetwork?.sharingWeights(),
                                   minPresence: minPresence)
        } catch { throw .weights(error) }
    }

    func crop(_ image: RGBImage, region: FaceRegion) throws(VisionTaskError) {
        guard region.isUsable else { throw .invalidRegion("\(region) must be finite with a positive size") }
        _ = try cropper.convert(image, region: region.rotatedRect(imageWidth: image.width, imageHeight: image.height),
                                into: landmarkNetwork.input())
    }

    /// Landmarks (and blendshapes) for each region; regions without a face are skipped. All
    /// landmark networks run first, then all blendshape networks, so each network's weights stay
    /// in cache from face to face.
    func landmarks(_ image: RGBImage, regions: [FaceRegion], detections: [Detection] = []) throws(VisionTaskError) -> FaceLandmarkerResult {
        FaceLandmarkerResult(faces: try faces(image, regions: regions, detections: detections).compactMap { $0 },
                             imageWidth: image.width, imageHeight: image.height)
    }

    /// One slot per region: its face, or nil when the region is unusable or holds no face.
    func faces(_ image: RGBImage, regions: [FaceRegion], detections: [Detection]) throws(VisionTaskError) -> [FaceLandmarks?] {
        var faces = [FaceLandmarks?](repeating: nil, count: regions.count)
        var points: [SIMD3<Float>] = []
        for (index, region) in regions.enumerated() where region.isUsable {
            try crop(image, region: region)
            landmarkNetwork.run()
            // TensorsToFloatsCalculator's SIGMOID, then ThresholdingCalculator (present when >=).
            let presence = 1 / (1 + expf(-landmarkNetwork.output(presenceIndex)[0]))
            guard presence >= minPresence else { continue }
            LandmarkDecoding.project(raw: landmarkNetwork.output(landmarksIndex), region: region, into: &points)
            guard points.count == LandmarkDecoding.count, points.allSatisfy({ $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }) else { continue }
            faces[index] = FaceLandmarks(
                landmarks: points, blendshapes: [], presence: presence, region: region,
                nextRegion: FaceRegion(landmarks: points, imageWidth: image.width, imageHeight: image.height),
                detection: index < detections.count ? detections[index] : nil)
        }
        if blendshapeNetwork != nil {
            for i in faces.indices {
                guard let points = faces[i]?.landmarks else { continue }
                faces[i]?.blendshapes = blendshapes(points, imageWidth: image.width, imageHeight: image.height)
            }
        }
        return faces
    }

    func blendshapes(_ landmarks: [SIMD3<Float>], imageWidth: Int, imageHeight: Int) -> [Blendshape] {
        guard let network = blendshapeNetwork else { return [] }
        BlendshapeModel.fillInput(network.input(), landmarks: landmarks, imageWidth: imageWidth, imageHeight: imageHeight)
        network.run()
        let scores = network.output(0)
        return BlendshapeModel.names.enumerated().map { Blendshape(name: $1, score: scores[$0]) }
    }
}

extension FaceLandmarker {
    /// Image mode on any input (an `RGBImage` or a camera `PixelBuffer`) turned upright for
    /// `orientation`; results in the upright picture's coordinates.
    public func detect(pixels: some SampledPixels, orientation: ImageOrientation) throws(VisionTaskError) -> FaceLandmarkerResult {
        try detect(image: RGBImage(upright: pixels, orientation: orientation))
    }

    /// Video mode on any input turned upright for `orientation`; timestamps must strictly increase.
    public func detect(videoFrame pixels: some SampledPixels, orientation: ImageOrientation,
                       timestampInMilliseconds t: Int) throws(VisionTaskError) -> FaceLandmarkerResult {
        try detect(videoFrame: RGBImage(upright: pixels, orientation: orientation), timestampInMilliseconds: t)
    }
}
