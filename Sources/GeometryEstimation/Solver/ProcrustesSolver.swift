/// The weighted orthogonal Procrustes problem, as MediaPipe's procrustes_solver.cc poses it:
/// find scale s, rotation R (det +1) and translation t minimising Σ wᵢ ‖s R srcᵢ + t − dstᵢ‖².
///
/// Closed form (Akca 2003, §2.4): with the weighted centroid c = Σ wᵢ srcᵢ / Σ wᵢ, R is the
/// orthogonal factor of the design matrix Σ wᵢ dstᵢ (srcᵢ − c)ᵀ (its SVD, reflection removed by
/// flipping U's last column), s = Σ wᵢ (R(srcᵢ − c))·dstᵢ / Σ wᵢ (srcᵢ − c)·srcᵢ and
/// t = Σ wᵢ (dstᵢ − s R srcᵢ) / Σ wᵢ. Sums run in double precision (MediaPipe's in float).
struct ProcrustesSolver: Sendable {
    /// MediaPipe's kAbsoluteErrorEps: the smallest total weight, design norm, denominator and scale.
    static let epsilon = 1e-9

    /// The points with a positive weight (the others add exactly nothing) and their weights.
    let basis: [Int]
    let weights: [Double]
    let totalWeight: Double

    init(weights: [Float]) throws(GeometryError) {
        basis = weights.indices.filter { weights[$0] > 0 }
        self.weights = basis.map { Double(weights[$0]) }
        totalWeight = self.weights.reduce(0, +)
        guard totalWeight > Self.epsilon else { throw .degenerateProblem("the total point weight \(totalWeight) is too small") }
    }

    /// The 4x4 transform (upper 3x3 = s R, last column t) taking `source` points onto `target` points.
    func solve(source: [SIMD3<Double>], target: [SIMD3<Double>]) throws(GeometryError) -> (scaledRotation: Matrix3, translation: SIMD3<Double>) {
        var center = SIMD3<Double>.zero
        for (k, i) in basis.enumerated() { center += weights[k] * source[i] }
        center /= totalWeight

        var design = Matrix3.zero
        for (k, i) in basis.enumerated() { design = design + Matrix3.outer(weights[k] * target[i], source[i] - center) }
        guard design.norm > Self.epsilon else { throw .degenerateProblem("the design matrix norm \(design.norm) is too small") }

        let svd = SingularValueDecomposition3(design)
        var u = svd.u
        if u.determinant * svd.v.determinant < 0 { u.setColumn(2, -u.column(2)) }
        let rotation = u * svd.v.transposed

        var numerator = 0.0, denominator = 0.0
        for (k, i) in basis.enumerated() {
            let centered = source[i] - center
            numerator += weights[k] * dot(rotation * centered, target[i])
            denominator += weights[k] * dot(centered, source[i])
        }
        guard denominator > Self.epsilon else { throw .degenerateProblem("the scale denominator \(denominator) is too small") }
        let scale = numerator / denominator
        guard scale > Self.epsilon else { throw .degenerateProblem("the scale \(scale) is too small") }

        let scaled = Matrix3(rotation.m.map { $0 * scale })
        var translation = SIMD3<Double>.zero
        for (k, i) in basis.enumerated() { translation += weights[k] * (target[i] - scaled * source[i]) }
        return (scaled, translation / totalWeight)
    }
}
