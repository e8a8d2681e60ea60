import Foundation
import Testing

/// The `blazeface analyze` contract on the built tool: one line per image, the detect
/// contract's fields per face followed by the analysis fields asked for, error records in place.
@Suite(.serialized) struct AnalyzeCLITests {
    @Test func everythingOnFollowsTheContract() throws {
        let astronaut = Goldens.root.appendingPathComponent("images/astronaut.png").path
        let run = try CLITests.run(["analyze", astronaut, "/nonexistent/x.png", "--landmarks", "--contours", "--classify", "--mesh"])
        #expect(run.status == 1)
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
        let detection = try #require(detect.lines.first?.components(separatedBy: "\"detections\":[").last?.dropLast(3))
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
}
