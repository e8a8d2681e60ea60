@testable import BlazeTensor
import TestSupport
import Testing

/// The inverted residual block fused (expand 1x1, depthwise 3x3, project 1x1) against the
/// three operators run apart: bit-identical, whole or split into any unit ranges (threads).
@Suite struct ExpandDepthwisePointwiseTests {
    static let cases: [(h: Int, w: Int, c: Int, expand: Int, out: Int, stride: Int, residual: Bool)] = [
        (24, 40, 24, 144, 24, 1, true), (24, 40, 24, 144, 32, 2, false),   // CenterFace's shapes, smaller
        (7, 9, 16, 96, 24, 2, false), (5, 13, 8, 20, 8, 1, true), (64, 8, 4, 24, 6, 1, false), (3, 3, 3, 17, 5, 2, false),
        // Rows of 69 KB expanded: bands of two rows, the rows two bands share kept in the scratch's ring.
        (11, 120, 24, 144, 24, 1, true), (13, 120, 16, 144, 24, 2, false),
    ]

    @Test(arguments: cases.indices)
    func equalsTheOperatorsApart(_ i: Int) throws {
        let s = Self.cases[i]
        var rng = SeededGenerator(seed: UInt64(1_000 + i))
        let x = randomTensor([1, s.h, s.w, s.c], &rng)
        let expand = try Conv2D(weights: randomTensor([s.expand, 1, 1, s.c], &rng), bias: randomTensor([s.expand], &rng),
                                strideH: 1, strideW: 1, padding: .valid, activation: .relu)
        // ONNX's symmetric padding at stride 2 (a folded PAD), SAME at stride 1.
        let padding: Padding = s.stride == 2 ? .explicit(top: 1, bottom: 1, left: 1, right: 1) : .same
        let depthwise = try DepthwiseConv2D(weights: randomTensor([1, 3, 3, s.expand], &rng), bias: randomTensor([s.expand], &rng),
                                            strideH: s.stride, strideW: s.stride, padding: padding, activation: .relu)
        let project = try Conv2D(weights: randomTensor([s.out, 1, 1, s.expand], &rng), bias: randomTensor([s.out], &rng),
                                 strideH: 1, strideW: 1, padding: .valid, activation: .none,
                                 residual: s.residual ? Residual(pooled: false) : nil)
        let fused = try ExpandDepthwisePointwise(expand: expand, block: try DepthwisePointwise(depthwise: depthwise, pointwise: project))
        let middle = try depthwise(try expand(x))
        let apart = s.residual ? try project(middle, x) : try project(middle)
        let inputs = s.residual ? [x, x] : [x]
        #expect(try fused.apply(inputs)[0] == apart)

        // Split into unit ranges of every size, each with its own scratch.
        let shapes = inputs.map(\.shape)
        let outShape = try fused.outputShapes(for: shapes)[0]
        let ins = inputs.map { t -> UnsafeMutablePointer<Float> in
            let p = UnsafeMutablePointer<Float>.allocate(capacity: t.scalars.count + kernelSlack)
            p.initialize(repeating: 0, count: t.scalars.count + kernelSlack)
            p.update(from: t.scalars, count: t.scalars.count)
            return p
        }
        let out = UnsafeMutablePointer<Float>.allocate(capacity: outShape.count + kernelSlack)
        defer { ins.forEach { $0.deallocate() }; out.deallocate() }
        let work = try fused.bind(inputs: ins.map { UnsafePointer($0) }, shapes: shapes, outputs: [out])
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: work.scratchFloats + kernelSlack)
        defer { scratch.deallocate() }
        for chunk in [1, 2, 3, 5] {
            out.initialize(repeating: .nan, count: outShape.count)
            var start = 0
            while start < work.units {
                work.run(start..<min(start + chunk, work.units), scratch)
                start += chunk
            }
            #expect(Array(UnsafeBufferPointer(start: out, count: outShape.count)) == apart.scalars, "chunks of \(chunk)")
        }
    }
}
