import Checksums
import BlazeImageIO
import FaceRedaction
import FileRedaction
import Foundation

/// `redact --masks FILE`: the masks file (`MasksJSON`) streamed to a hidden temporary file
/// beside FILE and renamed into place only once the output is complete; a failed or killed run
/// leaves no masks file, as it leaves no output.
final class MasksFileWriter {
    private let file: PendingFile
    private var pending: [UInt8] = []
    private(set) var frames = 0, masks = 0
    let width: Int, height: Int

    /// Starts the file with its header, naming the input by path, size and SHA-256.
    init(path: String, input: String, width: Int, height: Int, options: RedactionOptions, replacementSHA256: String?, settings: String) throws {
        do { file = try PendingFile(destination: path) } catch { throw ToolError("\(error)") }
        (self.width, self.height) = (width, height)
        let size = (try? FileManager.default.attributesOfItem(atPath: input))?[.size] as? Int
        let digest = input == "-" ? nil : SHA256.hexDigest(ofFile: input)
        append(MasksJSON.header(inputPath: input, inputSize: input == "-" ? nil : size, inputSHA256: digest, width: width,
                                height: height, options: options, replacementSHA256: replacementSHA256, settings: settings,
                                tool: ToolVersion.string))
    }

    /// One frame's masks (a photo: frame 0, no timestamp).
    func frame(index: Int, timestampInMilliseconds: Int?, masks drawn: [DrawnMask]) {
        append(MasksJSON.frame(index: index, timestampInMilliseconds: timestampInMilliseconds, masks: drawn, width: width, height: height))
        frames += 1
        masks += drawn.count
    }

    /// Writes the closing line and renames the file into place.
    func commit() throws {
        append(MasksJSON.end(frames: frames, masks: masks))
        try flush()
        do { try file.commit() } catch { throw ToolError("\(error)") }
    }

    /// Removes the temporary file (the run failed).
    func discard() { file.discard() }

    private func append(_ line: String) {
        pending += Array(line.utf8)
        pending.append(UInt8(ascii: "\n"))
        if pending.count >= 1 << 16 { try? flush() }
    }

    private var failure: String?

    private func flush() throws {
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
        if let failure { throw ToolError(failure) }
    }
}
