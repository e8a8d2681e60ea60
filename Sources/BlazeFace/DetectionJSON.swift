import InternalUtilities

/// The JSON contract of `blazeface detect` (README, "JSON contract"), written by hand so the
/// key order is fixed and the line is built whole before anything is printed:
/// {"image":P,"width":W,"height":H,"detections":[{"boundingBox":{...},"categories":[...],"keypoints":[...]}],
///  "coordinates":"boundingBox in pixels, keypoints normalized to the picture's width and height"}
/// The last field says each geometry's space, so that a line read alone cannot be misread (a
/// sentence, so that no key of the line appears twice in it).
public enum DetectionJSON {
    /// The `coordinates` object of detection lines: boxes in pixels, keypoints normalized to
    /// the picture's width and height (0...1), as MediaPipe Tasks reports them.
    public static let coordinates = "boundingBox in pixels, keypoints normalized to the picture's width and height"

    /// One image's result as a single line of JSON.
    public static func line(image: String, width: Int, height: Int, result: FaceDetectorResult) -> String {
        var json = JSONWriter(capacity: 256 + 400 * result.detections.count)
        json.detectionLine(image: image, width: width, height: height, result: result)
        return json.text
    }

    /// A video frame's result as a single line: the image's line with the frame's index (from 0)
    /// and timestamp after the path: {"image":P,"frame":I,"timestampMs":T,"width":W,...}.
    public static func line(image: String, frame: Int, timestampMs: Int, width: Int, height: Int, result: FaceDetectorResult) -> String {
        var json = JSONWriter(capacity: 256 + 400 * result.detections.count)
        json.detectionLine(image: image, frame: (frame, timestampMs), width: width, height: height, result: result)
        return json.text
    }

    /// The line printed in an image's place when it could not be read or searched:
    /// {"image":P,"error":MESSAGE}.
    public static func errorLine(image: String, message: String) -> String {
        var json = JSONWriter(capacity: 64 + image.utf8.count + message.utf8.count)
        json.literal("{\"image\":")
        json.string(image)
        json.literal(",\"error\":")
        json.string(message)
        json.byte("}")
        return json.text
    }

    /// One detection's JSON object, as in the `detections` array of a line.
    public static func detection(_ d: Detection) -> String {
        var json = JSONWriter(capacity: 400)
        json.detection(d)
        return json.text
    }

    /// `detect`'s and `analyze`'s line per input with `--progress json` (no newline):
    /// {"input":P,"status":"done"|"refused","faces":N,"reason":R,"index":I,"of":T}, "faces" when
    /// done, "reason" when refused; "index" counts from 1.
    public static func progressLine(input: String, faces: Int?, error: String?, index: Int, of total: Int) -> String {
        var json = JSONWriter(capacity: 160)
        json.literal("{\"input\":")
        json.string(input)
        json.literal(",\"status\":")
        json.string(error == nil ? "done" : "refused")
        if let faces { json.literal(",\"faces\":"); json.integer(faces) }
        if let error { json.literal(",\"reason\":"); json.string(error) }
        json.literal(",\"index\":"); json.integer(index)
        json.literal(",\"of\":"); json.integer(total)
        json.literal("}")
        return json.text
    }

    /// A JSON string literal for `s`, escaped (`JSONWriter.string`; for the CLI's other lines).
    package static func string(_ s: String) -> String {
        var json = JSONWriter(capacity: s.utf8.count + 2)
        json.string(s)
        return json.text
    }
}

extension JSONWriter {
    /// `DetectionJSON.line`: {"image":P,"width":W,"height":H,"detections":[...]}.
    package mutating func detectionLine(image: String, frame: (index: Int, timestampMs: Int)? = nil, width: Int, height: Int,
                                        result: FaceDetectorResult) {
        literal("{\"image\":")
        string(image)
        if let frame { frameFields(frame.index, timestampMs: frame.timestampMs) }
        literal(",\"width\":")
        integer(width)
        literal(",\"height\":")
        integer(height)
        literal(",\"detections\":")
        detections(result.detections)
        coordinatesField(DetectionJSON.coordinates)
        byte("}")
    }

    /// `,"frame":I,"timestampMs":T`: a video frame's place, after the path in its line.
    package mutating func frameFields(_ index: Int, timestampMs: Int) {
        literal(",\"frame\":")
        integer(index)
        literal(",\"timestampMs\":")
        integer(timestampMs)
    }

    /// `,"coordinates":SENTENCE`: the closing field of a line, naming each geometry's space.
    package mutating func coordinatesField(_ sentence: String) {
        literal(",\"coordinates\":")
        string(sentence)
    }

    /// `[{detection},...]`.
    package mutating func detections(_ detections: [Detection]) {
        byte("[")
        for (i, d) in detections.enumerated() {
            if i > 0 { byte(",") }
            detection(d)
        }
        byte("]")
    }

    /// One detection's object: {"boundingBox":{...},"categories":[...],"keypoints":[...]}.
    package mutating func detection(_ d: Detection) {
        byte("{")
        detectionFields(d)
        byte("}")
    }

    /// A detection's fields without the braces, for objects that hold them among others (a
    /// tracked face's, an analyzed face's): "boundingBox":{...},"categories":[...],"keypoints":[...].
    /// Scores and keypoints are shortest round-tripping decimals; the detector never yields
    /// NaN or infinity, but JSON cannot carry them, so they would be written as null.
    package mutating func detectionFields(_ d: Detection) {
        let b = d.boundingBox
        literal("\"boundingBox\":{\"originX\":")
        integer(b.originX)
        literal(",\"originY\":")
        integer(b.originY)
        literal(",\"width\":")
        integer(b.width)
        literal(",\"height\":")
        integer(b.height)
        literal("},\"categories\":[")
        for (i, c) in d.categories.enumerated() {
            if i > 0 { byte(",") }
            literal("{\"index\":")
            integer(c.index)
            literal(",\"score\":")
            number(c.score)
            byte("}")
        }
        literal("],\"keypoints\":[")
        for (i, k) in d.keypoints.enumerated() {
            if i > 0 { byte(",") }
            literal("{\"x\":")
            number(k.x)
            literal(",\"y\":")
            number(k.y)
            literal(",\"label\":")
            string(k.label ?? "")
            byte("}")
        }
        byte("]")
    }
}
