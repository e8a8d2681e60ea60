/// The singular value decomposition A = U diag(σ) Vᵀ of a 3x3 matrix, σ sorted from largest to
/// smallest as Eigen's JacobiSVD gives them (procrustes_solver.cc relies on that order).
///
/// One-sided Jacobi (Hestenes): plane rotations applied to A's columns until they are mutually
/// orthogonal; V accumulates the rotations, the column norms are σ and the normalised columns U.
/// Columns whose σ vanishes are completed to an orthonormal, right-handed-or-not basis, so U and
/// V are always orthogonal, even for rank-deficient input.
struct SingularValueDecomposition3 {
    var u: Matrix3
    var singularValues: SIMD3<Double>
    var v: Matrix3

    init(_ a: Matrix3) {
        var w = a
        var v = Matrix3.identity
        let pairs = [(0, 1), (0, 2), (1, 2)]
        for _ in 0..<60 {
            var rotated = false
            for (p, q) in pairs {
                let cp = w.column(p), cq = w.column(q)
                let alpha = dot(cp, cp), beta = dot(cq, cq), gamma = dot(cp, cq)
                guard gamma != 0, abs(gamma) > 1e-15 * (alpha * beta).squareRoot() else { continue }
                rotated = true
                let zeta = (beta - alpha) / (2 * gamma)
                let t = (zeta >= 0 ? 1.0 : -1.0) / (abs(zeta) + (1 + zeta * zeta).squareRoot())
                let c = 1 / (1 + t * t).squareRoot(), s = c * t
                w.setColumn(p, c * cp - s * cq)
                w.setColumn(q, s * cp + c * cq)
                let vp = v.column(p), vq = v.column(q)
                v.setColumn(p, c * vp - s * vq)
                v.setColumn(q, s * vp + c * vq)
            }
            if !rotated { break }
        }
        var sigma = (0..<3).map { w.column($0) }.map { dot($0, $0).squareRoot() }
        // Sort descending, permuting the columns of W and V alike.
        let order = [0, 1, 2].sorted { sigma[$0] > sigma[$1] }
        var sortedW = Matrix3.zero, sortedV = Matrix3.zero
        for (to, from) in order.enumerated() {
            sortedW.setColumn(to, w.column(from))
            sortedV.setColumn(to, v.column(from))
        }
        sigma = order.map { sigma[$0] }
        // Normalise U's columns; complete the ones whose singular value is (numerically) zero.
        let tiny = max(sigma[0], 1e-300) * 1e-13
        var u = Matrix3.zero
        var filled = 0
        for j in 0..<3 where sigma[j] > tiny {
            u.setColumn(j, sortedW.column(j) / sigma[j])
            filled += 1
        }
        if filled == 0 { u = .identity }
        if filled == 1 {
            let u0 = u.column(0)
            // Any unit vector orthogonal to u0: cross with the axis least aligned with it.
            let axis: SIMD3<Double> = abs(u0.x) <= abs(u0.y) && abs(u0.x) <= abs(u0.z) ? SIMD3(1, 0, 0)
                : abs(u0.y) <= abs(u0.z) ? SIMD3(0, 1, 0) : SIMD3(0, 0, 1)
            let u1 = cross(u0, axis)
            u.setColumn(1, u1 / dot(u1, u1).squareRoot())
            filled = 2
        }
        if filled == 2 { u.setColumn(2, cross(u.column(0), u.column(1))) }
        self.u = u
        self.singularValues = SIMD3(sigma[0], sigma[1], sigma[2])
        self.v = sortedV
    }
}
