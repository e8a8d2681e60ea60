import FaceGeometry

/// The face fields of `blazeface analyze`'s JSON contract (README, "Face analysis (ML Kit
/// view)"), written by hand so the key order is fixed. `fields` is the part that follows the
/// detect contract's fields inside each face object.
public enum FaceAnalysisJSON {
    /// The analysis fields, comma-separated, without braces, in this order (each only when
    /// computed): "landmarks", "contours", "headEulerAngles", "smilingProbability",
    /// "leftEyeOpenProbability", "rightEyeOpenProbability", "mesh", "blendshapes",
    /// "transformationMatrix".
    public static func fields(_ a: FaceAnalysis) -> String {
        var out: [String] = []
        if let landmarks = a.landmarks {
            out.append("\"landmarks\":{" + landmarks.map { "\"\($0.type.rawValue)\":\(pair($0.position))" }.joined(separator: ",") + "}")
        }
        if let contours = a.contours {
            out.append("\"contours\":{" + contours.map {
                "\"\($0.type.rawValue)\":[" + $0.points.map(pair).joined(separator: ",") + "]"
            }.joined(separator: ",") + "}")
        }
        if let e = a.headEulerAngles {
            out.append("\"headEulerAngles\":{\"x\":\(number(e.x)),\"y\":\(number(e.y)),\"z\":\(number(e.z))}")
        } else {
            out.append("\"headEulerAngles\":null")
        }
        if let c = a.classification {
            out.append("\"smilingProbability\":\(number(c.smilingProbability))")
            out.append("\"leftEyeOpenProbability\":\(number(c.leftEyeOpenProbability))")
            out.append("\"rightEyeOpenProbability\":\(number(c.rightEyeOpenProbability))")
        }
        if let mesh = a.mesh {
            out.append("\"mesh\":[" + mesh.map { "[\(number($0.x)),\(number($0.y)),\(number($0.z))]" }.joined(separator: ",") + "]")
        }
        if let blendshapes = a.blendshapes {
            out.append("\"blendshapes\":{" + blendshapes.map { "\(string($0.name)):\(number($0.score))" }.joined(separator: ",") + "}")
        }
        if a.mesh != nil {
            if let m = a.transformationMatrix {
                out.append("\"transformationMatrix\":[" + m.rows.map { "[" + $0.map(number).joined(separator: ",") + "]" }.joined(separator: ",") + "]")
            } else {
                out.append("\"transformationMatrix\":null")
            }
        }
        return out.joined(separator: ",")
    }

    static func pair(_ p: SIMD2<Float>) -> String { "[\(number(p.x)),\(number(p.y))]" }

    /// Shortest round-tripping decimal; JSON has no NaN or infinity, so those print as null.
    static func number(_ v: Float) -> String { v.isFinite ? "\(v)" : "null" }

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
