import BlazeModel
import BlazeTensor
import Foundation
import Testing

/// `Network.planned(inputShapes:)`: the same packed weights planned at another input size.
@Suite struct PlannedShapesTests {
    /// A small fully convolutional graph in CenterFace's style: an explicit PAD before a
    /// stride-2 convolution, a depthwise-pointwise block with a residual, a 2x2 stride-2
    /// TRANSPOSE_CONV, and a lateral ADD.
    static func model(height: Int, width: Int) throws -> ModelFile {
        var state: UInt64 = 11
        func tensor(_ dims: [Int]) throws -> Tensor {
            try Tensor(shape: Shape(dims), scalars: (0..<dims.reduce(1, *)).map { _ in
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return Float(Int(state >> 40) % 2001 - 1000) / 2000
            })
        }
        return ModelFile(
            metadata: [("name", "fcn")],
            tensors: [("c0.w", try tensor([8, 3, 3, 3])), ("c0.b", try tensor([8])),
                      ("dw.w", try tensor([1, 3, 3, 8])), ("dw.b", try tensor([8])),
                      ("pw.w", try tensor([8, 1, 1, 8])), ("pw.b", try tensor([8])),
                      ("up.w", try tensor([8, 2, 2, 8])), ("up.b", try tensor([8])),
                      ("lat.w", try tensor([8, 1, 1, 3])), ("lat.b", try tensor([8]))],
            nodes: [
                Node(op: "INPUT", inputs: [], outputs: ["x"], attributes: ["shape": [1, Int64(height), Int64(width), 3]]),
                Node(op: "PAD", inputs: ["x"], outputs: ["xp"], attributes: ["paddings": [0, 0, 1, 1, 1, 1, 0, 0]]),
                Node(op: "CONV_2D", inputs: ["xp", "c0.w", "c0.b"], outputs: ["a"],
                     attributes: ["stride": [2, 2], "padding": [1], "activation": [1]]),
                Node(op: "DEPTHWISE_CONV_2D", inputs: ["a", "dw.w", "dw.b"], outputs: ["d"],
                     attributes: ["stride": [1, 1], "padding": [0], "depth_multiplier": [1], "activation": [1]]),
                Node(op: "CONV_2D", inputs: ["d", "pw.w", "pw.b"], outputs: ["p"],
                     attributes: ["stride": [1, 1], "padding": [1], "activation": [0]]),
                Node(op: "ADD", inputs: ["a", "p"], outputs: ["r"], attributes: ["activation": [0]]),
                Node(op: "TRANSPOSE_CONV", inputs: ["r", "up.w", "up.b"], outputs: ["u"],
                     attributes: ["stride": [2, 2], "padding": [1], "activation": [1]]),
                Node(op: "CONV_2D", inputs: ["x", "lat.w", "lat.b"], outputs: ["l"],
                     attributes: ["stride": [1, 1], "padding": [1], "activation": [1]]),
                Node(op: "ADD", inputs: ["u", "l"], outputs: ["y"], attributes: ["activation": [0]]),
                Node(op: "OUTPUT", inputs: ["y"], outputs: []),
            ])
    }

    static func input(_ h: Int, _ w: Int) throws -> Tensor {
        try Tensor(shape: Shape([1, h, w, 3]), scalars: (0..<h * w * 3).map { Float(($0 * 37) % 255) })
    }

    /// Planned at another size, a network gives exactly what a network built for that size
    /// gives, fused or not; and the fused graph equals the reference graph.
    @Test(arguments: [(32, 64), (16, 16), (8, 40)])
    func plannedEqualsBuiltForTheSize(_ h: Int, _ w: Int) throws {
        let x = try Self.input(h, w)
        let direct = try Network(model: try Self.model(height: h, width: w))([x])
        let base = try Network(model: try Self.model(height: 8, width: 8))
        let planned = try base.planned(inputShapes: [x.shape])
        #expect(planned.inputShapes == [x.shape] && planned.outputShapes == [Shape([1, h, w, 8])])
        #expect(try planned([x]) == direct)
        let reference = try Network(model: try Self.model(height: 8, width: 8), options: .reference).planned(inputShapes: [x.shape])
        #expect(try reference([x]) == direct)
        #expect(base.inputShapes == [Shape([1, 8, 8, 3])])   // the base network keeps its own size
    }

    /// A graph with a size fixed in it (a RESHAPE) refuses another size, naming the layer.
    @Test func fixedShapesRefuseAnotherSize() throws {
        let base = try Network(model: try tinyModel())
        #expect(throws: ModelError.self) { try base.planned(inputShapes: [Shape([1, 2, 2, 2])]) }
        #expect(throws: ModelError.self) { try base.planned(inputShapes: [Shape([1, 1, 2, 2]), Shape([1, 1, 2, 2])]) }
        #expect(try base.planned(inputShapes: [Shape([1, 1, 2, 2])]).outputShapes == [Shape([1, 6])])
    }
}
