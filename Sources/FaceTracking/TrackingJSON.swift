import BlazeFace
import InternalUtilities

/// The JSON Lines contract of `blazeface track` (README, "Video and tracking"), one line per frame:
/// {"frame":N,"timestampMs":T,"faces":[{"trackingId":I,"boundingBox":{...},"categories":[...],"keypoints":[...]}],
///  "coordinates":"boundingBox in pixels, keypoints normalized to the picture's width and height"}
/// Each face holds the detect contract's detection fields after its trackingId (null when tracking is off).
public enum TrackingJSON {
    public static func line(frame index: Int, _ frame: TrackingFrame) -> String {
        var json = JSONWriter(capacity: 128 + 420 * frame.faces.count)
        json.literal("{\"frame\":")
        json.integer(index)
        json.literal(",\"timestampMs\":")
        json.integer(frame.timestampInMilliseconds)
        json.literal(",\"faces\":[")
        for (i, face) in frame.faces.enumerated() {
            if i > 0 { json.byte(",") }
            json.literal("{\"trackingId\":")
            if let id = face.trackingID { json.integer(id) } else { json.literal("null") }
            json.byte(",")
            json.detectionFields(face.detection)
            json.byte("}")
        }
        json.byte("]")
        json.coordinatesField(DetectionJSON.coordinates)
        json.byte("}")
        return json.text
    }
}
