import BlazeImage
import VisionTasks

/// Many regions of one picture searched side by side: whole frames, tiles and mosaics of up to
/// four tracked faces, each a lane of a pool on a detector of its own (the lanes sharing one copy
/// of the weights), then a second look at the tiles' weak faces; the faces merged once by the
/// detector's suppression. The search `FaceDetector.detect(image:searchArea: .tiles(...))` runs on one detector
/// and `FaceRedactor` runs on every frame, written once.
///
/// ```swift
/// let search = try FaceSearch(detectorOptions: FaceDetectorOptions(), threadPool: .shared)
/// let tiling = TilingOptions.automatic(width: photo.width, height: photo.height, model: .shortRange)!
/// let found = try search.faces(in: photo, searches: tiling.searches(width: photo.width, height: photo.height),
///                              secondLookMinScore: tiling.minTileConfidence)
/// let faces = search.merge(found.faces, width: photo.width, height: photo.height)
/// ```
///
/// Calls from several threads are serialised lane by lane; results do not depend on the pool.
public final class FaceSearch: Sendable {
    /// One inference's worth of searching.
    public enum Search: Sendable, Equatable {
        /// A region (nil: the whole picture) letterboxed into the input on its own: its faces
        /// scoring `minScore` or more (above the detector's threshold), and its candidates for a
        /// second look from `candidateScore` (nil: none) up to `minScore`.
        case region(RegionOfInterest?, minScore: Float, candidateScore: Float? = nil)
        /// Up to `FaceDetector.maxSearchRegions` regions (pixels, may be rotated) in the quadrants
        /// of one input (`detect(image:searchArea: .regions(...))`): their faces at the
        /// detector's threshold.
        case mosaic([RotatedRect])
    }

    /// The options every lane's detector runs with (image mode, no face cap, the calling lane's thread).
    public let detectorOptions: FaceDetectorOptions
    /// The pool whose lanes search side by side.
    public let threadPool: ThreadPool
    private let lanes: [FaceDetector]

    /// A search with one lane per thread of `threadPool`. `detectorOptions`' running mode,
    /// `maxFaces` (the merged faces are never capped here), pool and handler are the search's to set.
    public init(detectorOptions: FaceDetectorOptions = FaceDetectorOptions(), threadPool: ThreadPool = .shared) throws(VisionTaskError) {
        var options = detectorOptions
        (options.runningMode, options.maxFaces, options.threadPool, options.liveStreamHandler) = (.image, nil, .inline, nil)
        let first = try FaceDetector(options: options)
        var lanes = [first]
        for _ in 1..<max(1, threadPool.threads) { lanes.append(try first.sharingWeights()) }
        (self.detectorOptions, self.threadPool, self.lanes) = (first.options, threadPool, lanes)
    }

    /// A search on one detector as it is (its own options and mode), on the calling thread.
    init(detector: FaceDetector) {
        (detectorOptions, threadPool, lanes) = (detector.options, .inline, [detector])
    }

    /// The faces of `searches` in `pixels`, unmerged, in the picture's normalized coordinates,
    /// and the inferences they took: every search as a lane of the pool (the results in the
    /// order of `searches`, whichever lane ran which), then a second look at the candidates
    /// (close-ups of one and a half times their boxes, four to an inference), each kept when its
    /// close-up finds it at `secondLookMinScore`.
    public func faces<P: SampledPixels & Sendable>(in pixels: P, searches: [Search], secondLookMinScore: Float)
        throws(VisionTaskError) -> (faces: [RawDetection], inferences: Int) {
        let found = try run(searches.count) { i, detector throws(VisionTaskError) in try Self.detections(pixels, searches[i], detector) }
        var (faces, candidates): ([RawDetection], [RawDetection]) = ([], [])
        for f in found {
            faces += f.faces
            candidates += f.candidates
        }
        let looks = FaceDetector.secondLooks(at: candidates, besides: faces, width: pixels.width, height: pixels.height,
                                             minSuppressionThreshold: detectorOptions.minSuppressionThreshold)
        let groups = stride(from: 0, to: looks.count, by: FaceDetector.maxSearchRegions).map {
            Array(looks[$0..<min($0 + FaceDetector.maxSearchRegions, looks.count)])
        }
        faces += try run(groups.count) { i, detector throws(VisionTaskError) in
            FaceDetector.secondLookFaces(try detector.detect(sampled: pixels, searchRegions: groups[i].map(\.region)),
                                         candidates: groups[i].map(\.candidate), minScore: secondLookMinScore)
        }.flatMap { $0 }
        return (faces, searches.count + groups.count)
    }

    /// Faces from anywhere (these searches', another detector's) as one result for a `width` x
    /// `height` picture: the detector's weighted suppression, then SAHI's containment merge, then
    /// its last step (NaN check, `minFaceSize`).
    public func merge(_ faces: [RawDetection], width: Int, height: Int) -> FaceDetectorResult {
        lanes[0].merge(faces, width: width, height: height)
    }

    /// `work(i, detector)` for every i in 0..<count as lanes of the pool, each lane on its own
    /// detector taking the next i not taken yet (searches differ in cost: a mosaic of four, a
    /// downscaled whole frame, a tile); the results in the order of i.
    private func run<T: Sendable>(_ count: Int, _ work: (Int, FaceDetector) throws(VisionTaskError) -> T) throws(VisionTaskError) -> [T] {
        let lanes = lanes
        let found = threadPool.map(count: count, lanes: lanes.count) { i, lane in
            Result { () throws(VisionTaskError) in try work(i, lanes[lane]) }
        }
        var out: [T] = []
        for r in found { out.append(try r.get()) }
        return out
    }

    /// One search's faces and candidates, unmerged.
    private static func detections<P: SampledPixels & Sendable>(_ pixels: P, _ search: Search, _ detector: FaceDetector)
        throws(VisionTaskError) -> (faces: [RawDetection], candidates: [RawDetection]) {
        switch search {
        case let .region(region, minScore, candidateScore):
            return try detector.searchDetections(sampled: pixels, region: region, minScore: minScore, candidateScore: candidateScore)
        case .mosaic(let group):
            return (try detector.detect(sampled: pixels, searchRegions: group).flatMap { result in
                result.detections.map { RawDetection(score: $0.score, box: $0.relativeBoundingBox, keypoints: $0.keypointList) }
            }, [])
        }
    }
}
