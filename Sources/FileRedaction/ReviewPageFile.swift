import BlazeImage
import BlazeImageIO
import FaceRedaction
import Foundation
import MediaFiles

/// What the review page of a masks file shows (`ReviewPage.write(masks:masksPath:input:to:options:)`).
public struct ReviewPageOptions: Sendable, Equatable {
    /// At most this many moments (default 120).
    public var limit = 120
    /// A regular look every this many frames besides the flagged moments (default 50): a missed
    /// face has no mask to flag it.
    public var sampleEvery = 50
    /// The thumbnails' width in pixels (default 480; a picture is never enlarged).
    public var thumbnailWidth = 480
    /// The frames as filmed, faces visible, masks outlined, instead of as published (default
    /// false): the page then holds faces.
    public var showsInput = false

    public init(limit: Int = 120, sampleEvery: Int = 50, thumbnailWidth: Int = 480, showsInput: Bool = false) {
        (self.limit, self.sampleEvery, self.thumbnailWidth, self.showsInput) = (limit, sampleEvery, thumbnailWidth, showsInput)
    }
}

/// A review page that could not be made, in one sentence naming what failed.
public struct ReviewPageError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

extension ReviewPage {
    /// Writes the review page of `masks` (the file at `masksPath`, parsed) for the photo or video
    /// `input` to `output`, atomically: the moments to check (`moments(in:)`), each a JPEG
    /// thumbnail of its frame as published (masks drawn) or, with `showsInput`, as filmed. A mode
    /// image file whose picture is not set is drawn solid. Returns the moments shown.
    ///
    /// ```swift
    /// let text = try String(contentsOfFile: "clip.masks.jsonl", encoding: .utf8)
    /// let masks = try MasksFile(data: Array(text.utf8))
    /// try ReviewPage.write(masks: masks, masksPath: "clip.masks.jsonl", input: "clip.mp4", to: "review.html")
    /// ```
    @discardableResult
    public static func write(masks file: MasksFile, masksPath: String, input: String, to output: String,
                             options: ReviewPageOptions = .init()) throws(ReviewPageError) -> [Moment] {
        var file = file
        if file.options.mode == .image, file.options.replacement == nil { file.options.mode = .solid }
        let kind: MediaKind
        do { kind = try MediaKind.of(input) } catch { throw ReviewPageError(description: error.description) }
        guard kind == .photo || kind == .video || kind == .y4m, input != "-" else {
            throw ReviewPageError(description: "\(input): a review page is made for one photo or video file")
        }
        let moments = moments(in: file, sampleEvery: options.sampleEvery, limit: options.limit)
        let wanted = Set(moments.map(\.frame))
        var thumbnails: [Int: Thumbnail] = [:]
        func thumbnail(_ image: RGBImage) throws(ReviewPageError) -> Thumbnail {
            let small = shrunk(image, toWidth: options.thumbnailWidth)
            do { return Thumbnail(bytes: try JPEG.encode(small, quality: 80), mediaType: "image/jpeg") } catch {
                throw ReviewPageError(description: "\(error)")
            }
        }
        if kind == .photo {
            var photo: Photo
            do { photo = try Pictures.readPhoto(contentsOf: input) } catch { throw ReviewPageError(description: "\(error)") }
            guard file.frames.count == 1, file.width == photo.image.width, file.height == photo.image.height else {
                throw ReviewPageError(description: "\(masksPath) is for a \(file.width)x\(file.height) picture of \(file.frames.count) frame(s), not \(input)")
            }
            if !options.showsInput { FaceMask.apply(to: &photo.image, masks: file.frames[0], options: file.options) }
            thumbnails[0] = try thumbnail(photo.image)
        } else {
            let source: any VideoFrameSource
            do { source = try VideoFiles.open(input, kind: kind) } catch { throw ReviewPageError(description: "\(error)") }
            var index = 0
            do {
                while index <= (wanted.max() ?? -1), var frame = try source.nextFrame() {
                    defer { index += 1 }
                    guard wanted.contains(index), index < file.frames.count else { continue }
                    let (drawn, fullRange, drawing) = (file.frames[index], frame.fullRange, file.options)
                    let image = try frame.withPixelBuffer { buffer -> RGBImage in
                        if !options.showsInput { FaceMask.apply(to: buffer, masks: drawn, options: drawing, fullRange: fullRange) }
                        return RGBImage(buffer)
                    }
                    thumbnails[index] = try thumbnail(image)
                }
            } catch let error as ReviewPageError { throw error } catch { throw ReviewPageError(description: "\(input): frame \(index): \(error)") }
        }
        let text: String
        do { text = String(decoding: try ImageFile.contents(of: masksPath), as: UTF8.self) } catch { throw ReviewPageError(description: "\(error)") }
        let page = html(masksText: text, moments: moments, thumbnails: thumbnails, inputName: (input as NSString).lastPathComponent,
                        showsInput: options.showsInput)
        do { try AtomicFile.write(Array(page.utf8), to: output) } catch { throw ReviewPageError(description: "\(error)") }
        return moments
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
