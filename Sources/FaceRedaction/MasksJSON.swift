import BlazeFace
import BlazeImage

/// The masks file (`blazeface redact --masks FILE`, Docs/anonymisation.md "Masks file"): JSON
/// Lines recording every mask drawn, so that a person can check what was hidden and why.
///
/// - a header: `{"record":"header","format":"blazeface-masks","version":1,"input":{...},"width":W,
///   "height":H,"mode":M,"shape":"ellipse"|"box","maskScale":S,"settings":...,"tool":...}`;
/// - one line per frame (a photo is frame 0), in order:
///   `{"frame":N,"timestampMs":T,"masks":[{"trackingId":I,"reason":R,"score":F,"box":[x,y,w,h],
///   "relativeBox":[x,y,w,h]}]}`: `box` in pixels (the face box, before `maskScale`), `relativeBox`
///   the same normalized (what is drawn from), `reason` a `MaskReason`, `score` only when detected;
/// - a closing line: `{"record":"end","frames":N,"masks":M}` (a file without it is incomplete).
public enum MasksJSON {
    /// The format's version: a reader refuses a version it does not know.
    public static let version = 1

    /// The header line. `input` holds the input's name, size in bytes and SHA-256, so that
    /// masks are never applied to another file; `settings` the options that shaped them.
    public static func header(inputPath: String, inputSize: Int?, inputSHA256: String?, width: Int, height: Int,
                              options: RedactionOptions, settings: String, tool: String) -> String {
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
