@_exported import BlazeImageIO
import CLibHEIF

/// HEIC/HEIF photos (iPhone's) read through the system libheif: the primary image decoded to
/// 8-bit RGB with its transformations (irot, imir, clap) applied, so upright, with its EXIF
/// block and ICC profile. Its own module so that only the apps that import it link libheif.
public enum HEIF {
    /// Whether the data opens with an ISO BMFF `ftyp` box with a HEIF brand (heic, heix,
    /// hevc, heim, heis, hevm, hevs, mif1, msf1) or AVIF's still-picture brand (avif); an AVIF
    /// sequence (avis) is a video, for FFmpeg.
    public static func isHEIF(_ bytes: [UInt8]) -> Bool {
        ImageFormat(sniffing: bytes) == .heif
    }

    /// Whether this libheif decodes HEVC (HEIC) images: built with libde265 or its plugin loaded.
    public static var canDecodeHEVC: Bool {
        _ = initialised
        return heif_have_decoder_for_format(heif_compression_HEVC) != 0
    }

    /// Decodes the primary image to upright 8-bit RGB (alpha dropped, more than 8 bits scaled
    /// down). The size after the transformations is checked against `limits` before decoding.
    public static func decode(_ bytes: [UInt8], limits: ImageLimits = .default) throws(ImageError) -> RGBImage {
        try readPhoto(data: bytes, limits: limits, metadata: false).image
    }

    /// Decodes HEIC/HEIF data into a `Photo`: the upright primary image, its EXIF block
    /// (Orientation set to 1: libheif's transformations already turned the pixels, and HEIF
    /// readers ignore the EXIF orientation) and its ICC profile (colr prof or rICC).
    public static func readPhoto(data: [UInt8], limits: ImageLimits = .default) throws(ImageError) -> Photo {
        try readPhoto(data: data, limits: limits, metadata: true)
    }

    /// Reads the file at `path` into a `Photo`; `.io` if it cannot be read, `.file(path:_:)`
    /// around a decoding error.
    public static func readPhoto(contentsOf path: String, limits: ImageLimits = .default) throws(ImageError) -> Photo {
        let bytes = try ImageFile.contents(of: path)
        do { return try readPhoto(data: bytes, limits: limits) } catch { throw .file(path: path, error) }
    }

    /// The most tiles a grid (or any derived image) may be built from: a 100-megapixel photo in
    /// 256-pixel tiles has 1,526 (phones use 512-pixel tiles: a 48-megapixel photo has 192).
    /// Each tile costs a decoder start: 20,000 tiny tiles took 87 s.
    static let maxTiles = 2048
    /// The most pixels one byte of a file may claim before decoding: x265's flattest picture
    /// (one grey, quality 10) takes a byte per 3,600 pixels; this allows 18 times that. A
    /// few hundred bytes claiming a 100-megapixel grid are refused before the canvas is allocated.
    static let maxPixelsPerByte = 65536

    /// The largest EXIF block or ICC profile read (both are a few kilobytes in practice).
    static let maxMetadataSize = 16 << 20

    private static func readPhoto(data: [UInt8], limits: ImageLimits, metadata: Bool) throws(ImageError) -> Photo {
        guard isHEIF(data) else {
            throw .corruptData(.heif, "the data does not start with an ftyp box with a HEIF brand (heic, mif1...)")
        }
        for image in HEIFDerivations(data).images {
            guard image.from.count <= maxTiles else {
                throw .unsupported(.heif, "item \(image.item) is built from \(image.from.count) tiles, over the \(maxTiles) this reader decodes")
            }
            guard Set(image.from).count == image.from.count else {
                throw .corruptData(.heif, "item \(image.item) uses one tile more than once: not a photo a camera wrote")
            }
        }
        _ = initialised
        guard let context = heif_context_alloc() else { throw .corruptData(.heif, "libheif could not allocate a context") }
        defer { heif_context_free(context) }
        // libheif's own guard, on coded sizes (grid tiles pad the image): with room for the
        // padding, so that `limits` themselves are checked below on the displayed size.
        heif_context_set_maximum_image_size_limit(context, Int32(clamping: max(limits.maxWidth, limits.maxHeight) + 1024))
        let result: Result<Photo, ImageError> = data.withUnsafeBytes { raw in
            do throws(ImageError) {
                try check(heif_context_read_from_memory_without_copy(context, raw.baseAddress, raw.count, nil))
                var handle: OpaquePointer?
                try check(heif_context_get_primary_image_handle(context, &handle))
                guard let handle else { throw .corruptData(.heif, "no primary image") }
                defer { heif_image_handle_release(handle) }
                let image = try decodeHandle(handle, limits: limits, dataSize: data.count)
                guard metadata else { return .success(Photo(image: image, format: .heif)) }
                return .success(Photo(image: image, format: .heif, exif: exif(handle)?.upright(), iccProfile: iccProfile(handle)))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// The handle's image, decoded with its transformations to interleaved 8-bit RGB.
    private static func decodeHandle(_ handle: OpaquePointer, limits: ImageLimits, dataSize: Int) throws(ImageError) -> RGBImage {
        let (width, height) = (Int(heif_image_handle_get_width(handle)), Int(heif_image_handle_get_height(handle)))
        guard width > 0, height > 0 else { throw .invalidSize(width: width, height: height) }
        guard width <= limits.maxWidth, height <= limits.maxHeight, width * height <= limits.maxPixels else {
            throw .tooLarge(width: width, height: height, limits: limits)
        }
        guard width * height <= maxPixelsPerByte * dataSize else {
            throw .truncatedData(.heif, "its header claims \(width)x\(height) pixels, more than its \(dataSize) bytes can hold "
                                 + "(at most \(maxPixelsPerByte * dataSize)): truncated, or not a real picture")
        }
        let options = heif_decoding_options_alloc()
        defer { heif_decoding_options_free(options) }
        if let options, options.pointee.version >= 2 { options.pointee.convert_hdr_to_8bit = 1 }
        var decoded: OpaquePointer?
        try check(heif_decode_image(handle, &decoded, heif_colorspace_RGB, heif_chroma_interleaved_RGB, options))
        guard let decoded else { throw .corruptData(.heif, "libheif returned no image") }
        defer { heif_image_release(decoded) }
        let (w, h) = (Int(heif_image_get_width(decoded, heif_channel_interleaved)), Int(heif_image_get_height(decoded, heif_channel_interleaved)))
        let bits = heif_image_get_bits_per_pixel_range(decoded, heif_channel_interleaved)
        var stride: Int32 = 0
        guard w > 0, h > 0, w <= limits.maxWidth, h <= limits.maxHeight, w * h <= limits.maxPixels, bits == 8,
              let plane = heif_image_get_plane_readonly(decoded, heif_channel_interleaved, &stride), Int(stride) >= 3 * w else {
            throw .corruptData(.heif, "libheif decoded a \(w)x\(h) image of \(bits) bits, expected \(width)x\(height) 8-bit RGB")
        }
        var pixels = [UInt8](repeating: 0, count: try RGBImage.byteCount(width: w, height: h))
        pixels.withUnsafeMutableBufferPointer { out in
            for y in 0..<h {
                (out.baseAddress! + 3 * w * y).update(from: plane + Int(stride) * y, count: 3 * w)
            }
        }
        return try RGBImage(width: w, height: h, pixels: pixels)
    }

    /// The first Exif item's TIFF data: libheif's block starts with a 4-byte big-endian offset
    /// to the TIFF header, skipped here. Nil when there is none or it is malformed.
    private static func exif(_ handle: OpaquePointer) -> EXIFBlock? {
        var id: heif_item_id = 0
        guard heif_image_handle_get_list_of_metadata_block_IDs(handle, "Exif", &id, 1) == 1 else { return nil }
        let size = heif_image_handle_get_metadata_size(handle, id)
        guard size > 4, size <= maxMetadataSize else { return nil }
        var block = [UInt8](repeating: 0, count: size)
        let error = block.withUnsafeMutableBytes { heif_image_handle_get_metadata(handle, id, $0.baseAddress) }
        guard error.code == heif_error_Ok else { return nil }
        let offset = Int(block[0]) << 24 | Int(block[1]) << 16 | Int(block[2]) << 8 | Int(block[3])
        guard offset <= size - 4 - 8 else { return nil }
        return EXIFBlock(tiff: Array(block[(4 + offset)...]))
    }

    /// The raw ICC profile of a colr box of type prof or rICC; nil for none or nclx.
    private static func iccProfile(_ handle: OpaquePointer) -> [UInt8]? {
        let type = heif_image_handle_get_color_profile_type(handle)
        guard type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC else { return nil }
        let size = heif_image_handle_get_raw_color_profile_size(handle)
        guard size > 0, size <= maxMetadataSize else { return nil }
        var profile = [UInt8](repeating: 0, count: size)
        let error = profile.withUnsafeMutableBytes { heif_image_handle_get_raw_color_profile(handle, $0.baseAddress) }
        return error.code == heif_error_Ok ? profile : nil
    }

    /// Throws libheif's error, with its message, as an ImageError.
    private static func check(_ error: heif_error) throws(ImageError) {
        guard error.code != heif_error_Ok else { return }
        let message = error.message.map { String(cString: $0) } ?? "libheif error \(error.code.rawValue).\(error.subcode.rawValue)"
        if error.subcode == heif_suberror_End_of_data { throw .truncatedData(.heif, message) }
        if error.subcode == heif_suberror_Unsupported_codec || error.code == heif_error_Unsupported_feature {
            let (hevc, av1) = (heif_have_decoder_for_format(heif_compression_HEVC) != 0, heif_have_decoder_for_format(heif_compression_AV1) != 0)
            throw .unsupported(.heif, hevc && av1 ? message : "\(message) (this libheif has no \(hevc ? "AV1" : av1 ? "HEVC" : "HEVC or AV1") "
                               + "decoder: install libde265 for HEIC, dav1d or aom for AVIF, or libheif's plugins for them where "
                               + "libheif loads its codecs as plugins)")
        }
        if error.subcode == heif_suberror_Security_limit_exceeded { throw .unsupported(.heif, "\(message) (over libheif's or the caller's size limit)") }
        throw .corruptData(.heif, message)
    }

    /// libheif initialised once for the process (its codec plugins loaded), never torn down.
    private static let initialised: Bool = {
        _ = heif_init(nil)
        return true
    }()
}
