import BlazeFace
import InternalUtilities

/// The JSON contract of `blazeface landmarks`, written by hand so the key order is fixed.
public enum FaceLandmarkerJSON {
    /// {"image":P,"width":W,"height":H,"faces":[{"presence":F,"landmarks":[[x,y,z],...478],
    /// "blendshapes":{"_neutral":F,...52}}]} (blendshapes only when computed); numbers are
    /// the shortest decimals that read back as the same float32.
    public static func line(image: String, result: FaceLandmarkerResult) -> String {
        var json = JSONWriter(capacity: 256 + 20_000 * result.faces.count)
        json.literal("{\"image\":")
        json.string(image)
        json.literal(",\"width\":")
        json.integer(result.imageWidth)
        json.literal(",\"height\":")
        json.integer(result.imageHeight)
        json.literal(",\"faces\":[")
        for (i, face) in result.faces.enumerated() {
            if i > 0 { json.byte(",") }
            json.literal("{\"presence\":")
            json.interpolated(face.presence)
            json.literal(",\"landmarks\":[")
            for (j, p) in face.landmarks.enumerated() {
                if j > 0 { json.byte(",") }
                json.byte("[")
                json.interpolated(p.x)
                json.byte(",")
                json.interpolated(p.y)
                json.byte(",")
                json.interpolated(p.z)
                json.byte("]")
            }
            json.byte("]")
            if !face.blendshapes.isEmpty {
                json.literal(",\"blendshapes\":{")
                for (j, b) in face.blendshapes.enumerated() {
                    if j > 0 { json.byte(",") }
                    json.string(b.name)
                    json.byte(":")
                    json.interpolated(b.score)
                }
                json.byte("}")
            }
            json.byte("}")
        }
        json.byte("]")
        json.coordinatesField("landmarks normalized to the picture's width and height (z at the scale of x)")
        json.byte("}")
        return json.text
    }
}
