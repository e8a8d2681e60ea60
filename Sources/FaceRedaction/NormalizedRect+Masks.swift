import BlazeFace

extension NormalizedRect {
    /// The smallest box holding this one and `other`.
    func union(_ other: NormalizedRect) -> NormalizedRect {
        let x0 = min(xMin, other.xMin), y0 = min(yMin, other.yMin)
        return NormalizedRect(xMin: x0, yMin: y0, width: max(xMin + width, other.xMin + other.width) - x0,
                              height: max(yMin + height, other.yMin + other.height) - y0)
    }

    /// The box scaled by `factor` about its centre.
    func scaled(by factor: Float) -> NormalizedRect {
        let (w, h) = (width * factor, height * factor)
        return NormalizedRect(xMin: xMin + (width - w) / 2, yMin: yMin + (height - h) / 2, width: w, height: h)
    }
}
