import BlazeTensor

/// A layer graph bound to buffers: built once from a `ModelFile`, then run many times.
///
/// Building checks the graph (every input defined before use, every shape consistent),
/// packs the weights into each operator and allocates one buffer per value. Running writes
/// the input buffer, executes the bound steps in order and leaves the outputs in place;
/// it allocates nothing. A network is not safe to run from two threads at once.
public final class Network {
    /// Shapes of the graph's inputs and outputs, in declaration order.
    public let inputShapes: [Shape]
    public let outputShapes: [Shape]
    /// The operators in execution order, with the values they read and write (for `describe`).
    public let layers: [(node: Node, shape: Shape)]

    private let buffers: [UnsafeMutablePointer<Float>]
    private let inputIndices: [Int]
    private let outputIndices: [Int]
    private let steps: [() -> Void]

    public init(model: ModelFile) throws(ModelError) {
        let weights = Dictionary(model.tensors.map { ($0.name, $0.tensor) }, uniquingKeysWith: { a, _ in a })
        var valueIndex: [String: Int] = [:]
        var shapes: [Shape] = []
        var pending: [(op: any TensorOperator, inputs: [Int], outputs: [Int])] = []
        var inputs: [Int] = [], outputs: [Int] = [], layers: [(Node, Shape)] = []

        func define(_ name: String, _ shape: Shape, node: Int) throws(ModelError) -> Int {
            guard valueIndex[name] == nil, weights[name] == nil else {
                throw .malformed("node \(node) redefines value '\(name)'")
            }
            guard shape.count > 0, shape.count <= 1 << 28 else {
                throw .malformed("value '\(name)' has unsupported shape \(shape)")
            }
            valueIndex[name] = shapes.count
            shapes.append(shape)
            return shapes.count - 1
        }

        for (i, node) in model.nodes.enumerated() {
            switch node.op {
            case "INPUT":
                let dims = try AttributeReader(node: node, index: i).ints("shape")
                guard node.outputs.count == 1 else { throw .invalidNode(node: i, op: "INPUT", reason: "needs one output") }
                inputs.append(try define(node.outputs[0], Shape(dims), node: i))
            case "OUTPUT":
                for name in node.inputs {
                    guard let v = valueIndex[name] else { throw .missingValue(name: name, node: i) }
                    outputs.append(v)
                }
            default:
                let (op, valueInputs) = try OperatorRegistry.make(node, index: i, weights: { weights[$0] })
                var ins: [Int] = []
                for name in valueInputs {
                    guard let v = valueIndex[name] else { throw .missingValue(name: name, node: i) }
                    ins.append(v)
                }
                let outShapes: [Shape]
                do { outShapes = try op.outputShapes(for: ins.map { shapes[$0] }) } catch {
                    throw .invalidNode(node: i, op: node.op, reason: error.description)
                }
                guard outShapes.count == node.outputs.count else {
                    throw .invalidNode(node: i, op: node.op, reason: "declares \(node.outputs.count) outputs, operator makes \(outShapes.count)")
                }
                var outs: [Int] = []
                for (name, shape) in zip(node.outputs, outShapes) { outs.append(try define(name, shape, node: i)) }
                pending.append((op, ins, outs))
                layers.append((node, outShapes[0]))
            }
        }
        guard !inputs.isEmpty, !outputs.isEmpty else { throw .malformed("the graph declares no INPUT or no OUTPUT") }

        let buffers = shapes.map { shape -> UnsafeMutablePointer<Float> in
            let p = UnsafeMutablePointer<Float>.allocate(capacity: shape.count)
            p.initialize(repeating: 0, count: shape.count)
            return p
        }
        var steps: [() -> Void] = []
        for (op, ins, outs) in pending {
            do {
                steps.append(try op.bind(inputs: ins.map { UnsafePointer(buffers[$0]) },
                                         shapes: ins.map { shapes[$0] }, outputs: outs.map { buffers[$0] }))
            } catch {
                buffers.forEach { $0.deallocate() }
                throw .malformed(error.description)
            }
        }
        self.buffers = buffers
        self.steps = steps
        self.inputIndices = inputs
        self.outputIndices = outputs
        self.inputShapes = inputs.map { shapes[$0] }
        self.outputShapes = outputs.map { shapes[$0] }
        self.layers = layers
    }

    deinit { buffers.forEach { $0.deallocate() } }

    /// The buffer of input `i`: write the input here, then call `run()`.
    public func input(_ i: Int = 0) -> UnsafeMutableBufferPointer<Float> {
        UnsafeMutableBufferPointer(start: buffers[inputIndices[i]], count: inputShapes[i].count)
    }

    /// The buffer of output `i`, valid until the next `run()`.
    public func output(_ i: Int) -> UnsafeBufferPointer<Float> {
        UnsafeBufferPointer(start: buffers[outputIndices[i]], count: outputShapes[i].count)
    }

    /// Runs every layer once on the current input buffers.
    public func run() {
        for step in steps { step() }
    }

    /// Runs on tensors (copies in and out): for tests and tools.
    public func callAsFunction(_ inputs: [Tensor]) throws(ModelError) -> [Tensor] {
        guard inputs.map(\.shape) == inputShapes else {
            throw .unexpectedModel("inputs \(inputs.map(\.shape)) do not match the graph's \(inputShapes)")
        }
        for (i, t) in inputs.enumerated() { _ = input(i).update(fromContentsOf: t.scalars) }
        run()
        var result: [Tensor] = []
        for i in outputShapes.indices {
            guard let t = try? Tensor(shape: outputShapes[i], scalars: Array(output(i))) else {
                throw .malformed("output \(i) does not fill its shape")
            }
            result.append(t)
        }
        return result
    }

    /// One line per layer: operator, inputs and output shape — the architecture at a glance.
    public func describe() -> String {
        layers.map { node, shape in
            "\(node.op.padding(toLength: 18, withPad: " ", startingAt: 0)) \(node.inputs.joined(separator: ", ")) -> \(shape)"
        }.joined(separator: "\n")
    }
}
