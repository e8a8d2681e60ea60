/// The JSON contract of `blazeface detect` (README, "JSON contract"), written by hand so the
/// key order is fixed and the line is built whole before anything is printed:
/// {"image":P,"width":W,"height":H,"detections":[{"boundingBox":{...},"categories":[...],"keypoints":[...]}]}
public enum DetectionJSON {
    /// One image's result as a single line of JSON.
    public static func line(image: String, width: Int, height: Int, result: FaceDetectorResult) -> String {
        let detections = result.detections.map(detection).joined(separator: ",")
        return "{\"image\":\(string(image)),\"width\":\(width),\"height\":\(height),\"detections\":[\(detections)]}"
    }

    /// One detection's JSON object, as in the `detections` array of a line.
    public static func detection(_ d: Detection) -> String {
        let b = d.boundingBox
        let box = "{\"originX\":\(b.originX),\"originY\":\(b.originY),\"width\":\(b.width),\"height\":\(b.height)}"
        let categories = d.categories.map { "{\"index\":\($0.index),\"score\":\(number($0.score))}" }.joined(separator: ",")
        let keypoints = d.keypoints.map {
            "{\"x\":\(number($0.x)),\"y\":\(number($0.y)),\"label\":\(string($0.label ?? ""))}"
        }.joined(separator: ",")
        return "{\"boundingBox\":\(box),\"categories\":[\(categories)],\"keypoints\":[\(keypoints)]}"
    }

    /// Shortest round-tripping decimal; the detector never yields NaN or infinity, but JSON
    /// cannot carry them, so they would print as null.
    static func number(_ v: Float) -> String { v.isFinite ? "\(v)" : "null" }

    /// A JSON string literal for `s`, escaped.
    public static func string(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20: out += "\\u" + String(repeating: "0", count: 4 - String(u.value, radix: 16).count) + String(u.value, radix: 16)
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }
}
