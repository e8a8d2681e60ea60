import BlazeImageHEIF
import BlazeImageIO

/// Pictures read by their first bytes, whatever their name: PNG, JPEG, PPM/PGM through
/// BlazeImageIO, HEIC/HEIF through BlazeImageHEIF (libheif).
public enum Pictures {
    /// The picture in `bytes`; EXIF orientation applied when `upright` (HEIF's own
    /// transformations always are, as every HEIF reader applies them).
    public static func read(data bytes: [UInt8], upright: Bool) throws(ImageError) -> RGBImage {
        HEIF.isHEIF(bytes) ? try HEIF.decode(bytes) : try ImageFile.read(data: bytes, applyingOrientation: upright)
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
            return HEIF.isHEIF(bytes) ? try HEIF.readPhoto(data: bytes) : try ImageFile.readPhoto(data: bytes)
        } catch { throw .file(path: path, error) }
    }
}
