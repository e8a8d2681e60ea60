import BlazeFace

/// The JSON Lines contract of `blazeface track` (README, "Video and tracking"), one line per frame:
/// {"frame":N,"timestampMs":T,"faces":[{"trackingId":I,"boundingBox":{...},"categories":[...],"keypoints":[...]}]}
/// Each face holds the detect contract's detection fields after its trackingId (null when tracking is off).
public enum TrackingJSON {
    public static func line(frame index: Int, _ frame: TrackingFrame) -> String {
        let faces = frame.faces.map { face in
            let id = face.trackingID.map(String.init) ?? "null"
            return "{\"trackingId\":\(id)," + DetectionJSON.detection(face.detection).dropFirst()
        }.joined(separator: ",")
        return "{\"frame\":\(index),\"timestampMs\":\(frame.timestampInMilliseconds),\"faces\":[\(faces)]}"
    }
}
