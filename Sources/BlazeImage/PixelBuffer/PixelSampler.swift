import CPixelWarp
import CVectorMath

/// Reads one pixel as R, G, B (lane 3 unused) from some pixel layout: the tap that
/// pre-processing (BlazeFace's ImageToTensor) applies at each bilinear sample, so every
/// format is converted per tap, straight into the tensor, without an intermediate RGB image.
public protocol PixelSampler {
    /// The image's width in pixels.
    var width: Int { get }
    /// The image's height in pixels.
    var height: Int { get }
    /// R, G, B of the pixel at column `x`, row `y`; both must be inside the image.
    func rgb(_ x: Int, _ y: Int) -> SIMD4<Int32>
    /// The bilinear sum of the 2x2 taps at (x, y) with OpenCV's fixed-point weights for the
    /// 1/32-pixel fractions `ax`, `ay` (0...31), over 32: `rgb(x, y) (32 - ay)(32 - ax) +
    /// rgb(x + 1, y) (32 - ay) ax + rgb(x, y + 1) ay (32 - ax) + rgb(x + 1, y + 1) ay ax`.
    /// All four taps must be inside the image. Defaults to `fourTapBilinearSum`.
    func bilinearSum(_ x: Int, _ y: Int, ax: Int32, ay: Int32) -> SIMD4<Int32>
    /// A warp's run of destination pixels in one call, where the format has a kernel for it:
    /// for the sample positions at `positions` (x, y pairs in 1/32 pixels), writes
    /// `fma((bilinearSum + 512) >> 10, scale, offset)` as R, G, B floats to `output` while a
    /// pixel's taps lie inside the image, and returns how many it wrote. Defaults to 0 (the
    /// caller samples pixel by pixel).
    func warpInterior(positions: UnsafePointer<Int32>, count: Int, scale: Float, offset: Float,
                      output: UnsafeMutablePointer<Float>) -> Int
    /// Asks for the taps of `bilinearSum(x, y, ...)` (inside the image) to be brought into
    /// cache before a warp samples them; a hint only. Defaults to nothing.
    func prefetchTaps(_ x: Int, _ y: Int)
}

extension PixelSampler {
    /// The default: no hint; the taps are read when sampled.
    @inlinable
    public func prefetchTaps(_ x: Int, _ y: Int) {}

    /// The default: writes none, so the caller samples pixel by pixel.
    @inlinable @inline(__always)
    public func warpInterior(positions: UnsafePointer<Int32>, count: Int, scale: Float, offset: Float,
                             output: UnsafeMutablePointer<Float>) -> Int { 0 }

    /// The default: the four taps through `rgb` (`fourTapBilinearSum`), or the one whose
    /// weight is whole (a tile seen at its own scale samples pixel centres exactly, and a tap
    /// of a YUV or four-byte format costs a conversion). The same sum either way.
    @inlinable @inline(__always)
    public func bilinearSum(_ x: Int, _ y: Int, ax: Int32, ay: Int32) -> SIMD4<Int32> {
        if ax == 0 && ay == 0 { return rgb(x, y) &* 1024 }
        return fourTapBilinearSum(x, y, ax: ax, ay: ay)
    }

    /// `bilinearSum` tap by tap through `rgb`, in the order of its formula.
    @inlinable @inline(__always)
    package func fourTapBilinearSum(_ x: Int, _ y: Int, ax: Int32, ay: Int32) -> SIMD4<Int32> {
        var v = rgb(x, y) &* ((32 &- ay) &* (32 &- ax))
        v &+= rgb(x &+ 1, y) &* ((32 &- ay) &* ax)
        v &+= rgb(x, y &+ 1) &* (ay &* (32 &- ax))
        v &+= rgb(x &+ 1, y &+ 1) &* (ay &* ax)
        return v
    }
}

/// Whether the C warp kernels emulate the fma exactly (the `ExactFMA` trait, for builds
/// without FMA) rather than use `bf_fma4`: 1 or 0, as the kernels take it.
@inlinable @inline(__always) var warpExactFMA: Int32 {
    #if ExactFMA
    1
    #else
    0
    #endif
}

/// Code generic over the sampler, run with the concrete sampler of a buffer's format
/// (`PixelBuffer.withSampler`): the format is switched on once per image, not per pixel.
public protocol PixelSamplerVisitor {
    /// What the visit returns.
    associatedtype Result
    /// Runs the generic code with `sampler`, the concrete sampler of the pixels' format.
    func visit<S: PixelSampler>(_ sampler: S) -> Result
}

/// Pixels that hand a `PixelSamplerVisitor` their sampler: `RGBImage` and `PixelBuffer`, so
/// that code taking either (detection, its input tensor) is written once.
public protocol SampledPixels {
    /// The width in pixels.
    var width: Int { get }
    /// The height in pixels.
    var height: Int { get }
    /// Calls `visitor` with the sampler for these pixels' layout and returns its result.
    func withSampler<V: PixelSamplerVisitor>(_ visitor: V) -> V.Result
}

extension PixelBuffer: SampledPixels {
    /// Calls `visitor` with the sampler for this buffer's format.
    @inlinable
    public func withSampler<V: PixelSamplerVisitor>(_ visitor: V) -> V.Result {
        let p = plane0
        switch format {
        case .rgb: return visitor.visit(RGBSampler(width: width, height: height, base: p.base, rowStride: p.rowStride, byteCount: p.byteCount))
        case .rgba: return visitor.visit(FourByteSampler(width: width, height: height, base: p.base, rowStride: p.rowStride, red: 0, blue: 2))
        case .bgra: return visitor.visit(FourByteSampler(width: width, height: height, base: p.base, rowStride: p.rowStride, red: 2, blue: 0))
        case .gray: return visitor.visit(GraySampler(width: width, height: height, base: p.base, rowStride: p.rowStride))
        case .i420:
            let u = plane1 ?? p, v = plane2 ?? p
            return visitor.visit(YUVSampler(width: width, height: height, y: p.base, yStride: p.rowStride,
                                            cb: u.base, cr: v.base, cbStride: u.rowStride, crStride: v.rowStride, chromaStep: 1))
        case .nv12, .nv21:
            let c = plane1 ?? p
            let (cb, cr) = format == .nv12 ? (c.base, c.base + 1) : (c.base + 1, c.base)
            return visitor.visit(YUVSampler(width: width, height: height, y: p.base, yStride: p.rowStride,
                                            cb: cb, cr: cr, cbStride: c.rowStride, crStride: c.rowStride, chromaStep: 2))
        }
    }
}

extension RGBImage: SampledPixels {
    /// Calls `visitor` with a sampler over this image's pixels; an image whose pixel count does
    /// not match its size gets an empty (0x0) sampler, which readers refuse, so nothing is read
    /// out of bounds.
    @inlinable
    public func withSampler<V: PixelSamplerVisitor>(_ visitor: V) -> V.Result {
        pixels.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress, width > 0, height > 0, bytes.count == width * height * 3 else {
                return visitor.visit(EmptySampler())
            }
            return visitor.visit(RGBSampler(width: width, height: height, base: base, rowStride: 3 * width, byteCount: bytes.count))
        }
    }
}

/// No pixels: what an inconsistent image presents (0x0; `rgb` is never valid to call).
public struct EmptySampler: PixelSampler {
    /// Always 0: there are no pixels.
    public var width: Int { 0 }
    /// Always 0: there are no pixels.
    public var height: Int { 0 }
    /// The sampler of an inconsistent image.
    @inlinable public init() {}
    /// Zero: no pixel lies inside a 0x0 image, so readers never call it.
    @inlinable public func rgb(_ x: Int, _ y: Int) -> SIMD4<Int32> { .zero }
}

/// Packed R, G, B: one 4-byte load when the fourth byte is still inside the buffer.
public struct RGBSampler: PixelSampler {
    /// The image size in pixels.
    public let width: Int, height: Int
    /// The first byte of the top row.
    public let base: UnsafeRawPointer
    /// Bytes from row to row, and bytes readable from `base` (the bound on the wide loads).
    public let rowStride: Int, byteCount: Int

    /// Samples the packed R, G, B bytes at `base`, which must stay valid while the sampler is used.
    @inlinable public init(width: Int, height: Int, base: UnsafeRawPointer, rowStride: Int, byteCount: Int) {
        (self.width, self.height, self.base, self.rowStride, self.byteCount) = (width, height, base, rowStride, byteCount)
    }

    /// R, G, B of pixel (x, y) from one 4-byte load (lane 3 then holds the next byte), or
    /// byte by byte where that load would pass the buffer's end.
    @inlinable @inline(__always)
    public func rgb(_ x: Int, _ y: Int) -> SIMD4<Int32> {
        let i = y &* rowStride &+ 3 &* x
        if i &+ 4 <= byteCount {
            return SIMD4<Int32>(truncatingIfNeeded: base.loadUnaligned(fromByteOffset: i, as: SIMD4<UInt8>.self))
        }
        let p = base.assumingMemoryBound(to: UInt8.self) + i
        return SIMD4(Int32(p[0]), Int32(p[1]), Int32(p[2]), 0)
    }

    /// Each row's two taps in one 8-byte load, weighted by 8- and 16-bit multiply-adds
    /// (`bf_bilinear_rgb`, the same integers) while the lower row's load stays inside the
    /// buffer; the four-tap sum otherwise (the buffer's last two pixels).
    @inlinable @inline(__always)
    public func bilinearSum(_ x: Int, _ y: Int, ax: Int32, ay: Int32) -> SIMD4<Int32> {
        let upper = y &* rowStride &+ 3 &* x, lower = upper &+ rowStride
        guard lower &+ 8 <= byteCount else { return fourTapBilinearSum(x, y, ax: ax, ay: ay) }
        let p = base.assumingMemoryBound(to: UInt8.self)
        return bf_bilinear_rgb(p + upper, p + lower, ax, ay)
    }

    /// The cache lines of the pixel's row and of the row below (the load `bilinearSum` makes).
    @inlinable
    public func prefetchTaps(_ x: Int, _ y: Int) {
        let upper = y &* rowStride &+ 3 &* x
        bf_prefetch(base + upper)
        bf_prefetch(base + min(upper &+ rowStride, byteCount &- 1))
    }

    /// The run in C (`bf_warp_rgb_interior`): the same integers as `bilinearSum`, the same fma
    /// (exactly emulated under the `ExactFMA` trait where the build has no FMA).
    @inlinable @inline(__always)
    public func warpInterior(positions: UnsafePointer<Int32>, count: Int, scale: Float, offset: Float,
                             output: UnsafeMutablePointer<Float>) -> Int {
        return bf_warp_rgb_interior(positions, count, base.assumingMemoryBound(to: UInt8.self), rowStride, width, height,
                                    byteCount, scale, offset, output, warpExactFMA)
    }
}

/// Four bytes per pixel, red and blue at the given offsets (RGBA or BGRA); alpha ignored.
public struct FourByteSampler: PixelSampler {
    /// The image size in pixels.
    public let width: Int, height: Int
    /// The first byte of the top row.
    public let base: UnsafeRawPointer
    /// Bytes from row to row, and the byte offsets of red and blue within a pixel.
    public let rowStride: Int, red: Int, blue: Int

    /// Samples the 4-byte pixels at `base` (RGBA: red 0, blue 2; BGRA: red 2, blue 0).
    @inlinable public init(width: Int, height: Int, base: UnsafeRawPointer, rowStride: Int, red: Int, blue: Int) {
        (self.width, self.height, self.base, self.rowStride, self.red, self.blue) = (width, height, base, rowStride, red, blue)
    }

    /// R, G, B of pixel (x, y), from one 4-byte load of the pixel.
    @inlinable @inline(__always)
    public func rgb(_ x: Int, _ y: Int) -> SIMD4<Int32> {
        let v = SIMD4<Int32>(truncatingIfNeeded: base.loadUnaligned(fromByteOffset: y &* rowStride &+ 4 &* x, as: SIMD4<UInt8>.self))
        return SIMD4(v[red], v[1], v[blue], 0)
    }
}

/// One luma byte per pixel, replicated to R, G and B.
public struct GraySampler: PixelSampler {
    /// The image size in pixels.
    public let width: Int, height: Int
    /// The first byte of the top row.
    public let base: UnsafeRawPointer
    /// Bytes from row to row.
    public let rowStride: Int

    /// Samples the 8-bit luma plane at `base`.
    @inlinable public init(width: Int, height: Int, base: UnsafeRawPointer, rowStride: Int) {
        (self.width, self.height, self.base, self.rowStride) = (width, height, base, rowStride)
    }

    /// The luma byte of pixel (x, y) as R, G and B.
    @inlinable @inline(__always)
    public func rgb(_ x: Int, _ y: Int) -> SIMD4<Int32> {
        let v = Int32(base.load(fromByteOffset: y &* rowStride &+ x, as: UInt8.self))
        return SIMD4(v, v, v, 0)
    }
}

/// YUV 4:2:0, planar or bi-planar: Y at (x, y), Cb and Cr at (x / 2, y / 2), `chromaStep`
/// bytes apart along a row (1 planar, 2 interleaved), converted by `YUVToRGB`.
public struct YUVSampler: PixelSampler {
    /// The image size in pixels (the size of the Y plane).
    public let width: Int, height: Int
    /// The first byte of the Y plane, and its bytes from row to row.
    public let y: UnsafeRawPointer, yStride: Int
    /// The first Cb and the first Cr byte (one byte apart in one plane for NV12 and NV21).
    public let cb: UnsafeRawPointer, cr: UnsafeRawPointer
    /// Bytes from row to row of the Cb and Cr samples, and from one chroma sample to the next.
    public let cbStride: Int, crStride: Int, chromaStep: Int

    /// Samples I420 (`chromaStep` 1) or NV12 and NV21 (`chromaStep` 2) planes at these pointers.
    @inlinable public init(width: Int, height: Int, y: UnsafeRawPointer, yStride: Int, cb: UnsafeRawPointer, cr: UnsafeRawPointer,
                           cbStride: Int, crStride: Int, chromaStep: Int) {
        (self.width, self.height, self.y, self.yStride) = (width, height, y, yStride)
        (self.cb, self.cr, self.cbStride, self.crStride, self.chromaStep) = (cb, cr, cbStride, crStride, chromaStep)
    }

    /// R, G, B of pixel (x, row): its Y with the Cb and Cr of its 2x2 block, as `YUVToRGB`
    /// converts them (limited range).
    @inlinable @inline(__always)
    public func rgb(_ x: Int, _ row: Int) -> SIMD4<Int32> {
        let luma = y.load(fromByteOffset: row &* yStride &+ x, as: UInt8.self)
        let cx = (x >> 1) &* chromaStep, cy = row >> 1
        let u = cb.load(fromByteOffset: cy &* cbStride &+ cx, as: UInt8.self)
        let v = cr.load(fromByteOffset: cy &* crStride &+ cx, as: UInt8.self)
        return YUVToRGB.rgb(y: Int32(luma), cb: Int32(u), cr: Int32(v))
    }

    /// The cache lines of the pixel's luma row and the row below, and of its chroma samples.
    @inlinable
    public func prefetchTaps(_ x: Int, _ row: Int) {
        let luma = row &* yStride &+ x, cx = (x >> 1) &* chromaStep, cy = row >> 1
        bf_prefetch(y + luma)
        bf_prefetch(y + (luma &+ min(yStride, (height &- 1 &- row) &* yStride)))
        bf_prefetch(cb + (cy &* cbStride &+ cx))
        bf_prefetch(cr + (cy &* crStride &+ cx))
    }

    /// The run in C (`bf_warp_yuv420_interior`): the same taps, integers and fma as `rgb` and
    /// `bilinearSum`; sixteen pixels at a time with AVX-512.
    @inlinable @inline(__always)
    public func warpInterior(positions: UnsafePointer<Int32>, count: Int, scale: Float, offset: Float,
                             output: UnsafeMutablePointer<Float>) -> Int {
        return bf_warp_yuv420_interior(positions, count, y.assumingMemoryBound(to: UInt8.self), yStride,
                                       cb.assumingMemoryBound(to: UInt8.self), cr.assumingMemoryBound(to: UInt8.self),
                                       cbStride, crStride, chromaStep, width, height, scale, offset, output, warpExactFMA)
    }
}
