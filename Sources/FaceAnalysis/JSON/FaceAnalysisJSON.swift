import FaceGeometry

/// The face fields of `blazeface analyze`'s JSON contract (README, "Face analysis (ML Kit
/// view)"), written by hand so the key order is fixed. `fields` is the part that follows the
/// detect contract's fields inside each face object. Everything is appended to one buffer:
/// the mesh alone is 1434 numbers per face.
public enum FaceAnalysisJSON {
    /// The analysis fields, comma-separated, without braces, in this order (each only when
    /// computed): "landmarks", "contours", "headEulerAngles", "smilingProbability",
    /// "leftEyeOpenProbability", "rightEyeOpenProbability", "mesh", "blendshapes",
    /// "transformationMatrix".
    public static func fields(_ a: FaceAnalysis) -> String {
        var out = String()
        out.reserveCapacity(a.mesh == nil ? 4096 : 40_000)
        var first = true
        func key(_ name: String) {
            if !first { out += "," }
            first = false
            out += "\""
            out += name
            out += "\":"
        }
        if let landmarks = a.landmarks {
            key("landmarks")
            out += "{"
            for (i, l) in landmarks.enumerated() {
                if i > 0 { out += "," }
                out += "\""
                out += l.type.rawValue
                out += "\":"
                append(l.position, to: &out)
            }
            out += "}"
        }
        if let contours = a.contours {
            key("contours")
            out += "{"
            for (i, c) in contours.enumerated() {
                if i > 0 { out += "," }
                out += "\""
                out += c.type.rawValue
                out += "\":["
                for (j, p) in c.points.enumerated() {
                    if j > 0 { out += "," }
                    append(p, to: &out)
                }
                out += "]"
            }
            out += "}"
        }
        key("headEulerAngles")
        if let e = a.headEulerAngles {
            out += "{\"x\":"
            append(e.x, to: &out)
            out += ",\"y\":"
            append(e.y, to: &out)
            out += ",\"z\":"
            append(e.z, to: &out)
            out += "}"
        } else {
            out += "null"
        }
        if let c = a.classification {
            key("smilingProbability")
            append(c.smilingProbability, to: &out)
            key("leftEyeOpenProbability")
            append(c.leftEyeOpenProbability, to: &out)
            key("rightEyeOpenProbability")
            append(c.rightEyeOpenProbability, to: &out)
        }
        if let mesh = a.mesh {
            key("mesh")
            out += "["
            for (i, p) in mesh.enumerated() {
                out += i > 0 ? ",[" : "["
                append(p.x, to: &out)
                out += ","
                append(p.y, to: &out)
                out += ","
                append(p.z, to: &out)
                out += "]"
            }
            out += "]"
        }
        if let blendshapes = a.blendshapes {
            key("blendshapes")
            out += "{"
            for (i, b) in blendshapes.enumerated() {
                if i > 0 { out += "," }
                out += string(b.name)
                out += ":"
                append(b.score, to: &out)
            }
            out += "}"
        }
        if a.mesh != nil {
            key("transformationMatrix")
            if let m = a.transformationMatrix {
                out += "["
                for r in 0..<4 {
                    out += r > 0 ? ",[" : "["
                    for c in 0..<4 {
                        if c > 0 { out += "," }
                        append(m[r, c], to: &out)
                    }
                    out += "]"
                }
                out += "]"
            } else {
                out += "null"
            }
        }
        return out
    }

    static func append(_ p: SIMD2<Float>, to out: inout String) {
        out += "["
        append(p.x, to: &out)
        out += ","
        append(p.y, to: &out)
        out += "]"
    }

    /// Shortest round-tripping decimal; JSON has no NaN or infinity, so those print as null.
    static func append(_ v: Float, to out: inout String) {
        if v.isFinite { v.write(to: &out) } else { out += "null" }
    }

    /// A JSON string literal, escaped.
    static func string(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where u.value < 0x20: out += "\\u" + String(repeating: "0", count: 4 - String(u.value, radix: 16).count) + String(u.value, radix: 16)
            default: out.unicodeScalars.append(u)
            }
        }
        return out + "\""
    }
}
