import BlazeImage
import BlazeModel

/// Errors of the detector: bad options, weights that do not fit, bad images or regions.
public enum DetectorError: Error, Equatable, CustomStringConvertible {
    case invalidOption(name: String, value: String, allowed: String)
    case weights(ModelError)
    case weightsFile(path: String, ModelError)
    case weightsNotFound(searched: [String])
    case image(ImageError)
    case invalidRegion(String)
    case invalidImage(String)
    /// A detect variant that does not belong to the detector's running mode (fixed at creation).
    case wrongRunningMode(called: String, mode: RunningMode)
    /// A video or live-stream timestamp (ms) not greater than the one before it.
    case nonIncreasingTimestamp(previous: Int, current: Int)
    /// A live-stream call after `close()`.
    case closed

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
            "\(called) is not available in the \(mode.rawValue) running mode (the mode is fixed when the detector is created)"
        case let .nonIncreasingTimestamp(previous, current):
            "timestamp \(current) ms is not greater than the previous timestamp \(previous) ms; timestamps must strictly increase"
        case .closed: "the live stream detector was closed"
        }
    }
}
