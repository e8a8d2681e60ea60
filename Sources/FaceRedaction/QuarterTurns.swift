import BlazeFace
import BlazeImage

// Stills searched turned (`FaceRedactorOptions.searchesTurnedStills`): a photo stored on its
// side or upside down with no EXIF to say so (a print scanned upside down, a camera mounted
// upside down, a picture saved sideways) holds faces neither network was trained to see.

extension RGBImage {
    /// The picture turned `quarterTurns` (1...3) quarter turns clockwise; 1 and 3 swap its sides.
    func turnedClockwise(_ quarterTurns: Int) -> RGBImage {
        let (w, h) = (width, height)
        let swaps = quarterTurns % 2 == 1
        let (ow, oh) = swaps ? (h, w) : (w, h)
        var out = [UInt8](repeating: 0, count: pixels.count)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for y in 0..<oh {
                    for x in 0..<ow {
                        // The source pixel shown at (x, y) after the turn.
                        let (sx, sy) = switch quarterTurns {
                        case 1: (y, h - 1 - x)
                        case 2: (w - 1 - x, h - 1 - y)
                        default: (w - 1 - y, x)
                        }
                        let s = (sy * w + sx) * 3, d = (y * ow + x) * 3
                        (dst[d], dst[d + 1], dst[d + 2]) = (src[s], src[s + 1], src[s + 2])
                    }
                }
            }
        }
        return RGBImage(unchecked: ow, oh, out)
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
