/// One of the 52 ARKit-style blendshape coefficients MediaPipe's face blendshape model gives:
/// its name (MediaPipe's category name) and its score, 0...1.
public struct Blendshape: Sendable, Equatable {
    /// MediaPipe's category name, e.g. `mouthSmileLeft`.
    public var name: String
    /// The coefficient, 0...1.
    public var score: Float
    /// A coefficient from its category name and score.
    public init(name: String, score: Float) { (self.name, self.score) = (name, score) }
}

/// The blendshape model's input and output conventions, as face_blendshapes_graph.cc sets them
/// up: a fixed subset of 146 of the 478 landmarks, in pixels (x times the image width, y times
/// its height; LandmarksToTensorCalculator with X and Y), in; 52 scores in MediaPipe's order out.
public enum BlendshapeModel {
    /// The category names, in the model's output order (index 0, `_neutral`, is a placeholder
    /// MediaPipe tells users to ignore).
    public static let names: [String] = [
        "_neutral", "browDownLeft", "browDownRight", "browInnerUp", "browOuterUpLeft", "browOuterUpRight",
        "cheekPuff", "cheekSquintLeft", "cheekSquintRight", "eyeBlinkLeft", "eyeBlinkRight",
        "eyeLookDownLeft", "eyeLookDownRight", "eyeLookInLeft", "eyeLookInRight", "eyeLookOutLeft",
        "eyeLookOutRight", "eyeLookUpLeft", "eyeLookUpRight", "eyeSquintLeft", "eyeSquintRight",
        "eyeWideLeft", "eyeWideRight", "jawForward", "jawLeft", "jawOpen", "jawRight", "mouthClose",
        "mouthDimpleLeft", "mouthDimpleRight", "mouthFrownLeft", "mouthFrownRight", "mouthFunnel",
        "mouthLeft", "mouthLowerDownLeft", "mouthLowerDownRight", "mouthPressLeft", "mouthPressRight",
        "mouthPucker", "mouthRight", "mouthRollLower", "mouthRollUpper", "mouthShrugLower",
        "mouthShrugUpper", "mouthSmileLeft", "mouthSmileRight", "mouthStretchLeft", "mouthStretchRight",
        "mouthUpperUpLeft", "mouthUpperUpRight", "noseSneerLeft", "noseSneerRight",
    ]

    /// The mesh indices the model reads, in its input order (eyebrows, eyes, lips, nose, face
    /// outline, and the ten iris points 468...477).
    static let landmarkSubset: [Int] = [
        0, 1, 4, 5, 6, 7, 8, 10, 13, 14, 17, 21, 33, 37, 39, 40, 46, 52, 53, 54, 55, 58, 61, 63, 65, 66, 67, 70,
        78, 80, 81, 82, 84, 87, 88, 91, 93, 95, 103, 105, 107, 109, 127, 132, 133, 136, 144, 145, 146, 148, 149,
        150, 152, 153, 154, 155, 157, 158, 159, 160, 161, 162, 163, 168, 172, 173, 176, 178, 181, 185, 191, 195,
        197, 234, 246, 249, 251, 263, 267, 269, 270, 276, 282, 283, 284, 285, 288, 291, 293, 295, 296, 297, 300,
        308, 310, 311, 312, 314, 317, 318, 321, 323, 324, 332, 334, 336, 338, 356, 361, 362, 365, 373, 374, 375,
        377, 378, 379, 380, 381, 382, 384, 385, 386, 387, 388, 389, 390, 397, 398, 400, 402, 405, 409, 415, 454,
        466, 468, 469, 470, 471, 472, 473, 474, 475, 476, 477,
    ]

    /// Writes the model input (146 x (x, y) in pixels) for `landmarks` (478 points normalized
    /// to an image of `imageWidth` x `imageHeight`) into `input` (292 floats).
    static func fillInput(_ input: UnsafeMutableBufferPointer<Float>, landmarks: [SIMD3<Float>],
                                 imageWidth: Int, imageHeight: Int) {
        let (w, h) = (Float(imageWidth), Float(imageHeight))
        for (i, index) in landmarkSubset.enumerated() where 2 * i + 1 < input.count && index < landmarks.count {
            input[2 * i] = landmarks[index].x * w
            input[2 * i + 1] = landmarks[index].y * h
        }
    }
}
