import Foundation

/// Estimates each face's pose from its screen landmarks, as MediaPipe's geometry pipeline
/// (modules/face_geometry/libs/geometry_pipeline.cc, run by geometry_pipeline_calculator.cc in
/// the Tasks FaceLandmarker): unproject the landmarks into the camera's metric space with a
/// scale found by two Procrustes passes, then solve the canonical mesh → metric landmarks pose.
public struct GeometryPipeline: Sendable {
    /// The canonical face the pose is solved against.
    public let metadata: GeometryMetadata
    /// The virtual camera the pose is expressed in.
    public let environment: GeometryEnvironment
    let solver: ProcrustesSolver
    let canonical: [SIMD3<Double>]

    /// Prepares the pipeline for one canonical model and environment.
    public init(metadata: GeometryMetadata, environment: GeometryEnvironment = .faceLandmarkerDefault) throws(GeometryError) {
        self.metadata = metadata
        self.environment = environment
        solver = try ProcrustesSolver(weights: metadata.weights)
        canonical = metadata.positions.map { SIMD3<Double>($0) }
    }

    /// The geometry of one face from its landmarks (x, y normalized to the image, z as
    /// MediaPipe's NormalizedLandmark.z; the first `metadata.vertexCount`, 468, are used, so the
    /// 478-point mesh with irises works as is). Returns nil, as MediaPipe skips the face, when
    /// the landmarks are too compact to solve (all within 1e-3 of their mean).
    public func estimate(landmarks: [SIMD3<Float>], imageWidth: Int, imageHeight: Int) throws(GeometryError) -> FaceGeometry? {
        guard imageWidth > 0, imageHeight > 0 else {
            throw .invalidEnvironment("frame size \(imageWidth)x\(imageHeight) must be positive")
        }
        let count = metadata.vertexCount
        guard landmarks.count >= count else {
            throw .invalidLandmarks("\(landmarks.count) landmarks, the canonical mesh needs \(count)")
        }
        let screen = Array(landmarks.prefix(count))
        guard screen.allSatisfy({ $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }) else {
            throw .invalidLandmarks("a landmark is not finite")
        }
        if Self.isTooCompact(screen) { return nil }

        let frustum = Frustum(environment, width: imageWidth, height: imageHeight)
        // (1) x and y onto the near plane; z scaled as x (weak perspective).
        let projected = screen.map { frustum.project($0, origin: environment.originPointLocation) }
        let depthOffset = projected.reduce(0.0) { $0 + Double($1.z) } / Double(count)

        // (2) A first scale from the projected points, handedness flipped (screen is left-handed).
        let firstScale = try scale(of: projected.map { flipped(SIMD3<Double>($0)) })
        // (3)-(4) Unproject with it, and refine the scale on those intermediate points.
        var intermediate = projected.map { unproject($0, frustum: frustum, depthOffset: depthOffset, scale: firstScale) }
        if metadata.inputSource == .faceDetectionPipeline { intermediate = try canonicalDepths(intermediate) }
        let secondScale = try scale(of: intermediate)
        // (5) Unproject with the total scale: the metric landmarks; solve the pose on them.
        var metric = projected.map { unproject($0, frustum: frustum, depthOffset: depthOffset, scale: firstScale * secondScale) }
        var (scaledRotation, translation) = try solver.solve(source: canonical, target: metric)
        if metadata.inputSource == .faceDetectionPipeline {
            // Detection keypoints carry no depth: take it from the posed canonical mesh, solve again.
            metric = depths(metric, scaledRotation, translation)
            (scaledRotation, translation) = try solver.solve(source: canonical, target: metric)
        }

        var entries = [Float](repeating: 0, count: 16)
        for r in 0..<3 {
            for c in 0..<3 { entries[4 * r + c] = Float(scaledRotation[r, c]) }
            entries[4 * r + 3] = Float(translation[r])
        }
        entries[15] = 1
        // (6) The metric landmarks in the canonical frame: the inverse pose applied to each.
        let s2 = dot(scaledRotation.column(0), scaledRotation.column(0))
        let inverse = Matrix3(scaledRotation.transposed.m.map { $0 / s2 })   // (sR)⁻¹ = Rᵀ / s
        let aligned = metric.map { SIMD3<Float>(inverse * ($0 - translation)) }
        return FaceGeometry(transformationMatrix: TransformMatrix(checked: entries), metricLandmarks: aligned)
    }

    /// For detection input: each point's z replaced by the z of the canonical mesh posed onto the points.
    private func canonicalDepths(_ points: [SIMD3<Double>]) throws(GeometryError) -> [SIMD3<Double>] {
        let (scaledRotation, translation) = try solver.solve(source: canonical, target: points)
        return depths(points, scaledRotation, translation)
    }

    private func depths(_ points: [SIMD3<Double>], _ scaledRotation: Matrix3, _ translation: SIMD3<Double>) -> [SIMD3<Double>] {
        zip(points, canonical).map { p, c in SIMD3(p.x, p.y, (scaledRotation * c + translation).z) }
    }

    /// The canonical → points scale: the norm of the solved transform's first column (EstimateScale).
    private func scale(of points: [SIMD3<Double>]) throws(GeometryError) -> Double {
        let (scaledRotation, _) = try solver.solve(source: canonical, target: points)
        return dot(scaledRotation.column(0), scaledRotation.column(0)).squareRoot()
    }

    /// MoveAndRescaleZ, UnprojectXY and ChangeHandedness of one projected landmark.
    private func unproject(_ p: SIMD3<Float>, frustum: Frustum, depthOffset: Double, scale: Double) -> SIMD3<Double> {
        let z = (Double(p.z) - depthOffset + Double(frustum.near)) / scale
        return SIMD3(Double(p.x) * z / Double(frustum.near), Double(p.y) * z / Double(frustum.near), -z)
    }

    private func flipped(_ p: SIMD3<Double>) -> SIMD3<Double> { SIMD3(p.x, p.y, -p.z) }

    /// IsScreenLandmarkListTooCompact: every landmark within 1e-3 of the running mean (x, y).
    static func isTooCompact(_ landmarks: [SIMD3<Float>]) -> Bool {
        var meanX: Float = 0, meanY: Float = 0
        for (i, p) in landmarks.enumerated() {
            meanX += (p.x - meanX) / Float(i + 1)
            meanY += (p.y - meanY) / Float(i + 1)
        }
        var maxSquared: Float = 0
        for p in landmarks {
            let dx = p.x - meanX, dy = p.y - meanY
            maxSquared = max(maxSquared, dx * dx + dy * dy)
        }
        return maxSquared.squareRoot() <= 1e-3
    }
}

/// The perspective camera's frustum at the near plane for one frame size (PerspectiveCameraFrustum), in float as MediaPipe.
struct Frustum {
    let left: Float, right: Float, bottom: Float, top: Float, near: Float

    init(_ environment: GeometryEnvironment, width: Int, height: Int) {
        let degreesToRadians = Float.pi / 180
        let heightAtNear = 2 * environment.near * tanf(0.5 * degreesToRadians * environment.verticalFieldOfViewDegrees)
        let widthAtNear = Float(width) * heightAtNear / Float(height)
        (left, right, bottom, top, near) = (-0.5 * widthAtNear, 0.5 * widthAtNear, -0.5 * heightAtNear, 0.5 * heightAtNear, environment.near)
    }

    /// ProjectXY: a normalized landmark onto the near plane (y flipped for a top-left origin; z scaled as x).
    func project(_ p: SIMD3<Float>, origin: GeometryEnvironment.OriginPointLocation) -> SIMD3<Float> {
        let y = origin == .topLeftCorner ? 1 - p.y : p.y
        let xScale = right - left, yScale = top - bottom
        return SIMD3(p.x * xScale + left, y * yScale + bottom, p.z * xScale)
    }
}
