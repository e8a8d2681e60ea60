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

/// Where one input file's output goes: `output` itself, or, when `output` is a folder that exists
/// or a name ending in "/", the input's name inside it (a photo in a format this tool does not
/// write, or a video in a container it does not, with the extension `redact` gives a folder
/// run's: .jpg, .mp4).
func singleTarget(input: String, output: String, kind: MediaKind) -> String {
    guard output != "-" else { return output }
    var isFolder: ObjCBool = false
    let folder = output.hasSuffix("/") || (FileManager.default.fileExists(atPath: output, isDirectory: &isFolder) && isFolder.boolValue)
    guard folder, input != "-" else { return output }
    let name = (input as NSString).lastPathComponent
    let inside = (output as NSString).appendingPathComponent(name)
    switch kind {
    case .photo: return BatchInputs.photoTarget(inside)
    case .y4m: return (inside as NSString).pathExtension.lowercased() == "y4m" ? inside : (inside as NSString).deletingPathExtension + ".y4m"
    default:
        let ext = (name as NSString).pathExtension.lowercased()
        return VideoFiles.containerExtensions.contains(ext) ? inside : (inside as NSString).deletingPathExtension + ".mp4"
    }
}

/// Creates the folders above a single output that do not exist yet (as a folder run creates its
/// output folder); a plain error when one cannot be made.
func createParentFolders(of output: String) throws {
    guard output != "-" else { return }
    let parent = (output as NSString).deletingLastPathComponent
    guard !parent.isEmpty, !FileManager.default.fileExists(atPath: parent) else { return }
    do { try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true) } catch {
        throw ToolError("\(output): cannot create its folder \(parent): \((error as NSError).localizedDescription)")
    }
}

/// Refuses an output that is an input (the same file, by any name) before anything is written.
func refuseOverwriting(input: String, with output: String) throws {
    guard input != "-", output != "-" else { return }
    var a = stat(), b = stat()
    if stat(input, &a) == 0, stat(output, &b) == 0, a.st_dev == b.st_dev, a.st_ino == b.st_ino {
        throw ValidationError("\(output) is the input \(input): choose another output (the input is never overwritten)")
    }
    let (i, o) = ((input as NSString).standardizingPath, (output as NSString).standardizingPath)
    if i == o { throw ValidationError("\(output) is the input: choose another output (the input is never overwritten)") }
}

/// Writes an annotated copy (`--annotate`) in the format its name says (JPEG, PPM), PNG otherwise.
func writeAnnotation(_ image: RGBImage, to path: String) throws {
    do { try ImageFile.write(image, to: path, format: ImageFormat.forOutput(path: path) ?? .png) } catch { throw ToolError(error.description) }
}
