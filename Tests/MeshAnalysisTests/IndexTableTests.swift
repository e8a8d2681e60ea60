import MeshAnalysis
import GeometryEstimation
import LandmarkerGoldens
import Testing

/// The landmark and contour index tables, checked against MediaPipe's canonical face mesh
/// (exactly mirror-symmetric: vertex x → -x) and its triangles.
@Suite struct IndexTableTests {
    let metadata: GeometryMetadata
    init() throws { metadata = try GeometryMetadata(contentsOf: LandmarkerGoldens.geometryWeights) }

    /// The vertex at the mirror image of vertex `i` (x negated), if the mesh has one there.
    func mirror(_ i: Int) -> Int? {
        let p = metadata.positions[i] * SIMD3(-1, 1, 1)
        return metadata.positions.indices.first { j in
            let d = metadata.positions[j] - p
            return (d * d).sum() < 1e-8
        }
    }

    @Test func contoursHaveMLKitsPointCounts() {
        let expected: [FaceContourType: Int] = [
            .face: 36, .leftEyebrowTop: 5, .leftEyebrowBottom: 5, .rightEyebrowTop: 5, .rightEyebrowBottom: 5,
            .leftEye: 16, .rightEye: 16, .upperLipTop: 11, .upperLipBottom: 9, .lowerLipTop: 9, .lowerLipBottom: 9,
            .noseBridge: 2, .noseBottom: 3, .leftCheek: 1, .rightCheek: 1,
        ]
        #expect(FaceContourType.allCases.count == 15)
        #expect(FaceLandmarkType.allCases.count == 10)
        for type in FaceContourType.allCases {
            #expect(type.meshIndices.count == expected[type])
            #expect(type.pointCount == expected[type])
            #expect(Set(type.meshIndices).count == type.meshIndices.count, "\(type) repeats a vertex")
        }
        for index in FaceContourType.allCases.flatMap(\.meshIndices) + FaceLandmarkType.allCases.flatMap(\.meshIndices) {
            #expect(index >= 0 && index < 468)
        }
    }

    /// Every left table is its right table mirrored, point by point, so left and right are
    /// consistent; the subject's left has x > 0 in the canonical face (e.g. 263, the left eye's
    /// outer corner, lies on the image's right in every golden face, see AnalyzerTests).
    @Test func leftAndRightMirrorEachOther() {
        let pairs: [(FaceContourType, FaceContourType)] = [
            (.leftEyebrowTop, .rightEyebrowTop), (.leftEyebrowBottom, .rightEyebrowBottom),
            (.leftEye, .rightEye), (.leftCheek, .rightCheek),
        ]
        for (left, right) in pairs {
            #expect(left.meshIndices.map(mirror) == right.meshIndices.map { Optional($0) }, "\(left) vs \(right)")
            #expect(left.meshIndices.allSatisfy { metadata.positions[$0].x > 0 })
        }
        let landmarkPairs: [(FaceLandmarkType, FaceLandmarkType)] = [
            (.leftEye, .rightEye), (.leftEar, .rightEar), (.leftCheek, .rightCheek), (.mouthLeft, .mouthRight),
        ]
        for (left, right) in landmarkPairs {
            #expect(left.meshIndices.map(mirror) == right.meshIndices.map { Optional($0) }, "\(left) vs \(right)")
        }
        // Middle contours run from the subject's right to left: reversed, they are their own mirror.
        for type in [FaceContourType.upperLipTop, .upperLipBottom, .lowerLipTop, .lowerLipBottom, .noseBottom] {
            #expect(type.meshIndices.map(mirror) == type.meshIndices.reversed().map { Optional($0) }, "\(type)")
            #expect(metadata.positions[type.meshIndices[0]].x < 0)
        }
        // The face oval starts on the midline and runs clockwise (first toward the subject's left).
        let oval = FaceContourType.face.meshIndices
        #expect((0..<36).allSatisfy { mirror(oval[$0]) == oval[(36 - $0) % 36] })
        #expect(metadata.positions[oval[1]].x > 0)
        for i in FaceContourType.noseBridge.meshIndices + FaceLandmarkType.noseBase.meshIndices + FaceLandmarkType.mouthBottom.meshIndices {
            #expect(metadata.positions[i].x == 0)
        }
    }

    /// Consecutive points of the polyline contours are edges of MediaPipe's mesh (its
    /// triangles), as in FaceLandmarksConnections; eyes and the face oval close on themselves.
    @Test func contoursFollowMeshEdges() {
        var edges = Set<[Int]>()
        for t in metadata.triangles {
            let v = [Int(t.x), Int(t.y), Int(t.z)]
            for (a, b) in [(0, 1), (1, 2), (2, 0)] { edges.insert([min(v[a], v[b]), max(v[a], v[b])]) }
        }
        let closed: Set<FaceContourType> = [.face, .leftEye, .rightEye]
        for type in FaceContourType.allCases where ![.noseBridge, .noseBottom, .leftCheek, .rightCheek].contains(type) {
            var ids = type.meshIndices
            if closed.contains(type) { ids.append(ids[0]) }
            for (a, b) in zip(ids, ids.dropFirst()) {
                #expect(edges.contains([min(a, b), max(a, b)]), "\(type): \(a)-\(b) is not a mesh edge")
            }
        }
    }
}
