import BlazeImageIO
import BlazeVideoIO
import ArgumentParser
import BlazeFace
import BlazeImage
import MeshAnalysis
import FileRedaction
import Foundation
import MediaFiles

/// `blazeface analyze`: ML Kit's face detector view of images (FaceAnalysisPipeline), one JSON
/// line per image; input handling and error records as `detect`.
struct Analyze: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "ML Kit-style face analysis (landmarks, contours, head angles, smile, eyes open; MediaPipe's mesh) of images; one JSON line per image.",
        discussion: "A video named on the command line (MP4, MOV, MKV, WebM, ... or Y4M; recognised by its content) gives one line "
            + "per frame (or per --every frames), each frame analysed as a picture, with its frame index and timestamp: "
            + "{\"image\":PATH,\"frame\":N,\"timestampMs\":T,\"width\":W,\"height\":H,\"faces\":[...]}.")

    @Argument(help: "Images (PNG, JPEG, HEIC, AVIF, WebP, TIFF, BMP, PPM, PGM; sniffed), videos, folders (searched recursively, sorted), or - for stdin.")
    var images: [String] = []

    @Flag(help: "The 10 ML Kit landmarks.")
    var landmarks = false

    @Flag(help: "The 15 ML Kit contours, for the most prominent face (the largest), as ML Kit gives them.")
    var contours = false

    @Flag(help: "With --contours: contours for every face, not only the most prominent one.")
    var allContours = false

    @Flag(help: "smilingProbability, leftEyeOpenProbability, rightEyeOpenProbability (runs the blendshape network).")
    var classify = false

    @Flag(help: "MediaPipe's raw outputs too: the 478-point mesh, the 52 blendshapes, the 4x4 transformation matrix.")
    var mesh = false

    @Option(help: "Write a copy of the image with the contours and landmarks drawn (one image; needs --landmarks or --contours).")
    var annotate: String?

    @Option(help: "The model: short (ML Kit's fast performance mode) or full (accurate, for small and distant faces) (default: short).")
    var model: ModelChoice?

    /// The old name of --model (ML Kit's fast or accurate), hidden, kept for a release.
    @Option(help: .hidden)
    var performanceMode: PerformanceChoice?

    @Option(help: "Drop faces whose detection box is narrower than this fraction of the image width (0...1, ML Kit's minFaceSize; 0 keeps every face).")
    var minFaceSize: Float = 0.1

    @Option(help: "At most this many faces per image (1...64), best first (default: 4).")
    var maxFaces: Int?

    /// The old name of --max-faces, hidden, kept for a release.
    @Option(help: .hidden)
    var numFaces: Int?

    @Option(help: "Drop faces scoring below this (0...1).")
    var minDetectionConfidence: Float = 0.5

    @Option(help: "Threads: 1...64, or auto (default: the cores this process may use, at most 4). The detector's layers are shared over them, then the faces run that many at a time (at most 8), each on its own networks.")
    var threads: ThreadCount?

    /// The old name of --threads (faces at a time), hidden, kept for a release.
    @Option(help: .hidden)
    var faceThreads: ThreadCount?

    /// --threads, or its old name --face-threads; auto by default.
    var threadCount: ThreadCount { get throws { try aliased(threads, faceThreads, "--threads", "--face-threads") ?? ThreadCount(argument: "auto")! } }

    @Option(help: "Videos: analyse every K-th frame only (1...1000; 1 is every frame).")
    var every: Int = 1

    @Flag(help: "Ignore JPEG EXIF orientation (by default it is applied).")
    var noExifOrientation = false

    @Option(help: "How the pixels must be turned to be upright (UIImage's names). As ML Kit reports them, results are in the upright picture's coordinates.")
    var orientation: ImageOrientation = .up

    @OptionGroup var batch: ShardOptions

    /// --model, or its old name --performance-mode.
    var detectorModel: FaceDetectorModel {
        get throws {
            let old = performanceMode.map { $0 == .fast ? ModelChoice.short : .full }
            return try aliased(model, old, "--model", "--performance-mode")?.detectorModel ?? .shortRange
        }
    }

    /// --max-faces, or its old name --num-faces.
    var faceLimit: Int { get throws { try aliased(maxFaces, numFaces, "--max-faces", "--num-faces") ?? 4 } }

    func validate() throws {
        if images.isEmpty, batch.inputList == nil { throw ValidationError("Missing expected argument '<images> ...'") }
        if annotate != nil {
            guard images.count == 1 else { throw ValidationError("--annotate takes exactly one image") }
            guard landmarks || contours else { throw ValidationError("--annotate draws landmarks and contours: add --landmarks or --contours") }
        }
        if images.filter({ $0 == "-" }).count > 1 { throw ValidationError("- (stdin) can be given once") }
        _ = try detectorModel
        try checkRange(maxFaces, 1...64, "--max-faces")
        try checkRange(numFaces, 1...64, "--num-faces")
        _ = try faceLimit
        try checkUnitInterval(minFaceSize, "--min-face-size")
        try checkUnitInterval(minDetectionConfidence, "--min-detection-confidence")
        try checkRange(every, 1...1000, "--every")
        _ = try threadCount
        if annotate != nil, let path = images.first, InputList.Item.file(path).isVideo {
            throw ValidationError("--annotate takes one picture, not a video")
        }
    }

    func run() throws {
        let options = FaceAnalyzerOptions(
            performanceMode: try detectorModel == .shortRange ? .fast : .accurate, landmarkMode: landmarks ? .all : .none, contourMode: contours ? .all : .none,
            classificationMode: classify ? .all : .none, meshMode: mesh ? .all : .none, minFaceSize: minFaceSize,
            contourFaces: allContours ? .all : .mostProminent)
        let pipeline: FaceAnalysisPipeline
        do {
            pipeline = try FaceAnalysisPipeline(options: .init(analyzerOptions: options, numFaces: try faceLimit,
                                                               minFaceDetectionConfidence: minDetectionConfidence, threadPool: try threadCount.makePool()))
        } catch let error as VisionTaskError { throw ToolError(error.description) }
        let limit = try faceLimit
        let items = try InputList.sharded(images, options: batch).items
        let json = batch.progress == .json
        let stdin = InputList.standardInput(for: items)
        var failures = 0
        for (index, item) in items.enumerated() {
            let name = item.name
            if case .file(let path) = item, item.isVideo {
                let ok = analyzeVideo(path, pipeline: pipeline)
                if !ok { failures += 1 }
                if json { printLine(DetectionJSON.progressLine(input: name, faces: nil, error: ok ? nil : "\(path): not analysed to its end", index: index + 1, of: items.count)) }
                fflush(nil)
                continue
            }
            do {
                var image = try item.picture(upright: !noExifOrientation, standardInput: stdin)
                if orientation != .up {
                    image = RGBImage(upright: image, orientation: orientation)
                }
                let (result, line) = try Self.analyzedLine(image: name, image, pipeline: pipeline)
                print(line)
                if json { printLine(DetectionJSON.progressLine(input: name, faces: result.faces.count, error: nil, index: index + 1, of: items.count)) }
                if result.faces.count < limit {
                    let dropped = min(result.narrowerThanMinFaceSize, limit - result.faces.count)
                    if dropped > 0 {
                        printError("\(name): \(dropped) smaller face(s) found and not analysed: narrower than --min-face-size \(minFaceSize) "
                                   + "of the picture's width; --min-face-size 0 keeps them")
                    }
                }
                if let annotate {
                    var canvas = image
                    for face in result.faces { face.analysis.draw(on: &canvas) }
                    try writeAnnotation(canvas, to: annotate)
                }
            } catch let error as ImageError {
                let message = item.message(for: error)
                print(DetectionJSON.errorLine(image: name, message: message)); printError(message); failures += 1
                if json { printLine(DetectionJSON.progressLine(input: name, faces: nil, error: message, index: index + 1, of: items.count)) }
            } catch let error as VisionTaskError {
                let message = "\(name): \(error.description)"
                print(DetectionJSON.errorLine(image: name, message: message)); printError(message); failures += 1
                if json { printLine(DetectionJSON.progressLine(input: name, faces: nil, error: message, index: index + 1, of: items.count)) }
            }
            fflush(nil)
        }
        try BatchExit.finish(refused: failures)
    }

    /// Analyses every `--every`-th frame of the video at `path` as a picture, one line per frame
    /// (after `orientation`, as pictures); false, with an error record, if it stopped short.
    private func analyzeVideo(_ path: String, pipeline: FaceAnalysisPipeline) -> Bool {
        VideoMedia.eachFrame(of: path, every: every) { frame, index, timestamp in
            let image = orientation != .up ? RGBImage(upright: frame, orientation: orientation) : frame
            let (result, objects) = try pipeline.analyze(image: image, eachFace: FaceAnalysisJSON.faceObject)
            print(FaceAnalysisJSON.line(image: path, frame: (index, timestamp), width: result.imageWidth, height: result.imageHeight, faceObjects: objects))
        }
    }

    /// Analyses `image` and writes its line. Each face's JSON object is written on the lane
    /// that analysed the face, as soon as it is done (`FaceAnalysisPipeline.analyze(image:eachFace:)`):
    /// with the mesh on a face is some 1600 numbers (about 0.1 ms of float printing), which
    /// then runs side by side with the other faces' work instead of after it.
    static func analyzedLine(image name: String, _ image: RGBImage, pipeline: FaceAnalysisPipeline)
        throws(VisionTaskError) -> (result: FaceAnalysisResult, line: String) {
        let (result, objects) = try pipeline.analyze(image: image, eachFace: FaceAnalysisJSON.faceObject)
        return (result, FaceAnalysisJSON.line(image: name, width: result.imageWidth, height: result.imageHeight, faceObjects: objects))
    }
}

/// `--performance-mode`, the old name of `--model` in `analyze`: ML Kit's names.
enum PerformanceChoice: String, ExpressibleByArgument, CaseIterable {
    case fast, accurate
}
