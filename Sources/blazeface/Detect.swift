import BlazeImageIO
import ArgumentParser
import BlazeFace
import BlazeImage
import FileRedaction
import Foundation

struct Detect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Detect faces in PNG, JPEG, HEIC, AVIF, WebP, TIFF, BMP, PPM or PGM images, folders of them, or stdin (-); one JSON line per image on stdout.",
        discussion: "A video named on the command line (MP4, MOV, MKV, WebM, ... or Y4M; recognised by its content) gives one line "
            + "per frame (or per --every frames), with its frame index and timestamp: "
            + "{\"image\":PATH,\"frame\":N,\"timestampMs\":T,\"width\":W,\"height\":H,\"detections\":[...]}.")

    @Argument(help: "Images (PNG, JPEG, HEIC, AVIF, WebP, TIFF, BMP, PPM, PGM; format sniffed from the bytes), videos, folders (searched recursively, sorted), or - for stdin.")
    var images: [String] = []

    @Option(help: "Drop faces scoring below this (0...1; default: 0.5 for short, 0.6 for full, as MediaPipe).")
    var minDetectionConfidence: Float?

    @Option(help: "Merge detections overlapping by more than this IoU (0...1).")
    var minSuppressionThreshold: Float = 0.3

    @Option(help: "Report at most this many faces per image (at least 1; default: no limit).")
    var maxFaces: Int?

    @Option(help: "Write a copy of the image with boxes, scores and keypoints drawn (one image only; JPEG or PPM when its name says so, PNG otherwise).")
    var annotate: String?

    @Option(help: "The model: short (ML Kit's fast) or full (accurate, for small and distant faces).")
    var model: ModelChoice = .short

    @Option(help: "A weights file (default: the bundled weights of --model).")
    var weights: String?

    @Option(help: "Turn each image this many degrees clockwise before detecting (0, 90, 180, 270); results stay in the image's coordinates.")
    var rotation: Int = 0

    @Option(help: "Tiled detection for small faces: auto (tiles of the model's input side for images larger than it, and of 2x and 3x it for images larger than 3x the input, plus the whole frame) or tile sides in pixels, comma-separated. Off by default (MediaPipe's untiled detection).")
    var tiles: String?

    @Option(help: "What is searched: mediapipe (MediaPipe's detector on the whole picture, or --tiles) or redact (exactly what `blazeface redact` hides in a photo: every scale, BlazeFace and CenterFace, merged).")
    var search: PictureFaceSearch.Kind = .mediapipe

    @Option(help: "How the pixels must be turned to be upright (UIImage's names). Results are in the stored image's coordinates. --rotation is an alias for the unmirrored four.")
    var orientation: ImageOrientation = .up

    @Option(help: "Detect only inside this normalized region: left,top,right,bottom in 0...1.")
    var region: String?

    @Option(help: "Threads: 1...64, or auto (the cores this process may use, at most 4). Images are processed that many at a time, one detector each; output stays in input order.")
    var threads: ThreadCount?

    /// The old name of --threads, hidden, kept for a release.
    @Option(help: .hidden)
    var jobs: ThreadCount?

    /// --threads, or its old name --jobs; 1 by default.
    var threadCount: ThreadCount { get throws { try aliased(threads, jobs, "--threads", "--jobs") ?? ThreadCount(1) } }

    @Option(help: "Videos: detect on every K-th frame only (1...1000; 1 is every frame).")
    var every: Int = 1

    @Flag(help: "Ignore JPEG EXIF orientation (by default it is applied, as a photo viewer does).")
    var noExifOrientation = false

    @Flag(help: "Never draw the progress bar (drawn on stderr only when it is a terminal and there are 10 images or more).")
    var noProgress = false

    @OptionGroup var batch: ShardOptions

    func validate() throws {
        _ = try threadCount
        if images.isEmpty, batch.inputList == nil { throw ValidationError("Missing expected argument '<images> ...'") }
        if annotate != nil, images.count != 1 { throw ValidationError("--annotate takes exactly one image") }
        guard ImageOrientation(rotationDegrees: rotation) != nil, (0...270).contains(rotation) else {
            throw ValidationError("--rotation must be 0, 90, 180 or 270")
        }
        if tiles != nil {
            _ = try tileSizes()
            guard rotation == 0, orientation == .up, region == nil else {
                throw ValidationError("--tiles cannot be combined with --rotation, --orientation or --region")
            }
        }
        if orientation != .up, rotation != 0 { throw ValidationError("--orientation and --rotation cannot be combined") }
        if search == .redact, tiles != nil || rotation != 0 || orientation != .up || region != nil {
            throw ValidationError("--search redact cannot be combined with --tiles, --rotation, --orientation or --region")
        }
        try checkUnitInterval(minDetectionConfidence, "--min-detection-confidence")
        try checkUnitInterval(minSuppressionThreshold, "--min-suppression-threshold")
        try checkPositive(maxFaces, "--max-faces")
        try checkRange(every, 1...1000, "--every")
        if images.filter({ $0 == "-" }).count > 1 { throw ValidationError("- (stdin) can be given once") }
        _ = try parsedRegion()
    }

    /// `--tiles` as tile sides (nil: off; empty: auto).
    func tileSizes() throws -> [Int]? {
        guard let tiles else { return nil }
        if tiles == "auto" { return [] }
        let sizes = tiles.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !sizes.isEmpty, sizes.allSatisfy({ ($0 ?? 0) >= 16 }) else {
            throw ValidationError("--tiles must be auto or tile sides of at least 16 pixels, comma-separated")
        }
        return sizes.compactMap { $0 }
    }

    /// `--region` as a RegionOfInterest (its bounds are checked by the detector).
    func parsedRegion() throws -> RegionOfInterest? {
        guard let region else { return nil }
        let parts = region.split(separator: ",", omittingEmptySubsequences: false).map { Float($0.trimmingCharacters(in: .whitespaces)) }
        guard parts.count == 4, let l = parts[0], let t = parts[1], let r = parts[2], let b = parts[3] else {
            throw ValidationError("--region must be four numbers: left,top,right,bottom")
        }
        return RegionOfInterest(left: l, top: t, right: r, bottom: b)
    }

    func run() throws {
        let pool = try threadCount.makePool()
        let options = FaceDetectorOptions(model: model.detectorModel, weightsPath: weights, minDetectionConfidence: minDetectionConfidence,
                                          minSuppressionThreshold: minSuppressionThreshold, maxFaces: maxFaces, threadPool: pool)
        let processing = ImageProcessingOptions(orientation: orientation != .up ? orientation
                                                    : ImageOrientation(rotationDegrees: rotation) ?? .up,
                                                regionOfInterest: try parsedRegion())
        let items = try InputList.sharded(images, options: batch).items
        if items.contains(where: \.isVideo) {
            return try runWithVideos(items, options: options, processing: processing)
        }
        let stdin = InputList.standardInput(for: items)
        let applyEXIF = !noExifOrientation
        let wantImage = annotate != nil
        let tileSizes = try tileSizes()

        let json = batch.progress == .json
        let progress = ProgressBar.wanted(count: items.count, disabled: noProgress || json) ? ProgressBar(total: items.count) : nil
        let stdoutIsTerminal = isatty(STDOUT_FILENO) == 1   // then each line must first erase the bar
        var failures = 0
        var annotated: (RGBImage, FaceDetectorResult)?
        do {
            let search = self.search
            try pool.forEachInOrder(count: items.count, makeState: { try PictureFaceSearch(search, options: options) }, { finder, i in
                finder.outcome(for: items[i], standardInput: stdin, processing: processing, tiles: tileSizes, upright: applyEXIF, keepingImage: wantImage)
            }, emit: { i, outcome in
                if stdoutIsTerminal { progress?.clear() }
                switch outcome {
                case .detected(let line, let image, let result):
                    print(line)
                    if let image { annotated = (image, result) }
                    if json { printLine(DetectionJSON.progressLine(input: items[i].name, faces: result.detections.count, error: nil, index: i + 1, of: items.count)) }
                case .failed(let record, let message):
                    print(record)
                    progress?.clear()
                    printError(message)
                    failures += 1
                    if json { printLine(DetectionJSON.progressLine(input: items[i].name, faces: nil, error: message, index: i + 1, of: items.count)) }
                }
                fflush(nil)   // stream each line out as soon as it is in order
                progress?.update(done: i + 1)
            })
        } catch let error as DetectorError { throw ToolError(error.description) }
        progress?.clear()
        if let annotate, let (image, result) = annotated {
            var canvas = image
            result.draw(on: &canvas)
            try writeAnnotation(canvas, to: annotate)
        }
        try BatchExit.finish(refused: failures)
    }

    /// The inputs in order, one at a time: each picture as one line, each video as a line per
    /// frame (every `--every`-th), detected frame by frame as pictures.
    private func runWithVideos(_ items: [InputList.Item], options: FaceDetectorOptions, processing: ImageProcessingOptions) throws {
        if annotate != nil { throw ValidationError("--annotate takes one picture, not a video (use track --annotate)") }
        let detector: PictureFaceSearch
        do { detector = try PictureFaceSearch(search, options: options) } catch { throw ToolError("\(error)") }
        let stdin = InputList.standardInput(for: items)
        let tileSizes = try tileSizes()
        var failures = 0
        for item in items {
            guard case .file(let path) = item, item.isVideo else {
                switch detector.outcome(for: item, standardInput: stdin, processing: processing, tiles: tileSizes, upright: !noExifOrientation) {
                case .detected(let line, _, _): print(line)
                case .failed(let record, let message): print(record); printError(message); failures += 1
                }
                continue
            }
            let whole = VideoMedia.eachFrame(of: path, every: every) { image, index, timestamp in
                let result = try detector.faces(in: image, processing: processing, tiles: tileSizes)
                print(DetectionJSON.line(image: path, frame: index, timestampMs: timestamp, width: image.width, height: image.height, result: result))
            }
            if !whole { failures += 1 }
        }
        try BatchExit.finish(refused: failures)
    }
}

/// `--model`: the two BlazeFace models, by MediaPipe's and ML Kit's names.
enum ModelChoice: String, ExpressibleByArgument, CaseIterable {
    case short, full, fast, accurate

    var detectorModel: FaceDetectorModel {
        switch self {
        case .short, .fast: .shortRange
        case .full, .accurate: .fullRange
        }
    }

    /// The canonical name (short or full), as `bench --json` reports it.
    var canonical: String { detectorModel == .shortRange ? "short" : "full" }
}

/// `--search`: MediaPipe's detector, or the redactor's search (what `redact` hides).
extension PictureFaceSearch.Kind: ExpressibleByArgument {}
