import BlazeImage
import BlazeImageIO
import Foundation
import Testing

/// The `blazeface analyze` contract on the built tool: one line per image, the detect
/// contract's fields per face followed by the analysis fields asked for, error records in place.
@Suite(.serialized) struct AnalyzeCLITests {
    @Test func everythingOnFollowsTheContract() throws {
        let astronaut = Goldens.root.appendingPathComponent("images/astronaut.png").path
        let run = try CLITests.run(["analyze", astronaut, "/nonexistent/x.png", "--landmarks", "--contours", "--classify", "--mesh"])
        #expect(run.status == 65)
        try #require(run.lines.count == 2)
        let line = try #require(try JSONSerialization.jsonObject(with: Data(run.lines[0].utf8)) as? [String: Any])
        #expect(line["image"] as? String == astronaut && line["width"] as? Int == 512 && line["height"] as? Int == 512)
        let faces = try #require(line["faces"] as? [[String: Any]])
        try #require(faces.count == 1)
        // Key order is part of the contract: the detection's fields, then the analysis fields.
        let keys = ["boundingBox", "categories", "keypoints", "landmarks", "contours", "headEulerAngles", "smilingProbability",
                    "leftEyeOpenProbability", "rightEyeOpenProbability", "mesh", "blendshapes", "transformationMatrix"]
        let positions = keys.map { run.lines[0].range(of: "\"\($0)\":")?.lowerBound }
        #expect(positions.allSatisfy { $0 != nil })
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())
        #expect((faces[0]["landmarks"] as? [String: Any])?.count == 10)
        #expect((faces[0]["contours"] as? [String: Any])?.count == 15)
        #expect((faces[0]["mesh"] as? [[Double]])?.count == 478)
        #expect((faces[0]["blendshapes"] as? [String: Double])?.count == 52)
        #expect((faces[0]["transformationMatrix"] as? [[Double]])?.map(\.count) == [4, 4, 4, 4])
        // The detection fields are detect's, byte for byte.
        let detect = try CLITests.run(["detect", astronaut])
        let detectionsAndAfter = try #require(detect.lines.first?.components(separatedBy: "\"detections\":[").last)
        let detection = try #require(detectionsAndAfter.components(separatedBy: "],\"coordinates\":").first?.dropLast(1))
        #expect(run.lines[0].contains(String(detection) + ",\"landmarks\":"))
        #expect(run.lines[1].hasPrefix("{\"image\":\"/nonexistent/x.png\",\"error\":"))
    }

    @Test func onlyWhatIsAskedForIsPrinted() throws {
        let astronaut = Goldens.root.appendingPathComponent("images/astronaut.png").path
        let run = try CLITests.run(["analyze", astronaut])
        #expect(run.status == 0)
        for key in ["\"landmarks\"", "\"contours\"", "Probability", "\"mesh\"", "\"blendshapes\"", "\"transformationMatrix\""] {
            #expect(!(run.lines.first ?? "").contains(key))
        }
        #expect((run.lines.first ?? "").contains("\"headEulerAngles\":{"))
        #expect(try CLITests.run(["analyze", astronaut, "--annotate", "/tmp/x.png"]).status != 0)
    }

    /// A face the detector finds but `--min-face-size` (0.1 by default) drops is not dropped in
    /// silence: one line on stderr says how many and which option keeps them; the JSON is as before.
    @Test func facesTheMinimumSizeDropsAreNamedOnStderr() throws {
        let astronaut = try PNG.read(contentsOf: Goldens.root.appendingPathComponent("images/astronaut.png").path)
        var pixels = [UInt8](repeating: 128, count: 1200 * 600 * 3)   // the face 0.09 of the width
        for y in 0..<astronaut.height {
            pixels.replaceSubrange((y + 44) * 1200 * 3..<((y + 44) * 1200 + astronaut.width) * 3,
                                   with: astronaut.pixels[y * astronaut.width * 3..<(y + 1) * astronaut.width * 3])
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("analyze-small-\(UUID().uuidString).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try PNG.write(try RGBImage(width: 1200, height: 600, pixels: pixels), to: path)
        let dropped = try CLITests.run(["analyze", path, "--model", "full"])
        #expect(dropped.status == 0 && dropped.lines.count == 1 && dropped.lines[0].contains("\"faces\":[],\"coordinates\":"))
        #expect(dropped.stderr.contains("1 smaller face(s)") && dropped.stderr.contains("--min-face-size 0 keeps them")
                && dropped.stderr.split(separator: "\n").count == 1, "\(dropped.stderr)")
        let kept = try CLITests.run(["analyze", path, "--model", "full", "--min-face-size", "0"])
        #expect(kept.status == 0 && kept.stderr.isEmpty && kept.lines.first?.contains("\"boundingBox\"") == true, "\(kept.stderr)")
    }
}
