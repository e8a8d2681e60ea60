import BlazeFace
import InternalUtilities
import BlazeImage
import Foundation

/// The masks file (`blazeface redact --masks FILE`, Docs/anonymisation.md "Masks file"): JSON
/// Lines recording every mask drawn, so that a person can check what was hidden and why.
///
/// - a header: `{"record":"header","format":"blazeface-masks","version":1,"input":{...},"width":W,
///   "height":H,"mode":M,"shape":"ellipse"|"box","maskScale":S,"blurRadius":B,"blockSize":K,
///   "settings":...,"tool":...}`, and with mode `image` `"replacement":{"sha256":...,"width":W,"height":H}`
///   (the picture pasted over faces, which `--apply-masks` must be given again);
/// - one line per frame (a photo is frame 0), in order:
///   `{"frame":N,"timestampMs":T,"masks":[{"trackingId":I,"reason":R,"score":F,"box":[x,y,w,h],
///   "relativeBox":[x,y,w,h]}]}`: `box` in pixels (the face box, before `maskScale`), `relativeBox`
///   the same normalized (what is drawn from), `reason` a `MaskReason`, `score` only when detected;
/// - a closing line: `{"record":"end","frames":N,"masks":M}` (a file without it is incomplete).
public enum MasksJSON {
    /// The format's version: a reader refuses a version it does not know.
    public static let version = 1

    /// `blazeface track --search redact`'s line for one frame: the masks the redactor draws there
    /// live (no look-behind), {"frame":N,"timestampMs":T,"masks":[{"trackingId":I,"detected":B,
    /// "confirmed":B,"relativeBoundingBox":{...}}],"coordinates":...}.
    public static func searchLine(frame index: Int, timestampMs timestamp: Int, masks: [RedactionMask]) -> String {
        var json = JSONWriter(capacity: 96 + 160 * masks.count)
        json.literal("{\"frame\":")
        json.integer(index)
        json.literal(",\"timestampMs\":")
        json.integer(timestamp)
        json.literal(",\"masks\":[")
        for (k, m) in masks.enumerated() {
            if k > 0 { json.byte(",") }
            json.literal("{\"trackingId\":")
            json.integer(m.trackingID)
            json.literal(",\"detected\":")
            json.literal(m.isDetected ? "true" : "false")
            json.literal(",\"confirmed\":")
            json.literal(m.isConfirmed ? "true" : "false")
            json.literal(",\"relativeBoundingBox\":{\"xMin\":")
            json.number(m.box.xMin)
            json.literal(",\"yMin\":")
            json.number(m.box.yMin)
            json.literal(",\"width\":")
            json.number(m.box.width)
            json.literal(",\"height\":")
            json.number(m.box.height)
            json.literal("}}")
        }
        json.byte("]")
        json.coordinatesField("relativeBoundingBox normalized to the frame's width and height")
        json.byte("}")
        return json.text
    }

    /// The header line. `input` holds the input's name, size in bytes and SHA-256, so that
    /// masks are never applied to another file; `settings` the options that shaped them.
    public static func header(inputPath: String, inputSize: Int?, inputSHA256: String?, width: Int, height: Int,
                              options: RedactionOptions, replacementSHA256: String? = nil, settings: String, tool: String) -> String {
        var json = JSONWriter(capacity: 512 + settings.utf8.count)
        json.literal("{\"record\":\"header\",\"format\":\"blazeface-masks\",\"version\":")
        json.integer(version)
        json.literal(",\"input\":{\"path\":")
        json.string(inputPath)
        if let inputSize {
            json.literal(",\"size\":")
            json.integer(inputSize)
        }
        if let inputSHA256 {
            json.literal(",\"sha256\":")
            json.string(inputSHA256)
        }
        json.literal("},\"width\":")
        json.integer(width)
        json.literal(",\"height\":")
        json.integer(height)
        json.literal(",\"mode\":")
        json.string(options.mode.rawValue)
        json.literal(options.ellipse ? ",\"shape\":\"ellipse\"" : ",\"shape\":\"box\"")
        json.literal(",\"maskScale\":")
        json.interpolated(options.maskScale)
        json.literal(",\"blurRadius\":")
        json.interpolated(options.blurRadius)
        json.literal(",\"blockSize\":")
        json.interpolated(options.blockSize)
        if options.mode == .image, let picture = options.replacement {
            json.literal(",\"replacement\":{\"sha256\":")
            json.string(replacementSHA256 ?? "")
            json.literal(",\"width\":")
            json.integer(picture.width)
            json.literal(",\"height\":")
            json.integer(picture.height)
            json.byte("}")
        }
        json.literal(",\"settings\":")
        json.string(settings)
        json.literal(",\"tool\":")
        json.string(tool)
        json.byte("}")
        return json.text
    }

    /// One frame's line: its masks in the order they are drawn.
    public static func frame(index: Int, timestampInMilliseconds: Int?, masks: [DrawnMask], width: Int, height: Int) -> String {
        var json = JSONWriter(capacity: 64 + 160 * masks.count)
        json.literal("{\"frame\":")
        json.integer(index)
        if let timestampInMilliseconds {
            json.literal(",\"timestampMs\":")
            json.integer(timestampInMilliseconds)
        }
        json.literal(",\"masks\":[")
        for (i, m) in masks.enumerated() {
            if i > 0 { json.byte(",") }
            json.literal("{\"trackingId\":")
            json.integer(m.trackingID)
            json.literal(",\"reason\":")
            json.string(m.reason.rawValue)
            if let score = m.score {
                json.literal(",\"score\":")
                json.interpolated(score)
            }
            let (w, h) = (Float(width), Float(height))
            json.literal(",\"box\":[")
            for (k, v) in [m.box.xMin * w, m.box.yMin * h, m.box.width * w, m.box.height * h].enumerated() {
                if k > 0 { json.byte(",") }
                json.interpolated((v * 100).rounded() / 100)
            }
            json.literal("],\"relativeBox\":[")
            for (k, v) in [m.box.xMin, m.box.yMin, m.box.width, m.box.height].enumerated() {
                if k > 0 { json.byte(",") }
                json.interpolated(v)
            }
            json.literal("]}")
        }
        json.literal("]}")
        return json.text
    }

    /// The closing line: frames and masks written.
    public static func end(frames: Int, masks: Int) -> String {
        "{\"record\":\"end\",\"frames\":\(frames),\"masks\":\(masks)}"
    }
}

/// A masks file read back (`MasksJSON`'s lines): what `blazeface redact --apply-masks` draws.
public struct MasksFile: Sendable, Equatable {
    /// The input it is for: its size in bytes and SHA-256, when the header names them.
    public var inputSize: Int?, inputSHA256: String?
    /// The frames' size the boxes were measured on.
    public var width: Int, height: Int
    /// How the masks are drawn (the header's mode, shape and maskScale). With mode `image`,
    /// `options.replacement` is nil: the caller supplies the picture whose SHA-256 is
    /// `replacementSHA256`.
    public var options: RedactionOptions
    /// Mode `image`'s picture's SHA-256, as the header names it.
    public var replacementSHA256: String?
    /// Each frame's masks, by frame index (a photo: frame 0), with their reasons (a `kept` mask
    /// is not drawn, a `region` is drawn whole); every frame of the input has a line.
    public var frames: [[DrawnMask]]
    /// The reviewer's boxes to carry to the frames around theirs (masks of reason `added` with a
    /// `carry`: frames each way), in file order; `carryingAdditions` draws them there.
    public var additions: [Addition]

    /// A box added on `frame`, to follow over `carry` frames before and after it.
    public struct Addition: Sendable, Equatable {
        public var frame: Int, box: NormalizedRect, carry: Int
        public init(frame: Int, box: NormalizedRect, carry: Int) { (self.frame, self.box, self.carry) = (frame, box, carry) }
    }

    /// Frames an addition is carried at most, each way.
    public static let maxCarry = 300

    /// Why a masks file cannot be used.
    public struct Invalid: Error, CustomStringConvertible {
        public let description: String
    }

    /// Parses a masks file: a version-1 header, one line per frame from 0 in order, the closing
    /// line with their count. Masks are drawn from `relativeBox`.
    public init(data: [UInt8]) throws(Invalid) {
        var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).makeIterator()
        func object(_ line: ArraySlice<UInt8>?, _ what: String) throws(Invalid) -> [String: Any] {
            guard let line, let json = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
                throw Invalid(description: "not a masks file: \(what) is not a JSON object")
            }
            return json
        }
        let header = try object(lines.next(), "the first line")
        guard header["format"] as? String == "blazeface-masks", header["record"] as? String == "header" else {
            throw Invalid(description: "not a masks file: no blazeface-masks header")
        }
        guard header["version"] as? Int == MasksJSON.version else {
            throw Invalid(description: "masks file version \(header["version"] ?? "none"); this tool reads version \(MasksJSON.version)")
        }
        let input = header["input"] as? [String: Any]
        (inputSize, inputSHA256) = ((input?["size"] as? NSNumber)?.intValue, input?["sha256"] as? String)
        guard let width = header["width"] as? Int, let height = header["height"] as? Int,
              let modeName = header["mode"] as? String, let mode = RedactionOptions.Mode(rawValue: modeName),
              let shape = header["shape"] as? String, ["ellipse", "box"].contains(shape),
              let scale = (header["maskScale"] as? NSNumber)?.floatValue, scale.isFinite, (1...4).contains(scale) else {
            throw Invalid(description: "the masks file's header lacks width, height, mode, shape or maskScale, or has one out of range")
        }
        (self.width, self.height) = (width, height)
        let blur = (header["blurRadius"] as? NSNumber)?.floatValue ?? 0.25, block = (header["blockSize"] as? NSNumber)?.floatValue ?? 0.125
        guard (0.125...1).contains(blur), (0.125...0.5).contains(block) else {
            throw Invalid(description: "the masks file's blurRadius or blockSize is out of range")
        }
        options = RedactionOptions(mode: mode, ellipse: shape == "ellipse", maskScale: scale, blurRadius: blur, blockSize: block)
        replacementSHA256 = (header["replacement"] as? [String: Any])?["sha256"] as? String
        if mode == .image, (replacementSHA256 ?? "").isEmpty {
            throw Invalid(description: "the masks file's mode is image but its header names no replacement picture")
        }
        frames = []
        additions = []
        while let line = lines.next() {
            let json = try object(line, "line \(frames.count + 2)")
            if json["record"] as? String == "end" {
                guard json["frames"] as? Int == frames.count else {
                    throw Invalid(description: "the masks file's end says \(json["frames"] ?? "?") frames, it lists \(frames.count)")
                }
                guard lines.next() == nil else { throw Invalid(description: "the masks file goes on after its end") }
                return
            }
            guard json["frame"] as? Int == frames.count, let masks = json["masks"] as? [[String: Any]] else {
                throw Invalid(description: "line \(frames.count + 2) is not frame \(frames.count) with its masks")
            }
            var boxes: [DrawnMask] = []
            for m in masks {
                guard let r = (m["relativeBox"] as? [NSNumber])?.map(\.floatValue), r.count == 4, r.allSatisfy(\.isFinite), r[2] >= 0, r[3] >= 0 else {
                    throw Invalid(description: "frame \(frames.count): a mask without a relativeBox of 4 numbers")
                }
                // An unknown or missing reason is drawn as a face's mask: never less masked.
                let reason = (m["reason"] as? String).flatMap(MaskReason.init(rawValue:)) ?? .detected
                let box = NormalizedRect(xMin: r[0], yMin: r[1], width: r[2], height: r[3])
                boxes.append(DrawnMask(box: box, trackingID: (m["trackingId"] as? Int) ?? -1, reason: reason,
                                       score: (m["score"] as? NSNumber)?.floatValue))
                if reason == .added, let carry = m["carry"] as? Int, carry > 0 {
                    additions.append(Addition(frame: frames.count, box: box, carry: min(carry, Self.maxCarry)))
                }
            }
            frames.append(boxes)
        }
        throw Invalid(description: "the masks file has no end line: it is incomplete")
    }
}

extension RecordingRedactor {
    /// Draws exactly `masks` on every frame of `source` and writes it to `sink`, with no
    /// detection (a reviewed masks file made the published video): the same drawing as `run`.
    /// The source must have exactly the file's frames, of its size; otherwise the sink is
    /// cancelled and a `Failure` says why. Returns the frames written.
    @discardableResult
    public static func render(from source: any VideoFrameSource, to sink: any VideoFrameSink, masks: MasksFile,
                              progress: ((Int) -> Void)? = nil) throws(Failure) -> Int {
        var index = 0
        do {
            while var frame = try source.nextFrame() {
                guard index < masks.frames.count else {
                    throw MasksFile.Invalid(description: "the input has more frames than the masks file's \(masks.frames.count)")
                }
                guard frame.width == masks.width, frame.height == masks.height else {
                    throw MasksFile.Invalid(description: "the input's frames are \(frame.width)x\(frame.height), the masks file's \(masks.width)x\(masks.height)")
                }
                let fullRange = frame.fullRange, drawn = masks.frames[index]
                try frame.withPixelBuffer { FaceMask.apply(to: $0, masks: drawn, options: masks.options, fullRange: fullRange) }
                try sink.write(frame)
                index += 1
                progress?(index)
            }
            guard index == masks.frames.count else {
                throw MasksFile.Invalid(description: "the input has \(index) frames, the masks file \(masks.frames.count)")
            }
            try sink.finish()
        } catch {
            sink.cancel()
            throw Failure(frame: index, error: error)
        }
        return index
    }
}

extension MasksFile {
    /// This file with each of `additions` carried over the frames around its own (`carry` each
    /// way) as `added` masks: its face followed frame to frame by `redactor.face(near:in:)` (the
    /// search that follows a face found late back, with no tracking state), the box held where
    /// the face is not found. Reads `source` (the input, from its first frame) once, holding
    /// only the frames of the additions not carried yet; deterministic, as the search is.
    public func carryingAdditions(from source: any VideoFrameSource, redactor: FaceRedactor) throws -> MasksFile {
        var out = self
        var pending = additions.filter { $0.frame < frames.count }.sorted { $0.frame < $1.frame }[...]
        var held: [Int: VideoFrame] = [:]
        var index = 0
        var scratch: [UInt8] = []   // an interlaced frame's field, filled in, to search
        func carry(_ a: Addition) {
            for direction in [-1, 1] {
                var box = a.box
                var k = a.frame + direction
                while abs(k - a.frame) <= a.carry, k >= 0, k < frames.count, let frame = held[k] {
                    if let found = try? frame.withSearchPixels(scratch: &scratch, { try redactor.face(near: box, in: $0) }) ?? nil { box = found }
                    out.frames[k].append(DrawnMask(box: box, trackingID: -1, reason: .added))
                    k += direction
                }
            }
        }
        while !pending.isEmpty {
            // Every frame the first pending addition reaches is held (or the input ended).
            let frame = index < frames.count ? try source.nextFrame() : nil
            if let frame {
                if pending.contains(where: { abs(index - $0.frame) <= $0.carry }) { held[index] = frame }
                index += 1
            }
            while let a = pending.first, frame == nil || index > a.frame + a.carry {
                carry(a)
                pending.removeFirst()
            }
            let from = pending.map { $0.frame - $0.carry }.min() ?? index
            held = held.filter { $0.key >= from }
        }
        return out
    }
}
