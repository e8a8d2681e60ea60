import BlazeFace
import BlazeImage
import VisionTasks

// Pictures searched turned (`FaceRedactorOptions.searchesTurnedStills`, `searchesTurnedVideo`):
// a photo or a video stored on its side or upside down with nothing to say so (a print scanned
// upside down, a camera mounted upside down, a clip whose rotation flag an editor dropped)
// holds faces neither network was trained to see.

extension RGBImage {
    /// The picture turned `quarterTurns` (1...3) quarter turns clockwise, as a viewer turns a
    /// photo of EXIF orientation 6, 3 or 8; 1 and 3 swap its sides.
    func turnedClockwise(_ quarterTurns: Int) -> RGBImage {
        reoriented(exif: [6, 3, 8][quarterTurns - 1])
    }
}

extension RGBImage {
    /// The pixels of a video frame as RGB, for turning: an `RGBImage` as it is, a `PixelBuffer`
    /// converted as detection samples it; nil for another kind of pixels.
    static func copy<P: SampledPixels>(of pixels: P) -> RGBImage? {
        if let image = pixels as? RGBImage { return image }
        if let buffer = pixels as? PixelBuffer { return RGBImage(buffer) }
        return nil
    }
}

extension NormalizedRect {
    /// The box in the picture turned `quarterTurns` clockwise (the inverse of
    /// `RawDetection.turnedBack`).
    func turnedClockwise(_ quarterTurns: Int) -> NormalizedRect {
        var b = self
        for _ in 0..<quarterTurns {
            // One quarter turn clockwise: (x, y) -> (1 - y, x).
            b = NormalizedRect(xMin: 1 - b.yMin - b.height, yMin: b.xMin, width: b.height, height: b.width)
        }
        return b
    }
}

extension RawDetection {
    /// A detection in the picture turned `quarterTurns` clockwise, in the picture's own
    /// normalized coordinates (its box and keypoints turned back).
    func turnedBack(_ quarterTurns: Int) -> RawDetection {
        var back = self
        for _ in 0..<quarterTurns {
            // One quarter turn back (counter-clockwise): (x, y) -> (y, 1 - x).
            let b = back.box
            back.box = NormalizedRect(xMin: b.yMin, yMin: 1 - b.xMin - b.width, width: b.height, height: b.width)
            for i in back.keypoints.indices {
                let p = back.keypoints[i]
                back.keypoints[i] = (x: p.y, y: 1 - p.x)
            }
        }
        return back
    }
}
