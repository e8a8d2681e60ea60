/// A 3x3 matrix of doubles, row-major: the small linear algebra the Procrustes solver needs.
struct Matrix3: Equatable {
    var m: [Double]   // 9 values, row-major

    init(_ rowMajor: [Double]) { m = rowMajor }
    static let identity = Matrix3([1, 0, 0, 0, 1, 0, 0, 0, 1])
    static let zero = Matrix3([Double](repeating: 0, count: 9))

    subscript(row: Int, column: Int) -> Double {
        get { m[3 * row + column] }
        set { m[3 * row + column] = newValue }
    }

    func column(_ j: Int) -> SIMD3<Double> { SIMD3(m[j], m[3 + j], m[6 + j]) }

    mutating func setColumn(_ j: Int, _ v: SIMD3<Double>) { (m[j], m[3 + j], m[6 + j]) = (v.x, v.y, v.z) }

    var transposed: Matrix3 { Matrix3([m[0], m[3], m[6], m[1], m[4], m[7], m[2], m[5], m[8]]) }

    var determinant: Double {
        m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6]) + m[2] * (m[3] * m[7] - m[4] * m[6])
    }

    /// The Frobenius norm (Eigen's `norm()` of a matrix).
    var norm: Double { m.reduce(0) { $0 + $1 * $1 }.squareRoot() }

    static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        var r = Matrix3.zero
        for i in 0..<3 { for j in 0..<3 { r[i, j] = a[i, 0] * b[0, j] + a[i, 1] * b[1, j] + a[i, 2] * b[2, j] } }
        return r
    }

    static func * (a: Matrix3, v: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(a[0, 0] * v.x + a[0, 1] * v.y + a[0, 2] * v.z,
              a[1, 0] * v.x + a[1, 1] * v.y + a[1, 2] * v.z,
              a[2, 0] * v.x + a[2, 1] * v.y + a[2, 2] * v.z)
    }

    /// The outer product a bᵀ.
    static func outer(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Matrix3 {
        Matrix3([a.x * b.x, a.x * b.y, a.x * b.z, a.y * b.x, a.y * b.y, a.y * b.z, a.z * b.x, a.z * b.y, a.z * b.z])
    }

    static func + (a: Matrix3, b: Matrix3) -> Matrix3 { Matrix3(zip(a.m, b.m).map { $0 + $1 }) }
}

func dot(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double { (a * b).sum() }

func cross(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
    SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
}
