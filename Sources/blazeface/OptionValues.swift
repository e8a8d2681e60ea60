import ArgumentParser
import BlazeFace
import BlazeModel
import BlazeVideoIO
import FaceRedaction

/// `--threads N` (1...64) or `--threads auto`: the cores this process may use (affinity and
/// cgroup quota, `AvailableCores`), at most 4, past which these models stop scaling.
struct ThreadCount: ExpressibleByArgument, CustomStringConvertible {
    let value: Int
    let isAutomatic: Bool

    init(_ value: Int) { (self.value, isAutomatic) = (value, false) }

    init?(argument: String) {
        if argument == "auto" {
            (value, isAutomatic) = (AvailableCores.automatic(cap: 4), true)
        } else if let n = Int(argument), (1...64).contains(n) {
            (value, isAutomatic) = (n, false)
        } else {
            return nil
        }
    }

    var description: String { isAutomatic ? "auto" : String(value) }
    static var allValueStrings: [String] { ["auto", "1...64"] }
}

// Options whose values are the library's own enums (`--orientation upMirrored`, `--mode blur`):
// ArgumentParser parses and lists their raw values.
extension ImageOrientation: ExpressibleByArgument {}
extension RedactionOptions.Mode: ExpressibleByArgument {}
extension VideoWriteOptions.Codec: ExpressibleByArgument {}
