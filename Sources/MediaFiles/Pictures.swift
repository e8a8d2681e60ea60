import BlazeImageHEIF
import BlazeImageIO
import BlazeVideoIO

/// Pictures read by their first bytes, whatever their name: PNG, JPEG, PPM/PGM through
/// BlazeImageIO, HEIC/HEIF through BlazeImageHEIF (libheif), WebP, TIFF and BMP through
/// FFmpeg's decoders (BlazeVideoIO).
public enum Pictures {
    /// The formats FFmpeg's decoders read here (`readByFFmpeg`).
    private static let decodedByFFmpeg: Set<ImageFormat> = [.webp, .tiff, .bmp]

    /// The picture in `bytes`; EXIF orientation applied when `upright` (HEIF's own
    /// transformations always are, as every HEIF reader applies them).
    public static func read(data bytes: [UInt8], upright: Bool) throws(ImageError) -> RGBImage {
        switch ImageFormat(sniffing: bytes) {
        case .heif: try HEIF.decode(bytes)
        case let format? where decodedByFFmpeg.contains(format): try readByFFmpeg(bytes, format: format, upright: upright).image
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
            case let format? where decodedByFFmpeg.contains(format): return try readByFFmpeg(bytes, format: format, upright: true)
            default: return try ImageFile.readPhoto(data: bytes)
            }
        } catch { throw .file(path: path, error) }
    }

    /// A still WebP (lossy or lossless), a single-page TIFF or a BMP decoded by FFmpeg, as
    /// 8-bit RGB converted from the decoder's pixels by libswscale (alpha dropped), with its
    /// orientation applied when `upright` (WebP's EXIF block, then set to 1; TIFF's Orientation
    /// tag) and its colour profile. What FFmpeg would not decode right is refused with the
    /// reason: an animated WebP (neither one photo nor a video FFmpeg reads), a TIFF outside
    /// `TIFFContainer.checkReadable` (several pages, a camera raw file, tiles, a compression or
    /// colour model FFmpeg decodes wrong), a BMP holding a JPEG or PNG.
    static func readByFFmpeg(_ bytes: [UInt8], format: ImageFormat, upright: Bool, limits: ImageLimits = .default) throws(ImageError) -> Photo {
        switch format {
        case .webp where WebPContainer.isAnimated(bytes):
            throw .unsupported(.webp, "an animation (only still WebP pictures are read)")
        case .tiff:
            try TIFFContainer.checkReadable(bytes)
        case .bmp where bytes.count >= 34 && bytes[14] >= 40 && [4, 5].contains(bytes[30]) && bytes[31...33].allSatisfy { $0 == 0 }:
            throw .unsupported(.bmp, "a BMP holding a \(bytes[30] == 4 ? "JPEG" : "PNG") (read that file itself)")
        default:
            break
        }
        var image: RGBImage
        do {
            let reader = try VideoFileReader(bytes: bytes, name: format.rawValue, options: VideoReadOptions(
                appliesRotation: false, maxSide: max(limits.maxWidth, limits.maxHeight), maxPixels: limits.maxPixels, decoderThreads: 1,
                deliversRGB: true))
            guard reader.info.width <= limits.maxWidth, reader.info.height <= limits.maxHeight else {
                throw ImageError.tooLarge(width: reader.info.width, height: reader.info.height, limits: limits)
            }
            guard let frame = try reader.nextFrame() else { throw ImageError.truncatedData(format, "no picture in it") }
            image = RGBImage(videoFrame: frame)
        } catch let error as ImageError {
            throw error
        } catch let error as VideoError {
            throw ffmpegError(error, format: format, limits: limits)
        } catch {
            throw .corruptData(format, "\(error)")
        }
        switch format {
        case .webp:
            let exif = WebPContainer.exif(bytes)
            if upright, let orientation = exif?.orientation { image = image.applying(orientation) }
            return Photo(image: image, format: .webp, exif: exif?.upright(), iccProfile: WebPContainer.iccProfile(bytes))
        case .tiff:
            if upright, let orientation = TIFFContainer.orientation(bytes) { image = image.applying(orientation) }
            return Photo(image: image, format: .tiff, iccProfile: TIFFContainer.iccProfile(bytes))
        default:
            return Photo(image: image, format: format)
        }
    }

    /// What FFmpeg said of a picture, in a picture's terms: too large, or damaged or cut short
    /// (FFmpeg's words in parentheses).
    private static func ffmpegError(_ error: VideoError, format: ImageFormat, limits: ImageLimits) -> ImageError {
        switch error {
        case let .tooLarge(_, width, height, _, _): .tooLarge(width: width, height: height, limits: limits)
        case let .io(_, reason), let .notVideo(_, reason), let .decode(_, _, reason), let .truncated(_, reason):
            .corruptData(format, "damaged or cut short: FFmpeg's decoder read no picture (\(reason))")
        default: .corruptData(format, "\(error)")
        }
    }
}
