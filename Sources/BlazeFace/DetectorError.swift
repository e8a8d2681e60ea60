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
        }
    }
}
