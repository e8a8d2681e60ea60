import BlazeFace
import BlazeImageIO
import BlazeVideoIO
import FaceRedaction

/// What finds a still picture's faces in a detection run (`blazeface detect`): MediaPipe's
/// detector (the whole picture, a region, or tiles), or what `redact` hides in a photo. One per
/// thread: it holds its own networks.
///
/// ```swift
/// let search = try PictureFaceSearch(.redact, options: FaceDetectorOptions())
/// switch search.outcome(for: .file("party.jpg"), standardInput: nil) { ... }
/// ```
public struct PictureFaceSearch {
    /// Which search: MediaPipe's detector, or the redactor's still-picture search
    /// (`FaceRedactor.faces(inPicture:)`: every scale, BlazeFace and CenterFace, merged).
    public enum Kind: String, Sendable, CaseIterable {
        case mediapipe, redact
    }

    public let kind: Kind
    /// The detector, with the options the search was made with.
    public let detector: FaceDetector
    private let redactor: FaceRedactor?

    /// A search of `kind` with the detector's `options` (the redactor's runs on the calling
    /// thread, with those options' model and scores).
    public init(_ kind: Kind, options: FaceDetectorOptions) throws {
        self.kind = kind
        detector = try FaceDetector(options: options)
        if kind == .redact {
            var lane = options
            lane.threadPool = .inline
            redactor = try FaceRedactor(options: .init(detectorOptions: lane))
        } else {
            redactor = nil
        }
    }

    /// The faces in `image`: with the detector, turned and cropped as `processing` says, or in
    /// tiles of `tiles` sides (empty: `TilingOptions.automatic`); the redactor's search ignores both.
    public func faces(in image: RGBImage, processing: ImageProcessingOptions = .init(), tiles: [Int]? = nil) throws -> FaceDetectorResult {
        if let redactor { return try redactor.faces(inPicture: image) }
        let tiling = tiles.flatMap { $0.isEmpty
            ? TilingOptions.automatic(width: image.width, height: image.height, model: detector.options.model)
            : TilingOptions(tileSizes: $0) }
        return try detector.detect(image: image, options: tiling == nil ? processing : nil, searchArea: tiling.map { .tiles($0) } ?? .wholeFrame)
    }

    /// What one input of a detection run gave: its JSON line (`DetectionJSON.line`, and the
    /// picture when kept), or an error line for stdout and the message for stderr.
    public enum Outcome {
        case detected(line: String, image: RGBImage?, result: FaceDetectorResult)
        case failed(record: String, message: String)
    }

    /// `item`'s picture read (turned upright by its EXIF orientation if `upright`; stdin's bytes
    /// from `standardInput`, `InputList.standardInput(for:)`) and searched. A file that is
    /// neither picture nor readable video says why when it can (an MP4 cut short before its index).
    public func outcome(for item: InputList.Item, standardInput: Result<[UInt8], ImageError>?, processing: ImageProcessingOptions = .init(),
                        tiles: [Int]? = nil, upright: Bool = true, keepingImage: Bool = false) -> Outcome {
        let name = item.name
        let message: String
        do {
            let image = try item.picture(upright: upright, standardInput: standardInput)
            let result = try faces(in: image, processing: processing, tiles: tiles)
            return .detected(line: DetectionJSON.line(image: name, width: image.width, height: image.height, result: result),
                             image: keepingImage ? image : nil, result: result)
        } catch let error as ImageError {
            // File errors already name the path; stdin's do not.
            message = if case .file(let path) = item, case .file(_, .unknownFormat) = error, let cause = VideoFileReader.unreadableCause(path: path) {
                "\(path): \(cause)"
            } else {
                item.message(for: error)
            }
        } catch let error as DetectorError {
            message = "\(name): \(error.description)"
        } catch {
            message = "\(name): \(error)"
        }
        return .failed(record: DetectionJSON.errorLine(image: name, message: message), message: message)
    }
}
