import Foundation

/// A one-line progress bar with rate and time left, redrawn on stderr (at most ten times a
/// second); with no total (a stream), the count and rate alone. Only used when stderr is a
/// terminal; cleared when the batch ends.
final class ProgressBar {
    private let total: Int?
    private let unit: String
    private let start = ContinuousClock.now
    private var lastDraw: ContinuousClock.Instant?
    private var drawn = false

    init(total: Int?, unit: String = "img") { (self.total, self.unit) = (total, unit) }

    /// Whether a batch of `count` items (nil: not known) should show one: stderr is a terminal
    /// and the batch is long.
    static func wanted(count: Int?, disabled: Bool) -> Bool {
        !disabled && (count ?? 10) >= 10 && isatty(STDERR_FILENO) == 1
    }

    func update(done: Int) {
        let now = ContinuousClock.now
        if drawn, let lastDraw, now - lastDraw < .milliseconds(100), done < total ?? Int.max { return }
        lastDraw = now
        let elapsed = Self.seconds(now - start)
        let rate = elapsed > 0 ? Double(done) / elapsed : 0
        guard let total else {
            FileHandle.standardError.write(Data("\r\(done) \(unit)  \(Self.format1(rate)) \(unit)/s  ".utf8))
            drawn = true
            return
        }
        let left = rate > 0 ? Double(total - done) / rate : 0
        let width = 30, filled = total > 0 ? min(width, width * done / total) : width
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        let line = "\r[\(bar)] \(done)/\(total)  \(Self.format1(rate)) \(unit)/s  ETA \(Self.clock(left))  "
        FileHandle.standardError.write(Data(line.utf8))
        drawn = true
    }

    /// Erases the bar so the next stderr line starts clean.
    func clear() {
        guard drawn else { return }
        FileHandle.standardError.write(Data(("\r" + String(repeating: " ", count: 78) + "\r").utf8))
        drawn = false
    }

    private static func seconds(_ d: Duration) -> Double {
        Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    private static func format1(_ v: Double) -> String {
        let tenths = Int((v * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    private static func clock(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        return s >= 3600 ? "\(s / 3600):\(pad(s / 60 % 60)):\(pad(s % 60))" : "\(s / 60):\(pad(s % 60))"
    }

    private static func pad(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
}
