/// A 3x3 perspective transform in double precision, row-major, computed exactly as OpenCV
/// computes it (`getPerspectiveTransform` by LU, then the 3x3 inverse `warpPerspective`
/// takes), so that the sample positions round to the same 1/32 pixel.
struct PerspectiveTransform: Equatable {
    /// Row-major 3x3 in the first nine lanes.
    var m: SIMD16<Double>

    /// The transform that maps each `source` point to the matching `destination` point
    /// (OpenCV imgwarp.cpp `getPerspectiveTransform`, DECOMP_LU). Points as x0, y0, ... x3, y3.
    static func mapping(_ source: SIMD8<Float>, to destination: SIMD8<Float>) -> PerspectiveTransform? {
        // The 8x8 system and its right-hand side, on the stack.
        withUnsafeTemporaryAllocation(of: Double.self, capacity: 72) { buffer -> PerspectiveTransform? in
            let a = buffer.baseAddress!, b = a + 64
            buffer.initialize(repeating: 0)
            for i in 0..<4 {
                let s = (x: source[2 * i], y: source[2 * i + 1]), d = (x: destination[2 * i], y: destination[2 * i + 1])
                a[i * 8 + 0] = Double(s.x); a[(i + 4) * 8 + 3] = Double(s.x)
                a[i * 8 + 1] = Double(s.y); a[(i + 4) * 8 + 4] = Double(s.y)
                a[i * 8 + 2] = 1; a[(i + 4) * 8 + 5] = 1
                a[i * 8 + 6] = Double(-s.x * d.x)
                a[i * 8 + 7] = Double(-s.y * d.x)
                a[(i + 4) * 8 + 6] = Double(-s.x * d.y)
                a[(i + 4) * 8 + 7] = Double(-s.y * d.y)
                b[i] = Double(d.x)
                b[i + 4] = Double(d.y)
            }
            guard luSolve(a, b, n: 8) else { return nil }
            var m = SIMD16<Double>()
            for i in 0..<8 { m[i] = b[i] }
            m[8] = 1
            return PerspectiveTransform(m: m)
        }
    }

    /// Gaussian elimination with partial pivoting, OpenCV 4.x's `LUImpl` step for step
    /// (matrix_decomp.cpp: elimination multiplies by -1/pivot, back substitution divides by
    /// the pivot; older OpenCV multiplied by a stored reciprocal, which moves the last bit).
    private static func luSolve(_ a: UnsafeMutablePointer<Double>, _ b: UnsafeMutablePointer<Double>, n: Int) -> Bool {
        let eps = Double.ulpOfOne * 10
        for i in 0..<n {
            var k = i
            for j in (i + 1)..<n where abs(a[j * n + i]) > abs(a[k * n + i]) { k = j }
            if abs(a[k * n + i]) < eps { return false }
            if k != i {
                for j in i..<n { swap(&a[i * n + j], &a[k * n + j]) }
                swap(&b[i], &b[k])
            }
            let d = -1 / a[i * n + i]
            for j in (i + 1)..<n {
                let alpha = a[j * n + i] * d
                for c in (i + 1)..<n { a[j * n + c] += alpha * a[i * n + c] }
                b[j] += alpha * b[i]
            }
        }
        for i in stride(from: n - 1, through: 0, by: -1) {
            var s = b[i]
            for c in (i + 1)..<n { s -= a[i * n + c] * b[c] }
            b[i] = s / a[i * n + i]
        }
        return true
    }

    /// The inverse by cofactors, as OpenCV's `invert` does for a 3x3 double matrix.
    func inverted() -> PerspectiveTransform? {
        func s(_ r: Int, _ c: Int) -> Double { m[r * 3 + c] }
        let det = s(0, 0) * (s(1, 1) * s(2, 2) - s(1, 2) * s(2, 1))
            - s(0, 1) * (s(1, 0) * s(2, 2) - s(1, 2) * s(2, 0))
            + s(0, 2) * (s(1, 0) * s(2, 1) - s(1, 1) * s(2, 0))
        guard det != 0 else { return nil }
        let d = 1 / det
        return PerspectiveTransform(m: SIMD16(
            (s(1, 1) * s(2, 2) - s(1, 2) * s(2, 1)) * d,
            (s(0, 2) * s(2, 1) - s(0, 1) * s(2, 2)) * d,
            (s(0, 1) * s(1, 2) - s(0, 2) * s(1, 1)) * d,
            (s(1, 2) * s(2, 0) - s(1, 0) * s(2, 2)) * d,
            (s(0, 0) * s(2, 2) - s(0, 2) * s(2, 0)) * d,
            (s(0, 2) * s(1, 0) - s(0, 0) * s(1, 2)) * d,
            (s(1, 0) * s(2, 1) - s(1, 1) * s(2, 0)) * d,
            (s(0, 1) * s(2, 0) - s(0, 0) * s(2, 1)) * d,
            (s(0, 0) * s(1, 1) - s(0, 1) * s(1, 0)) * d,
            0, 0, 0, 0, 0, 0, 0))
    }
}
