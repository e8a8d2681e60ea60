import MeshAnalysis
import GeometryEstimation
import Foundation
import LandmarkerGoldens
import Testing
import VisionTasks

/// The analyzer on MediaPipe's own FaceLandmarker outputs (the goldens).
@Suite struct AnalyzerTests {
    let geometry: GeometryPipeline
    init() throws { geometry = try GeometryPipeline(metadata: try GeometryMetadata(contentsOf: LandmarkerGoldens.geometryWeights)) }

    static let everything = FaceAnalyzerOptions(landmarkMode: .all, contourMode: .all, classificationMode: .all, meshMode: .all, minFaceSize: 0)

    func analyze(_ golden: LandmarkerGoldens.Golden, _ face: LandmarkerGoldens.Face, _ options: FaceAnalyzerOptions = everything) throws -> FaceAnalysis? {
        try FaceAnalyzer(options: options, geometry: geometry)
            .analyze(landmarks: face.landmarks, blendshapes: face.blendshapes, imageWidth: golden.width, imageHeight: golden.height)
    }

    /// The detector's boxes for a fixture (short-range goldens, MediaPipe's Tasks FaceDetector), in pixels.
    func detectionBoxes(_ name: String) throws -> [(x: Float, y: Float, w: Float, h: Float)] {
        let url = LandmarkerGoldens.root.appendingPathComponent("goldens/short_range/\(name)/detections.json")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let tasks = try #require(json["tasks"] as? [[String: Any]])
        return try tasks.map {
            let b = try #require($0["boundingBox"] as? [String: Int])
            return (Float(b["originX"] ?? 0), Float(b["originY"] ?? 0), Float(b["width"] ?? 0), Float(b["height"] ?? 0))
        }
    }

    /// Eye, nose and mouth landmarks lie inside one of MediaPipe's face detection boxes (an
    /// independent model), and the subject's left eye, ear, cheek and mouth corner are on the
    /// image's right of their right counterparts (the faces are upright and unmirrored).
    @Test(arguments: LandmarkerGoldens.fixtures)
    func landmarksLieInTheFaceAndSidesAreNotSwapped(_ name: String) throws {
        let golden = try LandmarkerGoldens.load(name)
        let boxes = try detectionBoxes(name)
        for face in golden.faces {
            let a = try #require(try analyze(golden, face))
            let points = Dictionary(uniqueKeysWithValues: try #require(a.landmarks).map { ($0.type, $0.position) })
            let inner: [FaceLandmarkType] = [.leftEye, .rightEye, .noseBase, .mouthLeft, .mouthRight, .mouthBottom]
            let inside = boxes.contains { box in
                inner.allSatisfy { t in
                    let p = points[t]! * SIMD2(Float(golden.width), Float(golden.height))
                    return p.x >= box.x && p.x <= box.x + box.w && p.y >= box.y && p.y <= box.y + box.h
                }
            }
            #expect(inside, "\(name): landmarks outside every detection box")
            for (left, right) in [(FaceLandmarkType.leftEye, FaceLandmarkType.rightEye), (.leftEar, .rightEar), (.leftCheek, .rightCheek), (.mouthLeft, .mouthRight)] {
                #expect(points[left]!.x > points[right]!.x, "\(name): \(left) is not right of \(right) in the image")
            }
            // Eyes above the nose base above the mouth bottom (image y grows downward).
            #expect(points[.leftEye]!.y < points[.noseBase]!.y && points[.noseBase]!.y < points[.mouthBottom]!.y)
        }
    }

    /// Each contour and landmark is the mesh point it names (or the mean, for the eyes).
    @Test func pointsComeFromTheirMeshIndices() throws {
        let golden = try LandmarkerGoldens.load("astronaut")
        let face = golden.faces[0]
        let a = try #require(try analyze(golden, face))
        for contour in try #require(a.contours) {
            #expect(contour.points == contour.type.meshIndices.map { SIMD2(face.landmarks[$0].x, face.landmarks[$0].y) })
        }
        let eye = FaceContourType.leftEye.meshIndices.map { SIMD2(face.landmarks[$0].x, face.landmarks[$0].y) }
        let mean = eye.reduce(SIMD2<Float>.zero, +) / Float(eye.count)
        #expect(a.landmarks?.first { $0.type == .leftEye }?.position == mean)
    }

    /// Classification follows the documented calibration, on MediaPipe's blendshapes.
    @Test func classificationFromBlendshapes() throws {
        let golden = try LandmarkerGoldens.load("astronaut")
        let face = golden.faces[0]
        let c = try #require(try analyze(golden, face)?.classification)
        let score = { (name: String) in face.blendshapes.first { $0.name == name }!.score }
        #expect(c.smilingProbability == (score("mouthSmileLeft") + score("mouthSmileRight")) / 2)
        #expect(c.leftEyeOpenProbability == 1 - score("eyeBlinkLeft"))
        #expect(c.rightEyeOpenProbability == 1 - score("eyeBlinkRight"))
        // The astronaut smiles with open eyes in the photo.
        #expect(c.smilingProbability > 0.8 && c.leftEyeOpenProbability > 0.9 && c.rightEyeOpenProbability > 0.9)
        #expect(throws: VisionTaskError.invalidInput("cannot classify the face: blendshape 'mouthSmileLeft' is missing")) { try FaceClassification(blendshapes: []) }
    }

    /// With every mode `.none`, nothing but the head angles is computed, and no blendshapes are needed.
    @Test func computesOnlyWhatWasAskedFor() throws {
        let golden = try LandmarkerGoldens.load("two_faces_1280x853")
        let face = golden.faces[0]
        let options = FaceAnalyzerOptions(minFaceSize: 0)
        #expect(!options.needsBlendshapes)
        let a = try #require(try FaceAnalyzer(options: options, geometry: geometry)
            .analyze(landmarks: face.landmarks, blendshapes: nil, imageWidth: golden.width, imageHeight: golden.height))
        #expect(a.landmarks == nil && a.contours == nil && a.classification == nil)
        #expect(a.mesh == nil && a.blendshapes == nil && a.transformationMatrix == nil)
        #expect(a.headEulerAngles != nil)
        let contoursOnly = try #require(try analyze(golden, face, FaceAnalyzerOptions(contourMode: .all, minFaceSize: 0)))
        #expect(contoursOnly.contours?.count == 15 && contoursOnly.landmarks == nil && contoursOnly.classification == nil)
        // Classification without blendshapes is refused, not guessed.
        #expect(throws: VisionTaskError.self) {
            try FaceAnalyzer(options: FaceAnalyzerOptions(classificationMode: .all, minFaceSize: 0), geometry: geometry)
                .analyze(landmarks: face.landmarks, blendshapes: nil, imageWidth: golden.width, imageHeight: golden.height)
        }
    }

    /// minFaceSize compares the face-oval width with the image width (ML Kit's ratio).
    @Test func minFaceSizeFiltersNarrowFaces() throws {
        let golden = try LandmarkerGoldens.load("two_faces_1280x853")
        for face in golden.faces {
            let width = FaceAnalyzer.faceWidth(landmarks: face.landmarks)
            #expect(width > 0.1 && width < 0.5)
            #expect(try analyze(golden, face, FaceAnalyzerOptions(minFaceSize: width * 0.99)) != nil)
            #expect(try analyze(golden, face, FaceAnalyzerOptions(minFaceSize: width * 1.01)) == nil)
        }
        #expect(throws: VisionTaskError.self) { try FaceAnalyzer(options: FaceAnalyzerOptions(minFaceSize: 1.5), geometry: geometry) }
        #expect(throws: VisionTaskError.self) { try FaceAnalyzer(options: FaceAnalyzerOptions(minFaceSize: .nan), geometry: geometry) }
    }

    @Test func refusesBadInput() throws {
        let golden = try LandmarkerGoldens.load("astronaut")
        let face = golden.faces[0]
        let analyzer = try FaceAnalyzer(options: Self.everything, geometry: geometry)
        #expect(throws: VisionTaskError.self) { try analyzer.analyze(landmarks: Array(face.landmarks.prefix(100)), blendshapes: face.blendshapes, imageWidth: 512, imageHeight: 512) }
        #expect(throws: VisionTaskError.self) { try analyzer.analyze(landmarks: face.landmarks, blendshapes: face.blendshapes, imageWidth: -1, imageHeight: 512) }
        var bad = face.landmarks
        bad[0].x = .infinity
        #expect(throws: VisionTaskError.self) { try analyzer.analyze(landmarks: bad, blendshapes: face.blendshapes, imageWidth: 512, imageHeight: 512) }
    }

    /// The JSON fields parse, with ML Kit's counts and MediaPipe's raw outputs intact.
    @Test func jsonFieldsParse() throws {
        let golden = try LandmarkerGoldens.load("multi_face")
        let face = golden.faces[0]
        let a = try #require(try analyze(golden, face))
        let text = "{" + FaceAnalysisJSON.fields(a) + "}"
        let json = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let landmarks = try #require(json["landmarks"] as? [String: [Double]])
        #expect(Set(landmarks.keys) == Set(FaceLandmarkType.allCases.map(\.rawValue)))
        let contours = try #require(json["contours"] as? [String: [[Double]]])
        #expect(contours["face"]?.count == 36 && contours["upperLipTop"]?.count == 11 && contours.count == 15)
        let angles = try #require(json["headEulerAngles"] as? [String: Double])
        let yaw = try #require(angles["y"])
        #expect(Float(yaw) == a.headEulerAngles?.y)
        #expect(json["smilingProbability"] is Double && json["leftEyeOpenProbability"] is Double && json["rightEyeOpenProbability"] is Double)
        let mesh = try #require(json["mesh"] as? [[Double]])
        #expect(mesh.count == 478 && mesh.allSatisfy { $0.count == 3 })
        #expect(Float(mesh[1][2]) == face.landmarks[1].z)   // shortest round-trip decimals
        let blendshapes = try #require(json["blendshapes"] as? [String: Double])
        let jawOpen = try #require(blendshapes["jawOpen"])
        #expect(blendshapes.count == 52 && Float(jawOpen) == face.blendshapes.first { $0.name == "jawOpen" }!.score)
        let matrix = try #require(json["transformationMatrix"] as? [[Double]])
        #expect(matrix.count == 4 && matrix.allSatisfy { $0.count == 4 } && matrix[3] == [0, 0, 0, 1])
        // Key order is fixed: landmarks, contours, angles, classification, mesh, blendshapes, matrix.
        let order = ["\"landmarks\"", "\"contours\"", "\"headEulerAngles\"", "\"smilingProbability\"", "\"mesh\"", "\"blendshapes\"", "\"transformationMatrix\""]
        let positions = order.map { text.range(of: $0)!.lowerBound }
        #expect(positions == positions.sorted())
    }
}
