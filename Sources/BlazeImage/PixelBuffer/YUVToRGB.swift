/// The one YUV -> RGB conversion of this package: ITU-R BT.601, limited ("video") range,
/// Y in 16...235 and Cb, Cr in 16...240, as Android cameras, V4L2 webcams and ffmpeg's
/// default yuv420p deliver it. 8-bit fixed point, rounded, clamped to 0...255:
///
///     R = (298 (Y-16)                + 409 (Cr-128) + 128) >> 8
///     G = (298 (Y-16) - 100 (Cb-128) - 208 (Cr-128) + 128) >> 8
///     B = (298 (Y-16) + 516 (Cb-128)                + 128) >> 8
///
/// 4:2:0 chroma is taken from the sample covering the pixel (nearest, no interpolation).
/// Full range (JPEG's, and Y4M's `XCOLORRANGE=FULL`), Y, Cb, Cr in 0...255, is
/// `R = (256 Y + 359 (Cr-128) + 128) >> 8`, `G = (256 Y - 88 (Cb-128) - 183 (Cr-128) + 128) >> 8`,
/// `B = (256 Y + 454 (Cb-128) + 128) >> 8`.
public enum YUVToRGB {
    /// R, G, B (lane 3 is 0) of one Y, Cb, Cr triple.
    @inlinable @inline(__always)
    public static func rgb(y: Int32, cb: Int32, cr: Int32) -> SIMD4<Int32> {
        let c = 298 &* (y &- 16) &+ 128, d = cb &- 128, e = cr &- 128
        let v = SIMD4<Int32>(c &+ 409 &* e, c &- 100 &* d &- 208 &* e, c &+ 516 &* d, 0) &>> 8
        return v.clamped(lowerBound: .zero, upperBound: SIMD4(255, 255, 255, 0))
    }

    /// The full-range conversion: R, G, B (lane 3 is 0) of one Y, Cb, Cr triple.
    @inlinable @inline(__always)
    public static func rgbFullRange(y: Int32, cb: Int32, cr: Int32) -> SIMD4<Int32> {
        let c = 256 &* y &+ 128, d = cb &- 128, e = cr &- 128
        let v = SIMD4<Int32>(c &+ 359 &* e, c &- 88 &* d &- 183 &* e, c &+ 454 &* d, 0) &>> 8
        return v.clamped(lowerBound: .zero, upperBound: SIMD4(255, 255, 255, 0))
    }

    /// One pixel as bytes, limited range unless `fullRange`.
    public static func rgb(y: UInt8, cb: UInt8, cr: UInt8, fullRange: Bool = false) -> (r: UInt8, g: UInt8, b: UInt8) {
        let v = fullRange ? rgbFullRange(y: Int32(y), cb: Int32(cb), cr: Int32(cr)) : rgb(y: Int32(y), cb: Int32(cb), cr: Int32(cr))
        return (UInt8(v[0]), UInt8(v[1]), UInt8(v[2]))
    }
}
