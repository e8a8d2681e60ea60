/// The pixel layouts a `PixelBuffer` can describe: what cameras and decoders deliver.
public enum PixelFormat: String, Sendable, CaseIterable {
    /// Packed 8-bit R, G, B.
    case rgb
    /// Packed 8-bit R, G, B, A; alpha is ignored, as MediaPipe ignores it.
    case rgba
    /// Packed 8-bit B, G, R, A: Apple's and Android's camera default (kCVPixelFormatType_32BGRA).
    case bgra
    /// One 8-bit luma plane; R = G = B.
    case gray
    /// YUV 4:2:0 planar: a Y plane, then a U (Cb) and a V (Cr) plane at half width and height.
    case i420
    /// YUV 4:2:0 bi-planar: a Y plane, then one plane of interleaved U, V pairs (Apple's 420v, ffmpeg's nv12).
    case nv12
    /// YUV 4:2:0 bi-planar with V, U pairs (Android's NV21 camera preview).
    case nv21

    /// Bytes per pixel of the first plane.
    public var bytesPerPixel: Int {
        switch self {
        case .rgb: 3
        case .rgba, .bgra: 4
        case .gray, .i420, .nv12, .nv21: 1
        }
    }

    /// Whether the format is YUV 4:2:0 (converted with `YUVToRGB`).
    public var isYUV: Bool { self == .i420 || self == .nv12 || self == .nv21 }
}
