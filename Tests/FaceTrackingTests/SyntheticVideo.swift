import BlazeImageIO
import BlazeFace
import BlazeImage
import Foundation
import Testing

/// Videos made inside the tests from the fixture photos (Tests/Fixtures/images): face crops
/// pasted onto a plain background, moving along known paths, so every frame's identities are known.
enum SyntheticVideo {
    static let images = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/images")
    static let weights = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Weights/face_detection_short_range.bin").path

    /// The faces: a square crop around each face MediaPipe finds in the fixture (1.5x its box).
    enum Face: Int, CaseIterable, Sendable {
        case astronaut, left, right

        var source: (file: String, centerX: Float, centerY: Float, side: Float) {
            switch self {
            case .astronaut: ("astronaut", 224.5, 129.5, 142)          // box 177, 82, 95, 95
            case .left: ("two_faces_1280x853", 334, 529, 537)          // box 155, 350, 358, 358
            case .right: ("two_faces_1280x853", 1050, 304, 312)        // box 946, 200, 208, 208
            }
        }
    }

    /// Sprites of `size` pixels, cached per test run.
    static func sprite(_ face: Face, size: Int) throws -> RGBImage {
        let s = face.source
        let photo = try PNG.read(contentsOf: images.appendingPathComponent("\(s.file).png").path)
        return try resample(photo, centerX: s.centerX, centerY: s.centerY, side: s.side, size: size)
    }

    /// A bilinear resampling of the square (centre, side) of `image` to size x size.
    static func resample(_ image: RGBImage, centerX: Float, centerY: Float, side: Float, size: Int) throws -> RGBImage {
        var out = try RGBImage(width: size, height: size)
        let step = side / Float(size)
        for y in 0..<size {
            for x in 0..<size {
                let sx = centerX - side / 2 + (Float(x) + 0.5) * step - 0.5
                let sy = centerY - side / 2 + (Float(y) + 0.5) * step - 0.5
                let x0 = min(max(Int(sx.rounded(.down)), 0), image.width - 2), y0 = min(max(Int(sy.rounded(.down)), 0), image.height - 2)
                let fx = min(max(sx - Float(x0), 0), 1), fy = min(max(sy - Float(y0), 0), 1)
                func mix(_ c: KeyPath<(r: UInt8, g: UInt8, b: UInt8), UInt8>) -> UInt8 {
                    let a = Float(image[x0, y0][keyPath: c]) * (1 - fx) + Float(image[x0 + 1, y0][keyPath: c]) * fx
                    let b = Float(image[x0, y0 + 1][keyPath: c]) * (1 - fx) + Float(image[x0 + 1, y0 + 1][keyPath: c]) * fx
                    return UInt8((a * (1 - fy) + b * fy).rounded())
                }
                out[x, y] = (mix(\.r), mix(\.g), mix(\.b))
            }
        }
        return out
    }

    /// Copies `sprite` with its top-left corner at (x, y), clipped to the frame.
    static func paste(_ sprite: RGBImage, into frame: inout RGBImage, x: Int, y: Int) {
        for sy in 0..<sprite.height where (0..<frame.height).contains(y + sy) {
            for sx in 0..<sprite.width where (0..<frame.width).contains(x + sx) {
                frame[x + sx, y + sy] = sprite[sx, sy]
            }
        }
    }

    /// Where each face is in one frame: its sprite's top-left corner; nil when off screen or covered.
    struct Placement: Sendable {
        var face: Face
        var x: Int, y: Int
        var covered = false
    }

    struct Scene {
        var width = 256, height = 192, spriteSize = 96
        var background: (r: UInt8, g: UInt8, b: UInt8) = (118, 124, 130)
        /// Frame by frame, the faces and their positions.
        var frames: [[Placement]]

        func render(_ index: Int, sprites: [Face: RGBImage]) throws -> RGBImage {
            var frame = try RGBImage(width: width, height: height, fill: background)
            for p in frames[index] {
                guard let sprite = sprites[p.face] else { continue }
                paste(sprite, into: &frame, x: p.x, y: p.y)
                if p.covered {   // an occluder: a dark card over the whole face
                    frame.strokeRectangle(x: p.x - 2, y: p.y - 2, width: spriteSize + 4, height: spriteSize + 4,
                                          color: (40, 40, 40), thickness: spriteSize / 2 + 2)
                }
            }
            return frame
        }

        /// The face a detection belongs to: the visible placement whose sprite centre is nearest
        /// the box centre, within half a sprite; nil for a detection that matches none.
        func identity(of d: Detection, frame index: Int) -> Face? {
            let cx = (d.relativeBoundingBox.xMin + d.relativeBoundingBox.width / 2) * Float(width)
            let cy = (d.relativeBoundingBox.yMin + d.relativeBoundingBox.height / 2) * Float(height)
            let half = Float(spriteSize) / 2
            let candidates = frames[index].filter { !$0.covered }.map { p -> (Face, Float) in
                let dx = Float(p.x) + half - cx, dy = Float(p.y) + half - cy
                return (p.face, (dx * dx + dy * dy).squareRoot())
            }.filter { $0.1 < half }
            return candidates.min { $0.1 < $1.1 }?.0
        }
    }

    /// The scoring of a tracked run against the scene's identities.
    struct Score: CustomStringConvertible {
        /// Times a face's tracking ID differs from the one it had when last detected.
        var idSwitches = 0
        /// Faces detected (matched to a face), and faces visible (not covered, centre in the frame).
        var detected = 0, visible = 0
        /// Detections matching no face.
        var falsePositives = 0
        /// Every ID each face was given, in order of first use.
        var ids: [Face: [Int]] = [:]
        var description: String { "switches \(idSwitches), detected \(detected)/\(visible), false \(falsePositives), ids \(ids)" }
    }

    static func score(_ scene: Scene, _ tracked: [TrackingFrameLike]) -> Score {
        var s = Score()
        var last: [Face: Int] = [:]
        for (i, frame) in tracked.enumerated() {
            let half = scene.spriteSize / 2
            s.visible += scene.frames[i].filter {
                !$0.covered && (0..<scene.width).contains($0.x + half) && (0..<scene.height).contains($0.y + half)
            }.count
            for (id, d) in frame.faces {
                guard let face = scene.identity(of: d, frame: i) else { s.falsePositives += 1; continue }
                s.detected += 1
                guard let id else { continue }
                if let previous = last[face], previous != id { s.idSwitches += 1 }
                if !(s.ids[face] ?? []).contains(id) { s.ids[face, default: []].append(id) }
                last[face] = id
            }
        }
        return s
    }

    /// A frame's faces as (ID, detection) pairs.
    struct TrackingFrameLike { var faces: [(Int?, Detection)] }
}
