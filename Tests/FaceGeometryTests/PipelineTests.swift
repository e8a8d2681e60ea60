@testable import FaceGeometry
import Testing

/// The geometry pipeline's input checks and MediaPipe's special cases.
@Suite struct PipelineTests {
    let pipeline: GeometryPipeline
    let landmarks: [SIMD3<Float>]
    init() throws {
        pipeline = try GeometryPipeline(metadata: try GeometryMetadata(contentsOf: LandmarkerGoldens.geometryWeights))
        landmarks = try LandmarkerGoldens.load("astronaut").faces[0].landmarks
    }

    @Test func refusesBadInput() {
        #expect(throws: GeometryError.self) { try pipeline.estimate(landmarks: Array(landmarks.prefix(467)), imageWidth: 512, imageHeight: 512) }
        #expect(throws: GeometryError.self) { try pipeline.estimate(landmarks: landmarks, imageWidth: 0, imageHeight: 512) }
        var bad = landmarks
        bad[5].z = .nan
        #expect(throws: GeometryError.self) { try pipeline.estimate(landmarks: bad, imageWidth: 512, imageHeight: 512) }
    }

    /// Only the first 468 points are used: the 10 iris points change nothing.
    @Test func ignoresTheIrisPoints() throws {
        var moved = landmarks
        for i in 468..<478 { moved[i] += SIMD3(0.3, -0.2, 0.1) }
        let a = try pipeline.estimate(landmarks: landmarks, imageWidth: 512, imageHeight: 512)
        let b = try pipeline.estimate(landmarks: moved, imageWidth: 512, imageHeight: 512)
        #expect(a != nil && a == b)
    }

    /// MediaPipe skips a face whose landmarks all lie within 1e-3 of their mean.
    @Test func skipsTooCompactLandmarks() throws {
        let compact = landmarks.map { SIMD3(0.5 + ($0.x - 0.5) * 1e-3, 0.5 + ($0.y - 0.5) * 1e-3, $0.z) }
        #expect(try pipeline.estimate(landmarks: compact, imageWidth: 512, imageHeight: 512) == nil)
    }

    @Test func validatesTheEnvironment() {
        #expect(throws: GeometryError.self) { try GeometryEnvironment(originPointLocation: .topLeftCorner, verticalFieldOfViewDegrees: 180, near: 1, far: 10) }
        #expect(throws: GeometryError.self) { try GeometryEnvironment(originPointLocation: .topLeftCorner, verticalFieldOfViewDegrees: 63, near: 0, far: 10) }
        #expect(throws: GeometryError.self) { try GeometryEnvironment(originPointLocation: .topLeftCorner, verticalFieldOfViewDegrees: 63, near: 2, far: 1) }
        #expect(throws: GeometryError.self) { try GeometryEnvironment(originPointLocation: .topLeftCorner, verticalFieldOfViewDegrees: .nan, near: 1, far: 10) }
    }
}
