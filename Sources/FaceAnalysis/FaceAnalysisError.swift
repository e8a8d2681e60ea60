import BlazeFace
import VisionTasks

/// Why a face could not be analysed. Every message names what was wrong.
public enum FaceAnalysisError: Error, Equatable, CustomStringConvertible {
    /// The landmarks, image size or an option are out of range.
    case invalidInput(String)
    /// Classification was asked for but a blendshape it needs is missing.
    case missingBlendshape(String)
    /// The geometry pipeline refused the landmarks.
    case geometry(String)
    /// The detector or landmarker refused an option, its weights or the image.
    case landmarker(VisionTaskError)

    /// A one-line message naming what was wrong.
    public var description: String {
        switch self {
        case .invalidInput(let why): "cannot analyse the face: \(why)"
        case .missingBlendshape(let name): "cannot classify the face: blendshape '\(name)' is missing"
        case .geometry(let why): "cannot analyse the face: \(why)"
        case .landmarker(let error): error.description
        }
    }
}
