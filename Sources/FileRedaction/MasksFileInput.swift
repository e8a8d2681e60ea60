import FaceRedaction
import Foundation
import InternalUtilities

extension MasksFile {
    /// Why these masks are not for the file at `path`, or nil when they are. A masks file names
    /// its input by size and SHA-256 (one written from stdin names neither, and fits any input):
    /// masks drawn on another file would leave its faces visible, so `FaceRedactor.drawPhoto` and
    /// `drawVideo` refuse such a file with this reason, before anything is written.
    ///
    /// ```swift
    /// if let reason = reviewed.mismatch(withInputAt: "party.mp4") { print("party.masks.jsonl \(reason), not party.mp4") }
    /// ```
    public func mismatch(withInputAt path: String) -> String? {
        guard let expected = inputSize else { return nil }
        let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
        guard expected != size || inputSHA256.map({ $0 != SHA256.hexDigest(ofFile: path) }) == true else { return nil }
        return "is for another input (\(expected) bytes, SHA-256 \(inputSHA256 ?? "?"))"
    }
}
