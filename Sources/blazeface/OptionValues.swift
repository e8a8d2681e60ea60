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

    /// The one pool of this run, passed to everything it runs: `ThreadPool.shared` for auto
    /// (the same size), the calling thread alone for 1.
    func makePool() -> ThreadPool { isAutomatic ? .shared : value == 1 ? .inline : ThreadPool(threads: value) }
    static var allValueStrings: [String] { ["auto", "1...64"] }
}

/// `--max-memory`: a size in MiB (`3072`), or with a unit, binary (`3G`, `1536M`, `3GiB`).
struct MemorySize: ExpressibleByArgument, CustomStringConvertible {
    let bytes: Int

    init(bytes: Int) { self.bytes = bytes }

    init?(argument: String) {
        let text = argument.trimmingCharacters(in: .whitespaces).uppercased()
        let units: [(String, Int)] = [("GIB", 30), ("GB", 30), ("G", 30), ("MIB", 20), ("MB", 20), ("M", 20)]
        let (number, shift) = units.first { text.hasSuffix($0.0) }.map { (String(text.dropLast($0.0.count)), $0.1) } ?? (text, 20)
        guard let value = Double(number.trimmingCharacters(in: .whitespaces)), value.isFinite, value >= 1.0 / 16, value < Double(1 << 20) else { return nil }
        bytes = Int(value * Double(1 << shift))
    }

    var description: String {
        bytes % (1 << 30) == 0 ? "\(bytes >> 30)G" : "\(bytes >> 20)M"
    }
}

// Options whose values are the library's own enums (`--orientation upMirrored`, `--mode blur`):
// ArgumentParser parses and lists their raw values.
extension ImageOrientation: ExpressibleByArgument {}
extension RedactionOptions.Mode: ExpressibleByArgument {}
extension VideoWriteOptions.Codec: ExpressibleByArgument {}

// MARK: - One name per concept, usage errors that name the flag

/// An option's value under its canonical name or its old, hidden spelling (kept for a release):
/// giving both is a usage error.
func aliased<T>(_ canonical: T?, _ old: T?, _ canonicalName: String, _ oldName: String) throws -> T? {
    if canonical != nil, old != nil {
        throw ValidationError("\(oldName) is the old name of \(canonicalName): give only \(canonicalName)")
    }
    return canonical ?? old
}

/// A usage error naming `flag` unless `value` (when given) is a finite number in 0...1.
func checkUnitInterval(_ value: Float?, _ flag: String) throws {
    guard let value else { return }
    guard value.isFinite, (0...1).contains(value) else { throw ValidationError("\(flag) must be a number in 0...1, not \(value)") }
}

/// A usage error naming `flag` unless `value` (when given) is in `range`.
func checkRange(_ value: Int?, _ range: ClosedRange<Int>, _ flag: String) throws {
    guard let value else { return }
    guard range.contains(value) else { throw ValidationError("\(flag) must be in \(range.lowerBound)...\(range.upperBound), not \(value)") }
}

/// A usage error naming `flag` unless `value` (when given) is at least 1.
func checkPositive(_ value: Int?, _ flag: String) throws {
    guard let value else { return }
    guard value >= 1 else { throw ValidationError("\(flag) must be at least 1, not \(value)") }
}

/// The flag as the user typed it, of a canonical name and its old spelling: the old one when
/// only that was given.
func typed(_ canonicalName: String, _ oldName: String, oldGiven: Bool) -> String { oldGiven ? oldName : canonicalName }
