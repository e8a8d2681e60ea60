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
