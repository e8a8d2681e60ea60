import BlazeFace
import InternalUtilities
import GeometryEstimation

/// The face fields of `blazeface analyze`'s JSON contract (README, "Face analysis (ML Kit
/// view)"), written by hand so the key order is fixed. `fields` is the part that follows the
/// detect contract's fields inside each face object. Written with the package's `JSONWriter`:
/// everything appended to one UTF-8 byte buffer, numbers included (the mesh alone is 1434
/// numbers per face).
public enum FaceAnalysisJSON {
    /// The analysis fields, comma-separated, without braces, in this order (each only when
    /// computed): "landmarks", "contours", "headEulerAngles", "smilingProbability",
    /// "leftEyeOpenProbability", "rightEyeOpenProbability", "mesh", "blendshapes",
    /// "transformationMatrix".
    public static func fields(_ a: FaceAnalysis) -> String {
        var json = JSONWriter(capacity: a.mesh == nil ? 4096 : 40_000)
        json.analysisFields(a)
        return json.text
    }

    /// The spaces of an analysis line's geometry: the detection's box in pixels; everything else
    /// normalized to the picture's width and height (the mesh's z at the scale of x).
    public static let coordinates = "boundingBox in pixels; keypoints, landmarks, contours and mesh normalized to the picture's width and height "
        + "(the mesh's z at the scale of x)"

    /// `blazeface analyze`'s line: {"image":P,"width":W,"height":H,"faces":[{<detection
    /// fields>,<analysis fields>}],"coordinates":...} from the faces' objects (`faceObject`),
    /// built as UTF-8 bytes. A video frame's line has its index and timestamp after the path.
    public static func line(image: String, frame: (index: Int, timestampMs: Int)? = nil, width: Int, height: Int,
                            faceObjects: [[UInt8]]) -> String {
        var json = JSONWriter(capacity: 1024 + faceObjects.reduce(0) { $0 + $1.count + 1 })
        json.literal("{\"image\":")
        json.string(image)
        if let frame { json.frameFields(frame.index, timestampMs: frame.timestampMs) }
        json.literal(",\"width\":")
        json.integer(width)
        json.literal(",\"height\":")
        json.integer(height)
        json.literal(",\"faces\":[")
        for (i, object) in faceObjects.enumerated() {
            if i > 0 { json.byte(",") }
            json.bytes += object
        }
        json.byte("]")
        json.coordinatesField(coordinates)
        json.byte("}")
        return json.text
    }

    /// One face's object in a line, as UTF-8: the detection's fields, then the analysis fields.
    /// Made on the lane that analysed the face (`FaceAnalysisPipeline.analyze(image:eachFace:)`):
    /// with the mesh a face is some 1600 numbers, printed beside the other faces' work.
    @Sendable public static func faceObject(_ face: AnalyzedFace) -> [UInt8] {
        var json = JSONWriter(capacity: face.analysis.mesh == nil ? 4_000 : 24_000)
        json.byte("{")
        json.detectionFields(face.detection)
        json.byte(",")
        json.analysisFields(face.analysis)
        json.byte("}")
        return json.bytes
    }

    /// `fields` appended to UTF-8 `bytes` (a line being built as bytes).
    package static func appendFields(_ a: FaceAnalysis, to bytes: inout [UInt8]) {
        var json = JSONWriter(bytes: [])
        swap(&json.bytes, &bytes)
        defer { swap(&json.bytes, &bytes) }
        json.analysisFields(a)
    }
}

extension JSONWriter {
    /// `FaceAnalysisJSON.fields`: the analysis fields, comma-separated, without braces.
    package mutating func analysisFields(_ a: FaceAnalysis) {
        if a.mesh != nil { bytes.reserveCapacity(bytes.count + 40_000) }
        var first = true
        if let landmarks = a.landmarks {
            key("landmarks", first: &first)
            byte("{")
            for (i, l) in landmarks.enumerated() {
                if i > 0 { byte(",") }
                byte("\"")
                write(l.type.rawValue)
                literal("\":")
                point(l.position)
            }
            byte("}")
        }
        if let contours = a.contours {
            key("contours", first: &first)
            byte("{")
            for (i, c) in contours.enumerated() {
                if i > 0 { byte(",") }
                byte("\"")
                write(c.type.rawValue)
                literal("\":[")
                for (j, p) in c.points.enumerated() {
                    if j > 0 { byte(",") }
                    point(p)
                }
                byte("]")
            }
            byte("}")
        }
        key("headEulerAngles", first: &first)
        if let e = a.headEulerAngles {
            literal("{\"x\":")
            number(e.x)
            literal(",\"y\":")
            number(e.y)
            literal(",\"z\":")
            number(e.z)
            byte("}")
        } else {
            literal("null")
        }
        if let c = a.classification {
            key("smilingProbability", first: &first)
            number(c.smilingProbability)
            key("leftEyeOpenProbability", first: &first)
            number(c.leftEyeOpenProbability)
            key("rightEyeOpenProbability", first: &first)
            number(c.rightEyeOpenProbability)
        }
        if let mesh = a.mesh {
            key("mesh", first: &first)
            byte("[")
            for (i, p) in mesh.enumerated() {
                if i > 0 { byte(",") }
                point(p)
            }
            byte("]")
        }
        if let blendshapes = a.blendshapes {
            key("blendshapes", first: &first)
            byte("{")
            for (i, b) in blendshapes.enumerated() {
                if i > 0 { byte(",") }
                string(b.name)
                byte(":")
                number(b.score)
            }
            byte("}")
        }
        if a.mesh != nil {
            key("transformationMatrix", first: &first)
            if let m = a.transformationMatrix {
                byte("[")
                for r in 0..<4 {
                    literal(r > 0 ? ",[" : "[")
                    for c in 0..<4 {
                        if c > 0 { byte(",") }
                        number(m[r, c])
                    }
                    byte("]")
                }
                byte("]")
            } else {
                literal("null")
            }
        }
    }

    /// `"name":`, after a comma unless it is the first field.
    private mutating func key(_ name: StaticString, first: inout Bool) {
        if !first { byte(",") }
        first = false
        byte("\"")
        literal(name)
        literal("\":")
    }
}
