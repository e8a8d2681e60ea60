import BlazeImage
import LandmarkDetection
import Testing

/// The landmarker stage by stage against MediaPipe 0.10.14 (LandmarkGoldens: 5 fixtures, 7
/// faces, one cut by the image edge), each stage fed MediaPipe's own input so that differences
/// do not compound, then end to end. The landmark network takes seconds per face in a debug
/// build, so each face goes through it once: the three faces of multi_face in the network
/// stage, the other four (and the face-free photo) end to end, where equality is also exact.
@Suite(.serialized) struct LandmarkStageTests {
    static let landmarker = Result { try LandmarkGoldens.landmarker() }

    /// Stage 1: detection, eye rotation and the 1.5x expansion give MediaPipe's regions exactly.
    @Test(arguments: LandmarkGoldens.names)
    func regionsEqualMediaPipe(_ name: String) throws {
        let g = try LandmarkGoldens.load(name)
        let regions = try Self.landmarker.get().regions(for: g.image)
        #expect(regions == g.faces.map(\.region))
    }

    /// Stage 2: the rotated 256x256 crop (replicated border, 0...1) equals MediaPipe's tensor, every float.
    @Test(arguments: LandmarkGoldens.names)
    func cropIsBitExact(_ name: String) throws {
        let g = try LandmarkGoldens.load(name)
        for face in g.faces {
            #expect(try Self.landmarker.get().inputTensor(for: g.image, region: face.region) == face.crop)
        }
    }

    static let endToEndFixtures = LandmarkGoldens.names.filter { $0 != "multi_face" }

    /// Stage 3: on MediaPipe's crop, the landmark network's outputs equal TFLite + XNNPACK's, every float.
    @Test(arguments: ["multi_face"])
    func landmarkNetworkIsBitExact(_ name: String) throws {
        let g = try LandmarkGoldens.load(name)
        for face in g.faces {
            let raw = try Self.landmarker.get().rawOutputs(for: face.crop)
            #expect(raw.landmarks == face.rawLandmarks)
            #expect(raw.presenceLogit == face.presenceLogit)
        }
    }

    /// Stage 4: decoding and projection of MediaPipe's raw outputs give its landmarks exactly.
    @Test(arguments: LandmarkGoldens.names)
    func projectionIsExact(_ name: String) throws {
        let g = try LandmarkGoldens.load(name)
        for face in g.faces {
            guard let golden = face.landmarks else { continue }
            #expect(LandmarkDecoding.project(raw: face.rawLandmarks, region: face.region) == golden)
        }
    }

    /// Stage 5: the blendshape model on MediaPipe's landmarks: names and order equal; scores
    /// within 1e-5 (measured at most 1.1e-6: the MLP-mixer's means and norms are not summed in
    /// XNNPACK's order; the bar is 1e-2).
    @Test(arguments: LandmarkGoldens.names)
    func blendshapesMatch(_ name: String) throws {
        let g = try LandmarkGoldens.load(name)
        for face in g.faces {
            guard let golden = face.landmarks, let shapes = face.blendshapes else { continue }
            let ours = try Self.landmarker.get().blendshapes(for: golden, imageWidth: g.image.width, imageHeight: g.image.height)
            #expect(ours.map(\.name) == shapes.map(\.name))
            #expect(ours.map(\.name) == BlendshapeModel.names)
            #expect(maxDifference(ours.map(\.score), shapes.map(\.score)) <= 1e-5)
        }
    }

    /// End to end, PNG to landmarks: the same faces as MediaPipe's FaceLandmarker (num_faces 4),
    /// landmarks equal (every stage above is exact), presence equal, blendshapes within 1e-5.
    @Test(arguments: endToEndFixtures)
    func endToEndMatchesMediaPipe(_ name: String) throws {
        let g = try LandmarkGoldens.load(name)
        let result = try Self.landmarker.get().detect(image: g.image)
        let golden = g.faces.filter { $0.landmarks != nil }
        #expect(result.faces.count == golden.count)
        #expect((result.imageWidth, result.imageHeight) == (g.image.width, g.image.height))
        for (ours, theirs) in zip(result.faces, golden) {
            #expect(ours.landmarks == theirs.landmarks)
            #expect(ours.region == theirs.region)
            #expect(ours.presence == theirs.presenceScore)
            #expect(maxDifference(ours.blendshapes.map(\.score), theirs.blendshapes!.map(\.score)) <= 1e-5)
        }
    }
}
