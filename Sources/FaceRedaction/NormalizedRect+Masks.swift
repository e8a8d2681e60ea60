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

    /// The square `k` times this box's larger side about its centre, in the pixels of a
    /// `width` x `height` picture: where a face is looked at again (close-ups, second opinions,
    /// search regions).
    func square(times k: Float, width: Float, height: Float) -> (centerX: Float, centerY: Float, side: Float) {
        (centerX: (xMin + self.width / 2) * width, centerY: (yMin + self.height / 2) * height,
         side: k * max(self.width * width, self.height * height))
    }
}
