import BlazeImageIO
import InternalUtilities
import FaceRedaction
import Foundation

/// A masks file (`MasksJSON`, what `redact --masks FILE` writes) streamed to a hidden temporary
/// file beside its path and renamed into place only by `commit()`, once the output is complete:
/// a failed or killed run leaves no masks file, as it leaves no output.
///
/// ```swift
/// let masks = try MasksFileWriter(path: "party.masks.jsonl", input: "party.jpg", width: 4032, height: 3024,
///                                 options: redactor.options.mask)
/// masks.frame(index: 0, timestampInMilliseconds: nil, masks: redacted.masks)
/// try masks.commit()
/// ```
public final class MasksFileWriter {
    private let file: PendingFile
    private var pending: [UInt8] = []
    /// The frames and masks written so far.
    public private(set) var frames = 0, masks = 0
    /// The picture's size the masks are drawn on.
    public let width: Int, height: Int

    /// Starts the file with its header, naming the input by path, size and SHA-256 ("-": stdin,
    /// by name only), the options the masks are drawn with, the replacement picture's SHA-256
    /// (`--mode image`), the settings that found them and the `tool` that wrote it (this
    /// package's version by default).
    public init(path: String, input: String, width: Int, height: Int, options: RedactionOptions, replacementSHA256: String? = nil,
                settings: String = "", tool: String = ToolVersion.string) throws(MasksFileWriteError) {
        do { file = try PendingFile(destination: path) } catch { throw MasksFileWriteError(description: "\(error)") }
        (self.width, self.height) = (width, height)
        let size = (try? FileManager.default.attributesOfItem(atPath: input))?[.size] as? Int
        let digest = input == "-" ? nil : SHA256.hexDigest(ofFile: input)
        append(MasksJSON.header(inputPath: input, inputSize: input == "-" ? nil : size, inputSHA256: digest, width: width,
                                height: height, options: options, replacementSHA256: replacementSHA256, settings: settings,
                                tool: tool))
    }

    /// One frame's masks (a photo: frame 0, no timestamp).
    public func frame(index: Int, timestampInMilliseconds: Int?, masks drawn: [DrawnMask]) {
        append(MasksJSON.frame(index: index, timestampInMilliseconds: timestampInMilliseconds, masks: drawn, width: width, height: height))
        frames += 1
        masks += drawn.count
    }

    /// Writes the closing line and renames the file into place.
    public func commit() throws(MasksFileWriteError) {
        append(MasksJSON.end(frames: frames, masks: masks))
        try flush()
        do { try file.commit() } catch { throw MasksFileWriteError(description: "\(error)") }
    }

    /// Removes the temporary file (the run failed).
    public func discard() { file.discard() }

    private func append(_ line: String) {
        pending += Array(line.utf8)
        pending.append(UInt8(ascii: "\n"))
        if pending.count >= 1 << 16 { try? flush() }
    }

    private var failure: String?

    private func flush() throws(MasksFileWriteError) {
        var written = 0
        while written < pending.count {
            let n = pending.withUnsafeBytes { all in write(file.descriptor, all.baseAddress! + written, all.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                failure = failure ?? "\(file.destination): cannot write: \(String(cString: strerror(errno)))"
                break
            }
            written += n
        }
        pending.removeAll(keepingCapacity: true)
        if let failure { throw MasksFileWriteError(description: failure) }
    }
}

/// A masks file that could not be written, naming it.
public struct MasksFileWriteError: Error, Sendable, CustomStringConvertible {
    public var description: String
}
