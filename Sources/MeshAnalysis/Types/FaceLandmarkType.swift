/// ML Kit's ten face landmarks (FaceLandmark.LandmarkType). "Left" and "right" are the
/// subject's: `leftEye` is the eye on the image's right side in an unmirrored frontal photo.
public enum FaceLandmarkType: String, CaseIterable, Sendable {
    case leftEye, rightEye, leftEar, rightEar, leftCheek, rightCheek, noseBase, mouthLeft, mouthRight, mouthBottom

    /// The MediaPipe face mesh vertices whose mean is this landmark (see README, "Face analysis").
    /// Eyes: the mean of the eye's 16-point contour (the eye cavity's centre, not the iris, which
    /// follows the gaze). Ears: the face-oval vertex at tragus height (the mesh has no ear).
    public var meshIndices: [Int] {
        switch self {
        case .leftEye: FaceContourType.leftEye.meshIndices
        case .rightEye: FaceContourType.rightEye.meshIndices
        case .leftEar: [454]
        case .rightEar: [234]
        case .leftCheek: [425]
        case .rightCheek: [205]
        case .noseBase: [2]
        case .mouthLeft: [291]
        case .mouthRight: [61]
        case .mouthBottom: [16]
        }
    }
}
