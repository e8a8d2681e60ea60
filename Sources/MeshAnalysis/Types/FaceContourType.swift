/// ML Kit's fifteen face contours (FaceContour.ContourType) with ML Kit's documented point
/// counts, taken from MediaPipe face mesh vertices. "Left" and "right" are the subject's.
///
/// The indices follow MediaPipe's mesh connectivity (FaceLandmarksConnections in
/// mediapipe/tasks/cc/vision/face_landmarker/face_landmarks_connections.h): face oval, eyes,
/// eyebrows and lips are its polylines; where ML Kit has fewer points (inner lips, lower lip)
/// the shared mouth corners are dropped. Order: the face oval starts at the top of the
/// forehead and runs clockwise in the image; eyes start at the outer corner, run along the
/// lower lid to the inner corner and back along the upper lid; eyebrows run from the outer end
/// to the inner end; lips and the nose bottom run from the subject's right to left (image left
/// to right in an unmirrored photo); the nose bridge from between the eyes to the nose tip.
public enum FaceContourType: String, CaseIterable, Sendable {
    case face, leftEyebrowTop, leftEyebrowBottom, rightEyebrowTop, rightEyebrowBottom, leftEye, rightEye
    case upperLipTop, upperLipBottom, lowerLipTop, lowerLipBottom, noseBridge, noseBottom, leftCheek, rightCheek

    /// ML Kit's number of points for this contour.
    public var pointCount: Int {
        switch self {
        case .face: 36
        case .leftEyebrowTop, .leftEyebrowBottom, .rightEyebrowTop, .rightEyebrowBottom: 5
        case .leftEye, .rightEye: 16
        case .upperLipTop: 11
        case .upperLipBottom, .lowerLipTop, .lowerLipBottom: 9
        case .noseBridge: 2
        case .noseBottom: 3
        case .leftCheek, .rightCheek: 1
        }
    }

    /// The MediaPipe face mesh vertex of each point, in order.
    public var meshIndices: [Int] {
        switch self {
        case .face:
            [10, 338, 297, 332, 284, 251, 389, 356, 454, 323, 361, 288, 397, 365, 379, 378, 400, 377,
             152, 148, 176, 149, 150, 136, 172, 58, 132, 93, 234, 127, 162, 21, 54, 103, 67, 109]
        case .leftEyebrowTop: [300, 293, 334, 296, 336]
        case .leftEyebrowBottom: [276, 283, 282, 295, 285]
        case .rightEyebrowTop: [70, 63, 105, 66, 107]
        case .rightEyebrowBottom: [46, 53, 52, 65, 55]
        case .leftEye: [263, 249, 390, 373, 374, 380, 381, 382, 362, 398, 384, 385, 386, 387, 388, 466]
        case .rightEye: [33, 7, 163, 144, 145, 153, 154, 155, 133, 173, 157, 158, 159, 160, 161, 246]
        case .upperLipTop: [61, 185, 40, 39, 37, 0, 267, 269, 270, 409, 291]
        case .upperLipBottom: [191, 80, 81, 82, 13, 312, 311, 310, 415]
        case .lowerLipTop: [95, 88, 178, 87, 14, 317, 402, 318, 324]
        case .lowerLipBottom: [146, 91, 181, 84, 17, 314, 405, 321, 375]
        case .noseBridge: [6, 4]
        case .noseBottom: [98, 2, 327]
        case .leftCheek: [425]
        case .rightCheek: [205]
        }
    }
}
