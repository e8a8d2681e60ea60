import BlazeImage
import BlazeModel

/// Errors of every vision task (the face detector, the landmarker, the trackers, the face
/// analysis, the redactor): bad options, weights that do not fit, bad images, regions or
/// inputs, running-mode misuse. The face detector's name for it is `DetectorError`.
public enum VisionTaskError: Error, Equatable, CustomStringConvertible {
    /// An option outside its allowed values: its name, the value given, and what is allowed.
    case invalidOption(name: String, value: String, allowed: String)
    /// The weights could not be read or built into a network, or are not the expected model.
    case weights(ModelError)
    /// The weights file at `path` could not be decoded; the model error says why.
    case weightsFile(path: String, ModelError)
    /// No weights file at any of the searched paths.
    case weightsNotFound(searched: [String])
    /// An image could not be read or used; the image error says why.
    case image(ImageError)
    /// A region of interest that is not finite, not in 0...1, or degenerate; what is wrong.
    case invalidRegion(String)
    /// An image or frame whose size or bytes do not make a valid image; what is wrong.
    case invalidImage(String)
    /// A call that does not belong to the task's running mode (fixed at creation).
    case wrongRunningMode(called: String, mode: RunningMode)
    /// A video or live-stream timestamp (ms) not greater than the one before it.
    case nonIncreasingTimestamp(previous: Int, current: Int)
    /// A live-stream call after `close()`.
    case closed
    /// Data handed to a task that it cannot use (landmarks, blendshapes, sizes), or a stage
    /// that refused it; the message says what and why.
    case invalidInput(String)

    /// A readable message: what went wrong and, where it helps, what to do about it.
    public var description: String {
        switch self {
        case .invalidOption(let name, let value, let allowed): "invalid option \(name) = \(value): must be \(allowed)"
        case .weights(let e): e.description
        case .weightsFile(let path, let e): "\(path): \(e.description)"
        case .weightsNotFound(let searched):
            "weights not found; looked in: \(searched.joined(separator: ", ")) (set weightsPath or BLAZEFACE_WEIGHTS)"
        case .image(let e): e.description
        case .invalidRegion(let s): "invalid region of interest: \(s)"
        case .invalidImage(let s): "invalid image: \(s)"
        case let .wrongRunningMode(called, mode):
            "\(called) is not available in the \(mode.rawValue) running mode (the mode is fixed when the task is created)"
        case let .nonIncreasingTimestamp(previous, current):
            "timestamp \(current) ms is not greater than the previous timestamp \(previous) ms; timestamps must strictly increase"
        case .closed: "the live stream was closed"
        case .invalidInput(let message): message
        }
    }
}
