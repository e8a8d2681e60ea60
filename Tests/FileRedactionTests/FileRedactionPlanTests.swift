import BlazeFace
import BlazeImageIO
import FaceRedaction
import FileRedaction
import Foundation
import MediaFiles
import Testing

/// What `blazeface redact INPUT OUTPUT` and `detect` do to one file, through the public API.
@Suite struct FileRedactionPlanTests {
    static let images = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/images").path

    static func temporaryFolder(_ name: String) throws -> String {
        let dir = NSTemporaryDirectory() + "\(name)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func masksOptionsAFolderCannotTakeAreRefused() throws {
        #expect(throws: Never.self) { try FileRedactionPlan.checkMasksOptions(kind: .photo, writingMasks: true, drawingMasks: false) }
        for (writing, drawing) in [(true, false), (false, true)] {
            #expect { try FileRedactionPlan.checkMasksOptions(kind: .folder, writingMasks: writing, drawingMasks: drawing) } throws: {
                ($0 as? FileRedactionPlanError)?.kind == .masksOptions && "\($0)".contains("not a folder")
            }
        }
        #expect { try FileRedactionPlan.checkMasksOptions(kind: .video, writingMasks: true, drawingMasks: true) } throws: {
            "\($0)" == "--apply-masks draws a masks file; --masks writes one: give one of them"
        }
    }

    /// A folder goes into a folder: an output not there yet that names a file type is refused;
    /// one ending in / or without a type is a folder to make.
    @Test func aFolderInputNeedsAFolderOutput() throws {
        for name in ["/nonexistent-dir/out.mp4", "/nonexistent-dir/out.jpg", "/nonexistent-dir/out.y4m"] {
            #expect { try FileRedactionPlan.checkFolderOutput(name) } throws: {
                ($0 as? FileRedactionPlanError)?.kind == .output && "\($0)".hasSuffix("OUTPUT must be a folder too, not a .\((name as NSString).pathExtension) file")
            }
        }
        for name in ["/nonexistent-dir/out/", "/nonexistent-dir/out", Self.images] {
            #expect(throws: Never.self) { try FileRedactionPlan.checkFolderOutput(name) }
        }
    }

    /// A detection run reads a video frame by frame: whether an input is one is read from its content.
    @Test func anInputIsAVideoByItsContent() throws {
        #expect(!InputList.Item.file(Self.images + "/two_faces_1280x853.png").isVideo)
        #expect(!InputList.Item.standardInput.isVideo && !InputList.Item.file("/nonexistent.mp4").isVideo)
        let dir = try Self.temporaryFolder("isvideo")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A one-frame Y4M stream named .bin: a video by its content, not its name.
        let frame = [UInt8]("YUV4MPEG2 W2 H2 F25:1 C420jpeg\nFRAME\n".utf8) + [UInt8](repeating: 128, count: 6)
        #expect(FileManager.default.createFile(atPath: dir + "/clip.bin", contents: Data(frame)))
        #expect(InputList.Item.file(dir + "/clip.bin").isVideo)
    }

    @Test func thePlanNamesTheOutputAndMakesItsFolders() throws {
        let dir = try Self.temporaryFolder("plan")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = Self.images + "/two_faces_1280x853.png"
        // A name ending in / is a folder: the input's name inside it, made with the masks file's folder.
        let plan = try FileRedactionPlan.prepare(input: input, kind: .photo, output: dir + "/out/",
                                                 masks: MasksFileRequest(path: dir + "/masks/m.jsonl"))
        #expect(plan.output == dir + "/out/two_faces_1280x853.png" && plan.kind == .photo)
        #expect(FileManager.default.fileExists(atPath: dir + "/out") && FileManager.default.fileExists(atPath: dir + "/masks"))
        #expect { try FileRedactionPlan.prepare(input: input, kind: .photo, output: dir + "/x.gif") } throws: {
            ($0 as? FileRedactionPlanError)?.kind == .output && "\($0)".hasPrefix(dir + "/x.gif: unknown photo type; use ")
        }
        #expect { try FileRedactionPlan.prepare(input: input, kind: .photo, output: input) } throws: {
            ($0 as? FileRedactionPlanError)?.kind == .output && "\($0)".contains("is the input")
        }
        #expect { try FileRedactionPlan.prepare(input: input, kind: .photo, output: dir + "/o.png", masks: MasksFileRequest(path: dir + "/o.png")) } throws: {
            "\($0)" == "--masks \(dir)/o.png is the output"
        }
        #expect { try FileRedactionPlan.prepare(input: dir + "/clip.mp4", kind: .video, output: dir + "/clip.txt") } throws: {
            ($0 as? FileRedactionPlanError)?.kind == .output
        }
    }

    /// One call redacts a photo and writes its masks file, the same masks the photo was drawn
    /// with; a failure before writing leaves neither.
    @Test func aPhotoAndItsMasksFileInOneCall() throws {
        let dir = try Self.temporaryFolder("plan-photo")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let input = Self.images + "/two_faces_1280x853.png"
        let redactor = try FaceRedactor()
        let redacted = try redactor.redactPhoto(at: input, to: dir + "/out.png", writingMasks: MasksFileRequest(path: dir + "/m.jsonl", settings: "test"))
        let file = try MasksFile.read(at: dir + "/m.jsonl")
        #expect(redacted.faces == 2 && file.frames.count == 1 && file.frames[0].count == redacted.masks.count)
        #expect(try String(contentsOfFile: dir + "/m.jsonl", encoding: .utf8).contains("\"test\""))
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try redactor.redactPhoto(at: input, to: dir + "/stopped.png", writingMasks: MasksFileRequest(path: dir + "/stopped.jsonl")) { _ in throw Stop() }
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains("stopped") }
        #expect(left.isEmpty, "\(left)")
    }

    @Test func aPictureSearchGivesEachInputItsLineOrItsError() throws {
        let search = try PictureFaceSearch(.mediapipe, options: FaceDetectorOptions())
        let path = Self.images + "/two_faces_1280x853.png"
        guard case .detected(let line, nil, let result) = search.outcome(for: .file(path), standardInput: nil) else {
            Issue.record("not detected"); return
        }
        #expect(result.detections.count == 2)
        #expect(line == DetectionJSON.line(image: path, width: 1280, height: 853, result: try FaceDetector().detect(image: try Pictures.read(contentsOf: path, upright: true))))
        guard case .failed(let record, let message) = search.outcome(for: .file("/nonexistent.png"), standardInput: nil) else {
            Issue.record("read a missing file"); return
        }
        #expect(message.hasPrefix("/nonexistent.png: ") && record == DetectionJSON.errorLine(image: "/nonexistent.png", message: message))
    }
}
