import BlazeFace
import BlazeImage

// Stills searched turned (`FaceRedactorOptions.searchesTurnedStills`): a photo stored on its
// side or upside down with no EXIF to say so (a print scanned upside down, a camera mounted
// upside down, a picture saved sideways) holds faces neither network was trained to see.

extension RGBImage {
    /// The picture turned `quarterTurns` (1...3) quarter turns clockwise, as a viewer turns a
    /// photo of EXIF orientation 6, 3 or 8; 1 and 3 swap its sides.
    func turnedClockwise(_ quarterTurns: Int) -> RGBImage {
        reoriented(exif: [6, 3, 8][quarterTurns - 1])
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
