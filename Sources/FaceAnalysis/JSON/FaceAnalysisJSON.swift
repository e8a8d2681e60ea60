import BlazeFace
import FaceGeometry

/// The face fields of `blazeface analyze`'s JSON contract (README, "Face analysis (ML Kit
/// view)"), written by hand so the key order is fixed. `fields` is the part that follows the
/// detect contract's fields inside each face object. Everything is appended to one UTF-8 byte
/// buffer, numbers included (no String per token): the mesh alone is 1434 numbers per face.
public enum FaceAnalysisJSON {
    /// The analysis fields, comma-separated, without braces, in this order (each only when
    /// computed): "landmarks", "contours", "headEulerAngles", "smilingProbability",
    /// "leftEyeOpenProbability", "rightEyeOpenProbability", "mesh", "blendshapes",
    /// "transformationMatrix".
    public static func fields(_ a: FaceAnalysis) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(a.mesh == nil ? 4096 : 40_000)
        appendFields(a, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `fields` appended to UTF-8 `bytes` (a line being built as bytes).
    public static func appendFields(_ a: FaceAnalysis, to bytes: inout [UInt8]) {
        var out = JSONBytes()
        swap(&out.bytes, &bytes)
        defer { swap(&out.bytes, &bytes) }
        if a.mesh != nil { out.bytes.reserveCapacity(out.bytes.count + 40_000) }
        var first = true
        func key(_ name: StaticString) {
            if !first { out.byte(",") }
            first = false
            out.byte("\"")
            out.literal(name)
            out.literal("\":")
        }
        if let landmarks = a.landmarks {
            key("landmarks")
            out.byte("{")
            for (i, l) in landmarks.enumerated() {
                if i > 0 { out.byte(",") }
                out.byte("\"")
                out.write(l.type.rawValue)
                out.literal("\":")
                out.point(l.position)
            }
            out.byte("}")
        }
        if let contours = a.contours {
            key("contours")
            out.byte("{")
            for (i, c) in contours.enumerated() {
                if i > 0 { out.byte(",") }
                out.byte("\"")
                out.write(c.type.rawValue)
                out.literal("\":[")
                for (j, p) in c.points.enumerated() {
                    if j > 0 { out.byte(",") }
                    out.point(p)
                }
                out.byte("]")
            }
            out.byte("}")
        }
        key("headEulerAngles")
        if let e = a.headEulerAngles {
            out.literal("{\"x\":")
            out.number(e.x)
            out.literal(",\"y\":")
            out.number(e.y)
            out.literal(",\"z\":")
            out.number(e.z)
            out.byte("}")
        } else {
            out.literal("null")
        }
        if let c = a.classification {
            key("smilingProbability")
            out.number(c.smilingProbability)
            key("leftEyeOpenProbability")
            out.number(c.leftEyeOpenProbability)
            key("rightEyeOpenProbability")
            out.number(c.rightEyeOpenProbability)
        }
        if let mesh = a.mesh {
            key("mesh")
            out.byte("[")
            for (i, p) in mesh.enumerated() {
                if i > 0 { out.byte(",") }
                out.point(p)
            }
            out.byte("]")
        }
        if let blendshapes = a.blendshapes {
            key("blendshapes")
            out.byte("{")
            for (i, b) in blendshapes.enumerated() {
                if i > 0 { out.byte(",") }
                out.string(b.name)
                out.byte(":")
                out.number(b.score)
            }
            out.byte("}")
        }
        if a.mesh != nil {
            key("transformationMatrix")
            if let m = a.transformationMatrix {
                out.byte("[")
                for r in 0..<4 {
                    out.literal(r > 0 ? ",[" : "[")
                    for c in 0..<4 {
                        if c > 0 { out.byte(",") }
                        out.number(m[r, c])
                    }
                    out.byte("]")
                }
                out.byte("]")
            } else {
                out.literal("null")
            }
        }
    }
}

/// UTF-8 JSON text being written. A TextOutputStream so that `Float.write(to:)` (the shortest
/// round-tripping decimal, `description`'s text) hands its digits over as ASCII bytes through
/// the standard library's `_writeASCII` hook, with no String made per number.
struct JSONBytes: TextOutputStream {
    var bytes: [UInt8] = []

    mutating func write(_ string: String) { bytes.append(contentsOf: string.utf8) }

    /// Where `Float.write(to:)` puts its digits.
    mutating func _writeASCII(_ buffer: UnsafeBufferPointer<UInt8>) { bytes.append(contentsOf: buffer) }

    mutating func byte(_ c: Unicode.Scalar) { bytes.append(UInt8(ascii: c)) }

    mutating func literal(_ s: StaticString) { s.withUTF8Buffer { bytes.append(contentsOf: $0) } }

    /// Shortest round-tripping decimal; JSON has no NaN or infinity, so those print as null.
    mutating func number(_ v: Float) {
        if v.isFinite { v.write(to: &self) } else { literal("null") }
    }

    /// `[x,y]`.
    mutating func point(_ p: SIMD2<Float>) {
        byte("[")
        number(p.x)
        byte(",")
        number(p.y)
        byte("]")
    }

    /// `[x,y,z]`.
    mutating func point(_ p: SIMD3<Float>) {
        byte("[")
        number(p.x)
        byte(",")
        number(p.y)
        byte(",")
        number(p.z)
        byte("]")
    }

    /// A JSON string literal, escaped as every line of the CLI escapes (`DetectionJSON.string`).
    mutating func string(_ s: String) { write(DetectionJSON.string(s)) }
}
