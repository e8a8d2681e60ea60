import GeometryEstimation
import VisionTasks

/// Builds the ML Kit view of a face from MediaPipe FaceLandmarker outputs (the mesh, the
/// blendshapes, the image size), computing only what the options ask for.
public struct FaceAnalyzer: Sendable {
    /// What to compute (validated at init).
    public let options: FaceAnalyzerOptions
    /// The pose solver behind the head Euler angles and the matrix.
    public let geometry: GeometryPipeline

    /// An analyzer for these options and this canonical face (Weights/face_geometry.bin).
    public init(options: FaceAnalyzerOptions, geometry: GeometryPipeline) throws(VisionTaskError) {
        try options.validate()
        guard geometry.metadata.vertexCount <= 478, geometry.metadata.vertexCount >= 468 else {
            throw .cannotAnalyse("the canonical face has \(geometry.metadata.vertexCount) vertices, not MediaPipe's 468")
        }
        (self.options, self.geometry) = (options, geometry)
    }

    /// The face's width as a fraction of the image width: the x extent of its face-oval points
    /// (those present; 0 for a list too short to hold any).
    public static func faceWidth(landmarks: [SIMD3<Float>]) -> Float {
        let xs = FaceContourType.face.meshIndices.filter { $0 < landmarks.count }.map { landmarks[$0].x }
        return (xs.max() ?? 0) - (xs.min() ?? 0)
    }

    /// The analysis of one face, or nil when it is narrower than `minFaceSize`.
    /// - Parameters:
    ///   - landmarks: MediaPipe's mesh, at least 468 points (478 with the irises); x and y
    ///     normalized to the image, z as NormalizedLandmark.z.
    ///   - blendshapes: the 52 named scores, needed for classification and the mesh output.
    ///   - imageWidth: the image's width in pixels (the points and angles are in its pixels).
    ///   - imageHeight: the image's height in pixels.
    public func analyze(landmarks: [SIMD3<Float>], blendshapes: [(name: String, score: Float)]?,
                        imageWidth: Int, imageHeight: Int) throws(VisionTaskError) -> FaceAnalysis? {
        guard landmarks.count >= 468 else { throw .cannotAnalyse("\(landmarks.count) landmarks, MediaPipe's mesh has 478") }
        guard landmarks.allSatisfy({ $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }) else {
            throw .cannotAnalyse("a landmark is not finite")
        }
        guard imageWidth > 0, imageHeight > 0 else { throw .cannotAnalyse("image size \(imageWidth)x\(imageHeight)") }
        guard options.accepts(faceWidth: Self.faceWidth(landmarks: landmarks)) else { return nil }

        var result = FaceAnalysis()
        func point(_ indices: [Int]) -> SIMD2<Float> {
            indices.reduce(SIMD2<Float>.zero) { $0 + SIMD2(landmarks[$1].x, landmarks[$1].y) } / Float(indices.count)
        }
        if options.landmarkMode == .all {
            result.landmarks = FaceLandmarkType.allCases.map { FaceLandmark(type: $0, position: point($0.meshIndices)) }
        }
        if options.contourMode == .all {
            result.contours = FaceContourType.allCases.map { type in
                FaceContour(type: type, points: type.meshIndices.map { point([$0]) })
            }
        }
        let geometryResult: FaceGeometry?
        do { geometryResult = try geometry.estimate(landmarks: landmarks, imageWidth: imageWidth, imageHeight: imageHeight) } catch {
            throw .cannotAnalyse(error.description)
        }
        result.headEulerAngles = geometryResult.map { HeadEulerAngles(transformationMatrix: $0.transformationMatrix) }
        if options.needsBlendshapes {
            guard let blendshapes else { throw .missingBlendshape(FaceClassification.blendshapeNames[0]) }
            if options.classificationMode == .all { result.classification = try FaceClassification(blendshapes: blendshapes) }
            if options.meshMode == .all {
                result.mesh = landmarks
                result.blendshapes = blendshapes
                result.transformationMatrix = geometryResult?.transformationMatrix
            }
        }
        return result
    }
}
