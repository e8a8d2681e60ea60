/// An SSD anchor: a centre and size in normalized tensor coordinates.
public struct Anchor: Sendable, Equatable {
    /// The centre, normalized to the input tensor, and the size (1 x 1 with `fixedAnchorSize`).
    public var xCenter: Float, yCenter: Float, width: Float, height: Float
    /// An anchor from its centre and size.
    public init(xCenter: Float, yCenter: Float, width: Float, height: Float) {
        (self.xCenter, self.yCenter, self.width, self.height) = (xCenter, yCenter, width, height)
    }
}

/// The options of MediaPipe's SsdAnchorsCalculator that BlazeFace uses.
public struct AnchorOptions: Sendable {
    /// The model's input size in pixels (input_size_width, input_size_height).
    public var inputWidth: Int, inputHeight: Int
    /// The scales of the first and last layers; those between are interpolated linearly.
    public var minScale: Float, maxScale: Float
    /// One stride per output layer; consecutive layers with equal strides share one grid.
    public var strides: [Int]
    /// The aspect ratio of each of a cell's anchors (aspect_ratios).
    public var aspectRatios: [Float] = [1]
    /// Where an anchor sits in its cell, as a fraction of the cell (anchor_offset_x, _y).
    public var offsetX: Float = 0.5, offsetY: Float = 0.5
    /// The aspect ratio of the extra interpolated-scale anchor per layer; 0 for none.
    public var interpolatedScaleAspectRatio: Float = 1
    /// Whether every anchor is 1 x 1 (fixed_anchor_size), as MediaPipe's face detection sets it.
    public var fixedAnchorSize = true

    /// face_detector_graph.cc's configuration for the short-range model.
    public static let shortRange = AnchorOptions(inputWidth: 128, inputHeight: 128, minScale: 0.1484375,
                                                 maxScale: 0.75, strides: [8, 16, 16, 16])

    /// face_detection_full_range.pbtxt's configuration: one stride-4 layer, one anchor per
    /// cell of a 48x48 grid (no interpolated-scale anchor), 2304 in all.
    public static let fullRange = AnchorOptions(inputWidth: 192, inputHeight: 192, minScale: 0.1484375, maxScale: 0.75,
                                                strides: [4], interpolatedScaleAspectRatio: 0)

    /// The anchors in the model's output order (ssd_anchors_calculator.cc, `GenerateAnchors`):
    /// layers with equal strides share one grid; per cell, one anchor per aspect ratio plus an
    /// interpolated-scale anchor for each merged layer.
    public func generate() -> [Anchor] {
        func scale(_ i: Int) -> Float {
            strides.count == 1 ? (minScale + maxScale) * 0.5
                : minScale + (maxScale - minScale) * Float(i) / (Float(strides.count) - 1)
        }
        var anchors: [Anchor] = []
        var layer = 0
        while layer < strides.count {
            var sizes: [(w: Float, h: Float)] = []
            var last = layer
            while last < strides.count, strides[last] == strides[layer] {
                let s = scale(last)
                for r in aspectRatios { sizes.append((s * r.squareRoot(), s / r.squareRoot())) }
                if interpolatedScaleAspectRatio > 0 {
                    let next: Float = last == strides.count - 1 ? 1 : scale(last + 1)
                    let r = interpolatedScaleAspectRatio
                    let s2 = (s * next).squareRoot()
                    sizes.append((s2 * r.squareRoot(), s2 / r.squareRoot()))
                }
                last += 1
            }
            let stride = Float(strides[layer])
            let rows = Int((Float(inputHeight) / stride).rounded(.up))
            let cols = Int((Float(inputWidth) / stride).rounded(.up))
            for y in 0..<rows {
                for x in 0..<cols {
                    for size in sizes {
                        anchors.append(Anchor(
                            xCenter: (Float(x) + offsetX) / Float(cols), yCenter: (Float(y) + offsetY) / Float(rows),
                            width: fixedAnchorSize ? 1 : size.w, height: fixedAnchorSize ? 1 : size.h))
                    }
                }
            }
            layer = last
        }
        return anchors
    }
}
