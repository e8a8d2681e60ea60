import BlazeFace
import BlazeImage
@testable import FaceRedaction
import Testing

/// A face found late, followed back by its look where the detector no longer finds it (a
/// 10-pixel face walking towards a dash camera, found once it is 15 pixels tall).
@Suite struct FaceFollowingTests {
    /// A 160x120 gray frame: a mid-gray ground with faint noise, and a 12x14 textured "face"
    /// whose top-left corner is at (x, y), or none.
    static func frame(faceAt corner: (x: Int, y: Int)?, seed: UInt64 = 1) throws -> VideoFrame {
        let (w, h) = (160, 120)
        var random = seed
        func noise() -> Int {   // a fixed sequence, -2...2
            random = random &* 6364136223846793005 &+ 1442695040888963407
            return Int((random >> 33) % 5) - 2
        }
        var bytes = (0..<(w * h)).map { _ in UInt8(128 + noise()) }
        if let (x0, y0) = corner {
            for y in 0..<14 {
                for x in 0..<12 {
                    // Eyes, a mouth and skin, as a detector would not care but a patch match does.
                    let value = (y == 4 && (x == 3 || x == 8)) ? 40 : (y == 10 && (3...8).contains(x)) ? 70 : 200 - 6 * y
                    bytes[(y0 + y) * w + x0 + x] = UInt8(value + noise())
                }
            }
        }
        return try VideoFrame(format: .gray, width: w, height: h, bytes: bytes, presentationTime: 0, timeBase: .milliseconds)
    }

    static func box(_ x: Int, _ y: Int) -> NormalizedRect {
        NormalizedRect(xMin: Float(x) / 160, yMin: Float(y) / 120, width: 12 / 160, height: 14 / 120)
    }

    @Test func aFaceIsFoundWhereItWasInTheFrameBefore() throws {
        // It moved 4 right and 2 down between the frames: it was 4 left and 2 up before.
        let later = try Self.frame(faceAt: (70, 50), seed: 1), earlier = try Self.frame(faceAt: (66, 48), seed: 2)
        let found = try #require(FaceFollowing.follow(Self.box(70, 50), from: later, into: earlier))
        #expect(abs(found.xMin * 160 - 66) < 0.01 && abs(found.yMin * 120 - 48) < 0.01, "\(found)")
        #expect(found.width == Self.box(70, 50).width && found.height == Self.box(70, 50).height)
        // Not moved at all.
        let still = try #require(FaceFollowing.follow(Self.box(70, 50), from: later, into: try Self.frame(faceAt: (70, 50), seed: 3)))
        #expect(abs(still.xMin * 160 - 70) < 0.01 && abs(still.yMin * 120 - 50) < 0.01)
    }

    @Test func nothingIsFoundWhereNothingLooksLikeIt() throws {
        let later = try Self.frame(faceAt: (70, 50))
        // The face was not there yet (behind something, out of the picture).
        #expect(FaceFollowing.follow(Self.box(70, 50), from: later, into: try Self.frame(faceAt: nil, seed: 2)) == nil)
        // Further than half its side away: out of a frame's reach.
        #expect(FaceFollowing.follow(Self.box(70, 50), from: later, into: try Self.frame(faceAt: (40, 50), seed: 2)) == nil)
        // A patch with no texture (plain ground) matches anywhere: it is not followed.
        let plain = try Self.frame(faceAt: nil)
        #expect(FaceFollowing.follow(Self.box(20, 20), from: plain, into: try Self.frame(faceAt: nil, seed: 2)) == nil)
        // A box mostly off the picture, or frames of two sizes.
        #expect(FaceFollowing.follow(NormalizedRect(xMin: 0.97, yMin: 0.4, width: 0.1, height: 0.1), from: later, into: later) == nil)
        let small = try VideoFrame(format: .gray, width: 80, height: 60, bytes: [UInt8](repeating: 128, count: 80 * 60),
                                   presentationTime: 0, timeBase: .milliseconds)
        #expect(FaceFollowing.follow(Self.box(70, 50), from: later, into: small) == nil)
    }

    /// Where the detector misses the face three frames in a row, the trace goes on by `follow`
    /// alone, as far as the face looks the same; frames it followed get the face's own box.
    @Test func theTraceGoesOnByLookWhereTheDetectorStops() throws {
        func truth(_ f: Int) -> NormalizedRect { NormalizedRect(xMin: 0.1 + 0.02 * Float(f), yMin: 0.4, width: 0.1, height: 0.1) }
        var detectorAsked: [Int] = [], followAsked: [(from: Int, into: Int)] = []
        var window = try LookBehind<Int>(depth: 12, retrace: { frame, near in
            detectorAsked.append(frame)
            return frame >= 6 && abs(truth(frame).xMin - near.xMin) < 0.05 ? truth(frame) : nil   // too small before frame 6
        }, follow: { near, from, into in
            followAsked.append((from, into))
            // The face looks the same from frame 1 on (it came out from behind a pillar at frame 1).
            return into >= 1 && abs(truth(from).xMin - near.xMin) < 1e-6 ? truth(into) : nil
        })
        var out: [(frame: Int, boxes: [NormalizedRect])] = []
        for f in 0..<18 {
            let masks = f >= 10 ? [RedactionMask(trackingID: 4, box: truth(f), isDetected: true)] : []
            if let done = window.push(f, masks: masks) { out.append(done) }
        }
        out += window.drain()
        // The detector finds it back to 6, misses 5, 4, 3 and is asked no more; the look carries it from 5 to 1.
        #expect(detectorAsked == [9, 8, 7, 6, 5, 4, 3])
        #expect(followAsked.map(\.into) == [5, 4, 3, 2, 1, 0])
        #expect(followAsked.map(\.from) == [6, 5, 4, 3, 2, 1])
        #expect(window.retracedMasks == 9)
        for f in 1..<10 {
            let t = truth(f)
            #expect(out[f].boxes.contains { $0.xMin <= t.xMin + 1e-6 && $0.xMin + $0.width >= t.xMin + t.width - 1e-6 }, "frame \(f): \(out[f].boxes)")
        }
    }

    /// A confirmed face the detector loses is followed on by its look, from its box on the frame
    /// before, while it looks the same and for at most `depth` frames after its last detection.
    @Test func aLostFaceIsFollowedOnByLook() throws {
        func truth(_ f: Int) -> NormalizedRect { NormalizedRect(xMin: 0.1 + 0.03 * Float(f), yMin: 0.4, width: 0.1, height: 0.1) }
        for (depth, gone) in [(10, 9), (3, 20)] {
            var asked: [(from: Int, into: Int)] = []
            var window = try LookBehind<Int>(depth: depth, follow: { near, from, into in
                asked.append((from, into))
                // It walks on, unseen by the detector, until it leaves the picture at frame `gone`.
                return into < gone && abs(truth(from).xMin - near.xMin) < 1e-6 ? truth(into) : nil
            })
            var out: [(frame: Int, boxes: [NormalizedRect])] = []
            for f in 0..<16 {
                // Detected on frames 0 to 4 only; the tracker's linger is left out here.
                let masks = f < 5 ? [RedactionMask(trackingID: 7, box: truth(f), isDetected: true)] : []
                if let done = window.push(f, masks: masks) { out.append(done) }
            }
            out += window.drain()
            let last = min(gone - 1, 4 + depth)   // the last frame it is followed to
            #expect(asked.map(\.into) == Array(5...min(gone, 4 + depth)), "depth \(depth): \(asked)")
            for f in 5...last {
                let t = truth(f)
                #expect(out[f].boxes.contains { $0.xMin <= t.xMin + 1e-6 && $0.xMin + $0.width >= t.xMin + t.width - 1e-6 }, "frame \(f): \(out[f].boxes)")
            }
        }
        // A face never confirmed is not followed.
        var asked = 0
        var window = try LookBehind<Int>(depth: 10, follow: { _, _, _ in asked += 1; return nil })
        for f in 0..<8 {
            _ = window.push(f, masks: f < 3 ? [RedactionMask(trackingID: 1, box: truth(f), isDetected: true, isConfirmed: false)] : [])
        }
        #expect(asked == 0)
    }
}
