import BlazeFace
import InternalUtilities
import Testing

/// The package's JSON writer against the String-building code it replaced (kept below): the
/// same bytes for numbers, integers, strings and a detection's fields.
@Suite struct JSONWriterTests {
    static let floats: [Float] = [0, -0.0, .nan, -.nan, .infinity, -.infinity, .leastNonzeroMagnitude, -.leastNormalMagnitude,
                                  .greatestFiniteMagnitude, 1e-7, 1e-5, 0.0001, 1e16, 123456792, 16_777_216, 0.1, -1.5, 1 / 3, 0.99999994]

    @Test func numbersAreTheInterpolatedText() {
        for v in Self.floats {
            var json = JSONWriter()
            json.number(v)
            #expect(json.text == (v.isFinite ? "\(v)" : "null"))
            var raw = JSONWriter()
            raw.interpolated(v)
            #expect(raw.text == "\(v)")
        }
        for v in [0, -1, 7, Int.max, Int.min, 1_234_567] {
            var json = JSONWriter()
            json.integer(v)
            #expect(json.text == "\(v)")
        }
    }

    @Test func stringsAreEscapedAsBefore() {
        let strings = ["", "plain", "quote\" back\\slash", "tab\t line\n return\r", "\u{0}\u{1}\u{1f}\u{7f}", "é ☃ 𝄞", "/a/b c.png"]
        for s in strings {
            var json = JSONWriter()
            json.string(s)
            #expect(json.text == Previous.string(s))
            #expect(DetectionJSON.string(s) == Previous.string(s))
        }
    }

    static let keypoints: [(x: Float, y: Float)] = [(0, 0), (1 / 7, 1e-5), (2 / 7, -0.0), (3 / 7, 3e-5), (4 / 7, 0.5), (5 / 7, 1)]

    @Test func detectionsAreTheFormerObjects() {
        let d = Detection(boundingBox: BoundingBox(originX: -3, originY: 10, width: 120, height: 97),
                          relativeBoundingBox: NormalizedRect(xMin: 0, yMin: 0, width: 1, height: 1), score: 0.87654321,
                          keypoints: KeypointList(Self.keypoints))
        #expect(DetectionJSON.detection(d) == Previous.detection(d))
        let result = FaceDetectorResult(detections: [d, d])
        #expect(DetectionJSON.line(image: "a \"b\".png", width: 640, height: 480, result: result)
            == "{\"image\":\(Previous.string("a \"b\".png")),\"width\":640,\"height\":480,\"detections\":[\(Previous.detection(d)),\(Previous.detection(d))],"
               + "\"coordinates\":\"boundingBox in pixels, keypoints normalized to the picture's width and height\"}")
    }
}

/// The String-building writer before `JSONWriter`, verbatim but for names.
private enum Previous {
    static func detection(_ d: Detection) -> String {
        let b = d.boundingBox
        let box = "{\"originX\":\(b.originX),\"originY\":\(b.originY),\"width\":\(b.width),\"height\":\(b.height)}"
        let categories = d.categories.map { "{\"index\":\($0.index),\"score\":\(number($0.score))}" }.joined(separator: ",")
        let keypoints = d.keypoints.map {
            "{\"x\":\(number($0.x)),\"y\":\(number($0.y)),\"label\":\(string($0.label ?? ""))}"
        }.joined(separator: ",")
        return "{\"boundingBox\":\(box),\"categories\":[\(categories)],\"keypoints\":[\(keypoints)]}"
    }

    static func number(_ v: Float) -> String { v.isFinite ? "\(v)" : "null" }

    static func string(_ s: String) -> String {
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
