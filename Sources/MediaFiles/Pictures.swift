import BlazeImageHEIF
import BlazeImageIO
import BlazeVideoIO

/// Pictures read by their first bytes, whatever their name: PNG, JPEG, PPM/PGM through
/// BlazeImageIO, HEIC/HEIF through BlazeImageHEIF (libheif), WebP through FFmpeg's decoder
/// (BlazeVideoIO).
public enum Pictures {
    /// The picture in `bytes`; EXIF orientation applied when `upright` (HEIF's own
    /// transformations always are, as every HEIF reader applies them).
    public static func read(data bytes: [UInt8], upright: Bool) throws(ImageError) -> RGBImage {
        switch ImageFormat(sniffing: bytes) {
        case .heif: try HEIF.decode(bytes)
        case .webp: try readWebP(bytes, upright: upright).image
        default: try ImageFile.read(data: bytes, applyingOrientation: upright)
        }
    }

    /// The picture at `path` (errors name the path).
    public static func read(contentsOf path: String, upright: Bool) throws(ImageError) -> RGBImage {
        let bytes = try ImageFile.contents(of: path)
        do { return try read(data: bytes, upright: upright) } catch { throw .file(path: path, error) }
    }

    /// The photo at `path`, upright, with its metadata and JPEG quality (errors name the path).
    public static func readPhoto(contentsOf path: String) throws(ImageError) -> Photo {
        let bytes = try ImageFile.contents(of: path)
        do {
            switch ImageFormat(sniffing: bytes) {
            case .heif: return try HEIF.readPhoto(data: bytes)
            case .webp: return try readWebP(bytes, upright: true)
            default: return try ImageFile.readPhoto(data: bytes)
            }
        } catch { throw .file(path: path, error) }
    }

    /// A still WebP (lossy or lossless) decoded by FFmpeg, as 8-bit RGB (alpha dropped; the
    /// decoder's 4:2:0 picture, so a lossless file's colour is subsampled too), with its EXIF
    /// block (its orientation applied when `upright`, then set to 1) and colour profile. An
    /// animated WebP is refused: it is neither one photo nor a video FFmpeg reads.
    static func readWebP(_ bytes: [UInt8], upright: Bool, limits: ImageLimits = .default) throws(ImageError) -> Photo {
        if WebPContainer.isAnimated(bytes) {
            throw .unsupported(.webp, "an animation (only still WebP pictures are read)")
        }
        var image: RGBImage
        do {
            let reader = try VideoFileReader(bytes: bytes, name: "WebP", options: VideoReadOptions(
                appliesRotation: false, maxSide: max(limits.maxWidth, limits.maxHeight), maxPixels: limits.maxPixels, decoderThreads: 1))
            guard reader.info.width <= limits.maxWidth, reader.info.height <= limits.maxHeight else {
                throw ImageError.tooLarge(width: reader.info.width, height: reader.info.height, limits: limits)
            }
            guard let frame = try reader.nextFrame() else { throw ImageError.truncatedData(.webp, "no picture in it") }
            image = RGBImage(videoFrame: frame)
        } catch let error as ImageError {
            throw error
        } catch let error as VideoError {
            throw webpError(error, limits: limits)
        } catch {
            throw .corruptData(.webp, "\(error)")
        }
        let exif = WebPContainer.exif(bytes)
        if upright, let orientation = exif?.orientation { image = image.applying(orientation) }
        return Photo(image: image, format: .webp, exif: exif?.upright(), iccProfile: WebPContainer.iccProfile(bytes))
    }

    /// What FFmpeg said of a WebP, in a picture's terms: too large, or damaged or cut short
    /// (FFmpeg's words in parentheses).
    private static func webpError(_ error: VideoError, limits: ImageLimits) -> ImageError {
        switch error {
        case let .tooLarge(_, width, height, _, _): .tooLarge(width: width, height: height, limits: limits)
        case let .io(_, reason), let .notVideo(_, reason), let .decode(_, _, reason), let .truncated(_, reason):
            .corruptData(.webp, "damaged or cut short: FFmpeg's decoder read no picture (\(reason))")
        default: .corruptData(.webp, "\(error)")
        }
    }
}
