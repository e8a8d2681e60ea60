import VisionTasks

/// ML Kit's classification probabilities from MediaPipe's blendshape scores.
///
/// Calibration: the identity. smilingProbability is the mean of mouthSmileLeft and
/// mouthSmileRight; an eye's open probability is 1 − its eyeBlink score; each clamped to 0...1.
/// No ML Kit reference outputs are available here to fit a curve against, so no curve is
/// invented; the blendshape scores are already 0...1 and monotone in the expression.
/// MediaPipe's eyeBlinkLeft is the subject's left eye (Tools/reference/check_blink_sides.py),
/// which is ML Kit's left too, so no swap.
public struct FaceClassification: Equatable, Sendable {
    /// How likely the face smiles, 0...1.
    public var smilingProbability: Float
    /// How likely the subject's left eye is open, 0...1.
    public var leftEyeOpenProbability: Float
    /// How likely the subject's right eye is open, 0...1.
    public var rightEyeOpenProbability: Float

    /// The blendshape names this reads (MediaPipe's, as in face_landmarker_graph.cc).
    public static let blendshapeNames = ["mouthSmileLeft", "mouthSmileRight", "eyeBlinkLeft", "eyeBlinkRight"]

    /// The probabilities from a face's blendshapes (any order; looked up by name).
    public init(blendshapes: [(name: String, score: Float)]) throws(VisionTaskError) {
        func score(_ name: String) throws(VisionTaskError) -> Float {
            guard let s = blendshapes.first(where: { $0.name == name })?.score else { throw .missingBlendshape(name) }
            guard s.isFinite else { throw .cannotAnalyse("blendshape \(name) is \(s)") }
            return min(1, max(0, s))
        }
        smilingProbability = (try score("mouthSmileLeft") + score("mouthSmileRight")) / 2
        leftEyeOpenProbability = 1 - (try score("eyeBlinkLeft"))
        rightEyeOpenProbability = 1 - (try score("eyeBlinkRight"))
    }
}
