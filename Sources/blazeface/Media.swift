import BlazeFace
import BlazeImage
import BlazeImageIO
import BlazeVideoIO
import FaceRedaction
import MediaFiles
import ArgumentParser
import Foundation
import FileRedaction

/// The frames of videos for the commands that read them frame by frame (`detect`, `analyze`).
enum VideoMedia {
    /// Calls `body` with every `every`-th frame of the video at `path` as a picture, its index and
    /// its time, each line flushed; a failure gives an error record in the place of the frame
    /// it stopped at (stdout) and its message (stderr), and false.
    static func eachFrame(of path: String, every: Int, _ body: (RGBImage, Int, Int) throws -> Void) -> Bool {
        var index = 0
        do {
            let frames = try VideoFiles.open(path, kind: try MediaKind.of(path))
            while let frame = try frames.nextFrame() {
                defer { index += 1 }
                guard index % every == 0 else { continue }
                try body(RGBImage(videoFrame: frame), index, frame.timestampInMilliseconds)
                fflush(nil)
            }
            return true
        } catch {
            let message = "\(path): frame \(index): \(error)"
            print(DetectionJSON.errorLine(image: path, message: message))
            printError(message)
            return false
        }
    }

    /// Refuses an output name that is no video type this tool writes, before anything is read
    /// (a usage error).
    static func checkOutput(_ path: String) throws {
        do { try VideoFiles.checkOutput(path) } catch { throw ValidationError(error.description) }
    }
}

/// Refuses an output that is an input (the same file, by any name) before anything is written.
func refuseOverwriting(input: String, with output: String) throws {
    do { try PathIdentity.refuseOverwriting(input: input, with: output) } catch { throw ValidationError(error.description) }
}

/// Writes an annotated copy (`--annotate`) in the format its name says (JPEG, PPM), PNG otherwise.
func writeAnnotation(_ image: RGBImage, to path: String) throws {
    do { try ImageFile.write(image, to: path, format: ImageFormat.forOutput(path: path) ?? .png) } catch { throw ToolError(error.description) }
}
