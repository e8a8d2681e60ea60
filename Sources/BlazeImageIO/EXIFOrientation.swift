@_exported import BlazeImage
/// The EXIF Orientation tag (0x0112): how the stored pixels must be turned to be upright.
/// Raw values are the tag's 1...8; `upright` (1) means nothing to do.
/// Each case is named after what a viewer does to show the stored pixels upright (Pillow's
/// `exif_transpose` operation): 6 = turn 90 degrees clockwise, 8 = counter-clockwise.
public enum EXIFOrientation: Int, Sendable, CaseIterable {
    case upright = 1, mirrored = 2, rotated180 = 3, flippedVertically = 4
    case transposed = 5, rotated90Clockwise = 6, transversed = 7, rotated90CounterClockwise = 8

    /// The orientation recorded in a JPEG's EXIF (APP1) segment, or nil when there is none
    /// or it cannot be read. A small parser of its own: walks the markers up to the first
    /// scan, then the TIFF header and IFD0; every offset is bounds-checked.
    public init?(jpeg bytes: [UInt8]) {
        guard let tiff = Self.exifPayload(bytes), let value = Self.orientationTag(tiff),
              let orientation = EXIFOrientation(rawValue: value) else { return nil }
        self = orientation
    }

    /// The TIFF data of the first APP1 segment that starts with "Exif\0\0".
    static func exifPayload(_ b: [UInt8]) -> ArraySlice<UInt8>? {
        var payload: ArraySlice<UInt8>?
        JPEG.walkSegments(b) { marker, body in
            guard marker == 0xE1, body.starts(with: [0x45, 0x78, 0x69, 0x66, 0, 0]) else { return false }   // "Exif\0\0"
            payload = body.dropFirst(6)
            return true
        }
        return payload
    }

    /// The Orientation value in IFD0 of TIFF data, or nil.
    static func orientationTag(_ t: ArraySlice<UInt8>) -> Int? {
        let t = Array(t)
        guard let entry = orientationEntry(t) else { return nil }
        return entry.little ? Int(t[entry.value]) | Int(t[entry.value + 1]) << 8 : Int(t[entry.value]) << 8 | Int(t[entry.value + 1])
    }

    /// Where IFD0's Orientation value (type SHORT, one value, in the first two bytes of the
    /// value field) lies in TIFF data, and its byte order; nil when there is none. Every offset
    /// is bounds-checked.
    static func orientationEntry(_ t: [UInt8]) -> (value: Int, little: Bool)? {
        guard t.count >= 8 else { return nil }
        let little: Bool
        switch (t[0], t[1]) {
        case (0x49, 0x49): little = true    // "II"
        case (0x4D, 0x4D): little = false   // "MM"
        default: return nil
        }
        let reader = TIFFContainer.Reader(bytes: t)
        let (u16, u32) = (reader.u16, reader.u32)
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return nil }
        for k in 0..<count {
            let entry = ifd + 2 + 12 * k
            guard let tag = u16(entry) else { return nil }
            if tag == 0x0112 {
                guard u16(entry + 2) == 3, let n = u32(entry + 4), n >= 1, entry + 10 <= t.count else { return nil }
                return (entry + 8, little)
            }
        }
        return nil
    }
}

/// A picture's EXIF block (the TIFF data of a JPEG's APP1 "Exif" segment or of a PNG's eXIf
/// chunk): camera, date, GPS position... What `blazeface redact --keep-metadata` carries over,
/// and what it drops by default, since a GPS tag in a published photo undoes the anonymisation.
public struct EXIFBlock: Sendable, Equatable {
    /// The TIFF data ("II" or "MM", 42, then the IFDs).
    public var tiff: [UInt8]

    /// The block of a JPEG or PNG file's bytes; nil when it has none.
    public init?(file bytes: [UInt8]) {
        if let jpeg = EXIFOrientation.exifPayload(bytes) {
            tiff = Array(jpeg)
        } else if let png = PNG.chunk("eXIf", in: bytes) {
            tiff = png
        } else {
            return nil
        }
    }

    /// Its Orientation tag, or nil when it has none (or one out of 1...8).
    public var orientation: EXIFOrientation? {
        EXIFOrientation.orientationTag(tiff[...]).flatMap(EXIFOrientation.init(rawValue:))
    }

    /// The same block with its Orientation set to 1 (upright), for pixels already turned.
    public func upright() -> EXIFBlock {
        var copy = self
        if let entry = EXIFOrientation.orientationEntry(tiff) {
            (copy.tiff[entry.value], copy.tiff[entry.value + 1]) = entry.little ? (1, 0) : (0, 1)
        }
        return copy
    }
}

extension RGBImage {
    /// The image turned upright for `orientation` (Pillow's `ImageOps.exif_transpose`):
    /// 5 to 8 swap width and height.
    public func applying(_ orientation: EXIFOrientation) -> RGBImage {
        reoriented(exif: orientation.rawValue)
    }
}
