@testable import GeometryEstimation
import LandmarkerGoldens
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

    /// Arbitrary landmark clouds (seeded): each gives a finite matrix, nil (too compact) or a
    /// GeometryError, never a trap; flat and collinear clouds included.
    @Test func arbitraryLandmarksNeverTrap() throws {
        var state: UInt64 = 7
        func next() -> Float {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Float(state >> 40) / Float(1 << 24)
        }
        var clouds: [[SIMD3<Float>]] = (0..<40).map { _ in (0..<478).map { _ in SIMD3(next(), next(), next() - 0.5) } }
        clouds.append((0..<478).map { _ in SIMD3(next(), next(), 0) })                    // flat
        clouds.append((0..<478).map { i in SIMD3(Float(i) / 478, Float(i) / 478, 0) })      // collinear
        clouds.append([SIMD3<Float>](repeating: SIMD3(0.5, 0.5, 0), count: 478))          // one point
        clouds.append((0..<478).map { _ in SIMD3(next() * 1e6, -next() * 1e6, next() * 1e6) })
        for cloud in clouds {
            // Typed throws: whatever is thrown is a GeometryError by construction.
            let result = Result { () throws(GeometryError) -> FaceGeometry? in
                try pipeline.estimate(landmarks: cloud, imageWidth: 640, imageHeight: 480)
            }
            if case .success(let geometry?) = result {
                #expect(geometry.transformationMatrix.entries.allSatisfy { $0.isFinite })
            }
        }
        // The single-point cloud is skipped as too compact; random clouds still solve.
        #expect(try pipeline.estimate(landmarks: clouds[42], imageWidth: 640, imageHeight: 480) == nil)
        #expect(try pipeline.estimate(landmarks: clouds[0], imageWidth: 640, imageHeight: 480) != nil)
    }
}
