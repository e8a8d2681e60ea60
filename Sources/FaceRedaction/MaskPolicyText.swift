import BlazeFace
import Foundation

extension MaskPolicy {
    /// A region as a user writes it (`redact --mask-region`, `--keep-region`): `X,Y,W,H` in pixels
    /// of the upright picture and, for a region masked in a video, optionally `@START-END` in
    /// seconds (either end may be left out: `@12.5-30`, `@-30`, `@12.5-`).
    public struct PixelRegion: Sendable, Equatable {
        public var x, y, width, height: Float
        /// The time range in milliseconds (nil: open).
        public var from: Int?, to: Int?

        public init(x: Float, y: Float, width: Float, height: Float, from: Int? = nil, to: Int? = nil) {
            (self.x, self.y, self.width, self.height, self.from, self.to) = (x, y, width, height, from, to)
        }

        /// Parses `text`; `timed`: a time range may follow. The error names `text` and says what
        /// was expected.
        public init(parsing text: String, timed: Bool) throws(MaskPolicyError) {
            let parts = text.split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
            let numbers = parts[0].split(separator: ",").map { Float($0.trimmingCharacters(in: .whitespaces)) }
            guard numbers.count == 4, numbers.allSatisfy({ $0 != nil && $0!.isFinite && $0! >= 0 }), numbers[2]! > 0, numbers[3]! > 0 else {
                throw MaskPolicyError("\(text): expected X,Y,W,H in pixels (W and H above 0)" + (timed ? ", then optionally @START-END in seconds" : ""))
            }
            self.init(x: numbers[0]!, y: numbers[1]!, width: numbers[2]!, height: numbers[3]!)
            guard parts.count == 2 else { return }
            let ends = parts[1].split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
            let seconds = ends.map { $0.isEmpty ? nil : Double($0) }
            guard timed, ends.count == 2, zip(ends, seconds).allSatisfy({ $0.isEmpty || ($1 != nil && $1! >= 0 && $1!.isFinite) }) else {
                throw MaskPolicyError("\(text): " + (timed ? "the time range is START-END in seconds (e.g. @12.5-30, @-30, @12.5-)" : "takes no time range"))
            }
            (from, to) = (seconds[0].map { Int(($0 * 1000).rounded()) }, seconds[1].map { Int(($0 * 1000).rounded()) })
            if let from, let to, to < from { throw MaskPolicyError("\(text): END is before START") }
        }
    }

    /// The policy for a picture of `width` x `height` pixels: `maskRegions` masked (in their time
    /// ranges), the faces of `keptTracks` and the masks wholly inside `keptRegions` left undrawn.
    ///
    /// ```swift
    /// let screen = try MaskPolicy.PixelRegion(parsing: "1200,80,640,360@12-30", timed: true)
    /// let policy = MaskPolicy(maskRegions: [screen], width: 1920, height: 1080)
    /// ```
    public init(maskRegions: [PixelRegion] = [], keptTracks: Set<Int> = [], keptRegions: [PixelRegion] = [], width: Int, height: Int) {
        let (w, h) = (Float(max(width, 1)), Float(max(height, 1)))
        func normalized(_ r: PixelRegion) -> NormalizedRect {
            NormalizedRect(xMin: r.x / w, yMin: r.y / h, width: r.width / w, height: r.height / h)
        }
        self.init(regions: maskRegions.map { Region(box: normalized($0), from: $0.from, to: $0.to) }, keptTracks: keptTracks,
                  keptRegions: keptRegions.map(normalized))
    }
}

/// A region that cannot be read (`MaskPolicy.PixelRegion(parsing:timed:)`): the text and what
/// was expected.
public struct MaskPolicyError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
