import ArgumentParser
import BlazeImage
import BlazeImageIO
import FaceRedaction
import Foundation
import MediaFiles

/// `blazeface review IN MASKS -o review.html`: the review page of a masks file (`ReviewPage`):
/// the moments that need a look, as thumbnails with their masks outlined, where a person removes
/// masks, adds boxes and exports the edited file for `redact --apply-masks`.
struct Review: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write one self-contained HTML page to check and correct a masks file: the moments that need a look first, masks outlined; remove masks, add boxes, export for redact --apply-masks.")

    @Argument(help: "The photo or video the masks file is for.")
    var input: String

    @Argument(help: "The masks file (redact --masks).")
    var masks: String

    @Option(name: .shortAndLong, help: "The page to write (HTML).")
    var output: String

    @Option(help: "At most this many moments (1...2000).")
    var limit: Int = 120

    @Option(help: "A regular look every this many frames besides the flagged moments (a missed face has no mask to flag it).")
    var sampleEvery: Int = 50

    @Option(help: "Thumbnails' width in pixels (64...1920).")
    var thumbnailWidth: Int = 480

    @Flag(help: "Show the frames as filmed, faces visible, with the masks outlined, instead of as published: the page then holds faces, keep it as private as the input.")
    var showInput = false

    @Option(help: "The picture a masks file of mode image pastes over faces (redact --replace-with); without it such masks are shown black.")
    var replaceWith: String?

    func validate() throws {
        try checkRange(limit, 1...2000, "--limit")
        try checkRange(sampleEvery, 1...100_000, "--sample-every")
        try checkRange(thumbnailWidth, 64...1920, "--thumbnail-width")
    }

    func run() throws {
        let kind = try MediaKind.of(input)
        guard kind != .folder, input != "-" else { throw ValidationError("review takes one photo or video file") }
        try refuseOverwriting(input: input, with: output)
        try refuseOverwriting(input: masks, with: output)
        let replacement = try replaceWith.map { path -> (picture: RGBImage, sha256: String) in
            guard let r = try Redact.readReplacement(path) else { throw ValidationError("--replace-with \(path): cannot be read") }
            return r
        }
        var file = try Redact.readMasks(masks, for: input, replacement: replacement, flag: "review: \(masks)", needsPicture: false)
        if file.options.mode == .image, file.options.replacement == nil { file.options.mode = .solid }
        let moments = ReviewPage.moments(in: file, sampleEvery: sampleEvery, limit: limit)
        let wanted = Set(moments.map(\.frame))
        var thumbnails: [Int: ReviewPage.Thumbnail] = [:]
        func thumbnail(_ image: RGBImage) throws -> ReviewPage.Thumbnail {
            let small = Self.shrunk(image, toWidth: thumbnailWidth)
            do { return ReviewPage.Thumbnail(bytes: try JPEG.encode(small, quality: 80), mediaType: "image/jpeg") } catch { throw ToolError("\(error)") }
        }
        if kind == .photo {
            var photo: Photo
            do { photo = try Pictures.readPhoto(contentsOf: input) } catch { throw ToolError("\(error)") }
            guard file.frames.count == 1, file.width == photo.image.width, file.height == photo.image.height else {
                throw ToolError("\(masks) is for a \(file.width)x\(file.height) picture of \(file.frames.count) frame(s), not \(input)")
            }
            if !showInput { FaceMask.apply(to: &photo.image, masks: file.frames[0], options: file.options) }
            thumbnails[0] = try thumbnail(photo.image)
        } else {
            let source: any VideoFrameSource
            do { source = try VideoFiles.open(input, kind: kind) } catch { throw ToolError("\(error)") }
            var index = 0
            do {
                while index <= (wanted.max() ?? -1), var frame = try source.nextFrame() {
                    defer { index += 1 }
                    guard wanted.contains(index), index < file.frames.count else { continue }
                    let (drawn, fullRange, options) = (file.frames[index], frame.fullRange, file.options)
                    let image = try frame.withPixelBuffer { buffer -> RGBImage in
                        if !showInput { FaceMask.apply(to: buffer, masks: drawn, options: options, fullRange: fullRange) }
                        return RGBImage(buffer)
                    }
                    thumbnails[index] = try thumbnail(image)
                }
            } catch let error as ToolError { throw error } catch { throw ToolError("\(input): frame \(index): \(error)") }
        }
        let text: String
        do { text = String(decoding: try ImageFile.contents(of: masks), as: UTF8.self) } catch { throw ToolError("\(error)") }
        let page = ReviewPage.html(masksText: text, moments: moments, thumbnails: thumbnails,
                                   inputName: (input as NSString).lastPathComponent, showsInput: showInput)
        do { try AtomicFile.write(Array(page.utf8), to: output) } catch { throw ToolError("\(error)") }
        printError("review: \(output): \(moments.count) moment(s) of \(file.frames.count) frame(s)"
                   + (showInput ? ", shown as filmed: the page holds faces" : ""))
    }

    /// `image` shrunk to `width` (aspect kept; never enlarged) by box means over each output pixel's area.
    static func shrunk(_ image: RGBImage, toWidth width: Int) -> RGBImage {
        guard image.width > width else { return image }
        let height = max(1, image.height * width / image.width)
        var out = [UInt8](repeating: 0, count: width * height * 3)
        for y in 0..<height {
            let (y0, y1) = (y * image.height / height, max(y * image.height / height + 1, (y + 1) * image.height / height))
            for x in 0..<width {
                let (x0, x1) = (x * image.width / width, max(x * image.width / width + 1, (x + 1) * image.width / width))
                var sum = (0, 0, 0)
                for sy in y0..<y1 {
                    for sx in x0..<x1 {
                        let i = 3 * (sy * image.width + sx)
                        sum = (sum.0 + Int(image.pixels[i]), sum.1 + Int(image.pixels[i + 1]), sum.2 + Int(image.pixels[i + 2]))
                    }
                }
                let n = (y1 - y0) * (x1 - x0), o = 3 * (y * width + x)
                (out[o], out[o + 1], out[o + 2]) = (UInt8(sum.0 / n), UInt8(sum.1 / n), UInt8(sum.2 / n))
            }
        }
        return (try? RGBImage(width: width, height: height, pixels: out)) ?? image
    }
}
