@testable import GeometryEstimation
import TestSupport
import Testing

/// The 3x3 SVD and the weighted Procrustes solver on problems with known answers.
@Suite struct SolverTests {
    /// Doubles in [-1, 1) from the shared seeded generator, so the cases are the same on every run.
    struct Generator {
        var base: SeededGenerator
        init(state: UInt64) { base = SeededGenerator(seed: state) }
        mutating func next() -> Double { Double(base.next() >> 11) / Double(1 << 53) * 2 - 1 }
        mutating func matrix() -> Matrix3 { Matrix3((0..<9).map { _ in next() }) }
        mutating func vector() -> SIMD3<Double> { SIMD3(next(), next(), next()) }
    }

    func maxDifference(_ a: Matrix3, _ b: Matrix3) -> Double { zip(a.m, b.m).map { abs($0 - $1) }.max() ?? .infinity }

    func expectOrthogonal(_ q: Matrix3) {
        #expect(maxDifference(q.transposed * q, .identity) < 1e-12)
    }

    func reconstruct(_ svd: SingularValueDecomposition3) -> Matrix3 {
        var sigma = Matrix3.zero
        for i in 0..<3 { sigma[i, i] = svd.singularValues[i] }
        return svd.u * sigma * svd.v.transposed
    }

    @Test func svdReconstructsRandomMatrices() {
        var g = Generator(state: 1)
        for _ in 0..<200 {
            let a = g.matrix()
            let svd = SingularValueDecomposition3(a)
            expectOrthogonal(svd.u)
            expectOrthogonal(svd.v)
            #expect(svd.singularValues.x >= svd.singularValues.y && svd.singularValues.y >= svd.singularValues.z)
            #expect(svd.singularValues.z >= 0)
            #expect(maxDifference(reconstruct(svd), a) < 1e-12)
        }
    }

    @Test func svdHandlesRankDeficientMatrices() {
        var g = Generator(state: 2)
        let a = g.vector(), b = g.vector(), c = g.vector()
        for m in [Matrix3.outer(a, b), Matrix3.outer(a, b) + Matrix3.outer(c, a), Matrix3.zero,
                  Matrix3([1, 0, 0, 0, 0, 0, 0, 0, 0]), Matrix3([0, 0, 0, 0, 2, 0, 0, 0, 0])] {
            let svd = SingularValueDecomposition3(m)
            expectOrthogonal(svd.u)
            expectOrthogonal(svd.v)
            #expect(maxDifference(reconstruct(svd), m) < 1e-12)
        }
    }

    /// A rotation from a unit quaternion.
    func rotation(_ g: inout Generator) -> Matrix3 {
        var q = SIMD4(g.next(), g.next(), g.next(), g.next())
        q /= (q * q).sum().squareRoot()
        let (w, x, y, z) = (q.x, q.y, q.z, q.w)
        return Matrix3([1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y),
                        2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                        2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)])
    }

    @Test func procrustesRecoversAKnownSimilarity() throws {
        var g = Generator(state: 3)
        for _ in 0..<50 {
            let source = (0..<40).map { _ in 5 * g.vector() }
            let weights = (0..<40).map { i in i % 3 == 0 ? Float(0) : Float(g.next() + 1.5) }
            let r = rotation(&g), s = 2 + g.next(), t = 30 * g.vector()
            let target = source.map { s * (r * $0) + t }
            let solver = try ProcrustesSolver(weights: weights)
            let (sr, translation) = try solver.solve(source: source, target: target)
            #expect(maxDifference(sr, Matrix3(r.m.map { $0 * s })) < 1e-9)
            let d = translation - t
            #expect(max(abs(d.x), abs(d.y), abs(d.z)) < 1e-9)
        }
    }

    /// A mirrored target: the solver still returns a proper rotation (det +1), as MediaPipe's
    /// sign flip of U's last column guarantees.
    @Test func procrustesNeverReflects() throws {
        var g = Generator(state: 4)
        let source = (0..<20).map { _ in g.vector() }
        let target = source.map { SIMD3(-$0.x, $0.y, $0.z) }
        let (sr, _) = try ProcrustesSolver(weights: [Float](repeating: 1, count: 20)).solve(source: source, target: target)
        let scale = dot(sr.column(0), sr.column(0)).squareRoot()
        #expect(abs(Matrix3(sr.m.map { $0 / scale }).determinant - 1) < 1e-12)
    }

    @Test func procrustesRefusesDegenerateProblems() throws {
        #expect(throws: GeometryError.self) { try ProcrustesSolver(weights: [0, 0, 0]) }
        let solver = try ProcrustesSolver(weights: [1, 1, 1])
        let point = SIMD3<Double>(1, 2, 3)
        // All source points equal: nothing to rotate, the design matrix is zero.
        #expect(throws: GeometryError.self) { try solver.solve(source: [point, point, point], target: [point, 2 * point, 3 * point]) }
        // A target collapsed to one point: zero design matrix as well.
        #expect(throws: GeometryError.self) { try solver.solve(source: [point, 2 * point, -point], target: [point, point, point]) }
    }
}
