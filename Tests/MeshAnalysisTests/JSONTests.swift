import MeshAnalysis
import GeometryEstimation
import LandmarkerGoldens
import BlazeFace
import Testing

/// The byte-buffer JSON writer against the String-appending writer it replaced (kept below,
/// verbatim but for names): the same text, byte for byte.
@Suite struct JSONTests {
    let geometry: GeometryPipeline
    init() throws { geometry = try GeometryPipeline(metadata: try GeometryMetadata(contentsOf: LandmarkerGoldens.geometryWeights)) }

    static let everything = FaceAnalyzerOptions(landmarkMode: .all, contourMode: .all, classificationMode: .all, meshMode: .all, minFaceSize: 0,
                                                contourFaces: .all)

    /// Every face of every landmarker golden, with everything on and with each part alone.
    @Test(arguments: LandmarkerGoldens.fixtures)
    func fieldsEqualThePreviousWriter(_ name: String) throws {
        let golden = try LandmarkerGoldens.load(name)
        let options = [Self.everything, FaceAnalyzerOptions(minFaceSize: 0),
                       FaceAnalyzerOptions(landmarkMode: .all, minFaceSize: 0), FaceAnalyzerOptions(contourMode: .all, minFaceSize: 0),
                       FaceAnalyzerOptions(classificationMode: .all, minFaceSize: 0), FaceAnalyzerOptions(meshMode: .all, minFaceSize: 0)]
        for face in golden.faces {
            for o in options {
                let a = try #require(try FaceAnalyzer(options: o, geometry: geometry)
                    .analyze(landmarks: face.landmarks, blendshapes: face.blendshapes, imageWidth: golden.width, imageHeight: golden.height))
                #expect(FaceAnalysisJSON.fields(a) == PreviousWriter.fields(a))
                var bytes = Array("prefix,".utf8)
                FaceAnalysisJSON.appendFields(a, to: &bytes)
                #expect(bytes == Array(("prefix," + PreviousWriter.fields(a)).utf8))
            }
        }
    }

    /// Values a real face rarely holds: signed zeros, subnormals, huge and tiny magnitudes
    /// (exponent notation), NaN and infinities (null), a missing matrix and angles, and names
    /// needing escapes.
    @Test func edgeValuesEqualThePreviousWriter() throws {
        let golden = try LandmarkerGoldens.load("astronaut")
        let face = golden.faces[0]
        var a = try #require(try FaceAnalyzer(options: Self.everything, geometry: geometry)
            .analyze(landmarks: face.landmarks, blendshapes: face.blendshapes, imageWidth: golden.width, imageHeight: golden.height))
        let special: [Float] = [0, -0.0, .nan, -.nan, .infinity, -.infinity, .leastNonzeroMagnitude, -.leastNormalMagnitude,
                                .greatestFiniteMagnitude, 1e-7, 1e-5, 0.0001, 1e16, 123456792, 16_777_216, 0.1, -1.5, 1 / 3]
        var mesh = try #require(a.mesh)
        for i in mesh.indices { mesh[i].x = special[i % special.count]; mesh[i].z = special[(i * 7) % special.count] }
        a.mesh = mesh
        a.landmarks![0].position.x = .nan
        a.contours![3].points[2].y = -0.0
        a.classification!.smilingProbability = .infinity
        a.headEulerAngles!.z = 1e-30
        a.blendshapes![0].name = "quote\" back\\slash \u{1}\u{1f} tab\t line\n é ☃"
        a.blendshapes![1].score = .nan
        a.transformationMatrix![2, 3] = -.infinity
        #expect(FaceAnalysisJSON.fields(a) == PreviousWriter.fields(a))
        a.transformationMatrix = nil
        a.headEulerAngles = nil
        #expect(FaceAnalysisJSON.fields(a) == PreviousWriter.fields(a))
    }
}

/// The writer before the byte buffer (a String appended token by token): the reference text.
enum PreviousWriter {
    static func fields(_ a: FaceAnalysis) -> String {
        var out = String()
        var first = true
        func key(_ name: String) {
            if !first { out += "," }
            first = false
            out += "\""
            out += name
            out += "\":"
        }
        if let landmarks = a.landmarks {
            key("landmarks")
            out += "{"
            for (i, l) in landmarks.enumerated() {
                if i > 0 { out += "," }
                out += "\""
                out += l.type.rawValue
                out += "\":"
                append(l.position, to: &out)
            }
            out += "}"
        }
        if let contours = a.contours {
            key("contours")
            out += "{"
            for (i, c) in contours.enumerated() {
                if i > 0 { out += "," }
                out += "\""
                out += c.type.rawValue
                out += "\":["
                for (j, p) in c.points.enumerated() {
                    if j > 0 { out += "," }
                    append(p, to: &out)
                }
                out += "]"
            }
            out += "}"
        }
        key("headEulerAngles")
        if let e = a.headEulerAngles {
            out += "{\"x\":"
            append(e.x, to: &out)
            out += ",\"y\":"
            append(e.y, to: &out)
            out += ",\"z\":"
            append(e.z, to: &out)
            out += "}"
        } else {
            out += "null"
        }
        if let c = a.classification {
            key("smilingProbability")
            append(c.smilingProbability, to: &out)
            key("leftEyeOpenProbability")
            append(c.leftEyeOpenProbability, to: &out)
            key("rightEyeOpenProbability")
            append(c.rightEyeOpenProbability, to: &out)
        }
        if let mesh = a.mesh {
            key("mesh")
            out += "["
            for (i, p) in mesh.enumerated() {
                out += i > 0 ? ",[" : "["
                append(p.x, to: &out)
                out += ","
                append(p.y, to: &out)
                out += ","
                append(p.z, to: &out)
                out += "]"
            }
            out += "]"
        }
        if let blendshapes = a.blendshapes {
            key("blendshapes")
            out += "{"
            for (i, b) in blendshapes.enumerated() {
                if i > 0 { out += "," }
                out += string(b.name)
                out += ":"
                append(b.score, to: &out)
            }
            out += "}"
        }
        if a.mesh != nil {
            key("transformationMatrix")
            if let m = a.transformationMatrix {
                out += "["
                for r in 0..<4 {
                    out += r > 0 ? ",[" : "["
                    for c in 0..<4 {
                        if c > 0 { out += "," }
                        append(m[r, c], to: &out)
                    }
                    out += "]"
                }
                out += "]"
            } else {
                out += "null"
            }
        }
        return out
    }

    static func append(_ p: SIMD2<Float>, to out: inout String) {
        out += "["
        append(p.x, to: &out)
        out += ","
        append(p.y, to: &out)
        out += "]"
    }

    static func append(_ v: Float, to out: inout String) {
        if v.isFinite { v.write(to: &out) } else { out += "null" }
    }

    /// Names escaped by the CLI's one JSON escaper (the analysis writer had its own copy, which
    /// wrote tab, newline and return as \u00XX instead of \t, \n, \r).
    static func string(_ s: String) -> String { DetectionJSON.string(s) }
}
