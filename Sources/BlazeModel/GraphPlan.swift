import BlazeTensor

/// A graph checked and shaped: every node's operator, the values it reads and writes (as
/// indices), and every value's shape. Nothing is allocated yet.
struct GraphPlan {
    var shapes: [Shape] = []
    var operators: [(op: any TensorOperator, inputs: [Int], outputs: [Int])] = []
    var inputs: [Int] = [], outputs: [Int] = []
    var layers: [(node: Node, shape: Shape)] = []

    init(nodes: [Node], weights: [String: Tensor], kernels: KernelChoice, precision: Precision = .float32) throws(ModelError) {
        var valueIndex: [String: Int] = [:]
        func define(_ name: String, _ shape: Shape, node: Int) throws(ModelError) -> Int {
            guard valueIndex[name] == nil, weights[name] == nil else {
                throw .malformed("node \(node) redefines value '\(name)'")
            }
            guard let count = shape.checkedCount, count > 0, count <= 1 << 28 else {
                throw .malformed("value '\(name)' has unsupported shape \(shape)")
            }
            valueIndex[name] = shapes.count
            shapes.append(shape)
            return shapes.count - 1
        }
        for (i, node) in nodes.enumerated() {
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
                let (op, valueInputs) = try OperatorRegistry.make(node, index: i, kernels: kernels, precision: precision, weights: { weights[$0] })
                var ins: [Int] = []
                for name in valueInputs {
                    if let v = valueIndex[name] { ins.append(v); continue }
                    guard let w = weights[name] else { throw .missingValue(name: name, node: i) }
                    // A weight read as a value: a CONSTANT step writes it into its own buffer.
                    let key = "\u{0}constant " + name
                    if let v = valueIndex[key] { ins.append(v); continue }
                    guard w.shape.count <= 1 << 28 else { throw .malformed("constant '\(name)' is too large") }
                    valueIndex[key] = shapes.count
                    shapes.append(w.shape)
                    operators.append((ConstantValue(w), [], [shapes.count - 1]))
                    layers.append((Node(op: "CONSTANT", inputs: [name], outputs: [name]), w.shape))
                    ins.append(shapes.count - 1)
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
                operators.append((op, ins, outs))
                layers.append((node, outShapes[0]))
            }
        }
        guard !inputs.isEmpty, !outputs.isEmpty else { throw .malformed("the graph declares no INPUT or no OUTPUT") }
    }
}

extension GraphPlan {
    /// The same operators (their packed weights shared, not copied) planned for other input
    /// shapes: every value's shape inferred again, in order. Throws where an operator does not
    /// fit the new shapes (a RESHAPE or a slice fixed to the file's size, say).
    func reshaped(inputShapes: [Shape]) throws(ModelError) -> GraphPlan {
        guard inputShapes.count == inputs.count else {
            throw .malformed("\(inputShapes.count) input shapes for a graph of \(inputs.count) inputs")
        }
        var plan = self
        for (v, shape) in zip(inputs, inputShapes) {
            guard let count = shape.checkedCount, count > 0, count <= 1 << 28 else {
                throw .malformed("input shape \(shape) is unsupported")
            }
            plan.shapes[v] = shape
        }
        for (step, entry) in operators.enumerated() {
            let outShapes: [Shape]
            do { outShapes = try entry.op.outputShapes(for: entry.inputs.map { plan.shapes[$0] }) } catch {
                throw .invalidNode(node: step, op: layers[step].node.op, reason: error.description)
            }
            for (v, shape) in zip(entry.outputs, outShapes) {
                guard let count = shape.checkedCount, count > 0, count <= 1 << 28 else {
                    throw .malformed("value '\(layers[step].node.outputs.first ?? "")' has unsupported shape \(shape)")
                }
                plan.shapes[v] = shape
            }
            plan.layers[step].shape = outShapes[0]
        }
        return plan
    }
}

/// Where each value lives in one arena. A value lives from the step that writes it to the last
/// step that reads it (inputs and outputs for the whole run); values whose lifetimes do
/// not overlap may share bytes. Placement is greedy, largest first, lowest free offset: the
/// classic offset planner (as in TFLite's ArenaPlanner). A step's output never shares memory
/// with its own inputs, since both are alive during that step.
struct MemoryPlan {
    var offsets: [Int]
    var byteCount: Int

    init(_ plan: GraphPlan) {
        let count = plan.shapes.count
        var first = [Int](repeating: Int.max, count: count), last = [Int](repeating: -1, count: count)
        // Inputs stay intact through a run (a caller may run again on the same input).
        for v in plan.inputs { first[v] = -1; last[v] = plan.operators.count }
        for (step, entry) in plan.operators.enumerated() {
            for v in entry.outputs { first[v] = min(first[v], step); last[v] = max(last[v], step) }
            for v in entry.inputs { last[v] = max(last[v], step) }
        }
        for v in plan.outputs { last[v] = plan.operators.count }
        for v in 0..<count where first[v] == Int.max { first[v] = -1; last[v] = max(last[v], -1) }

        func bytes(_ v: Int) -> Int { ((plan.shapes[v].count + kernelSlack) * 4 + 63) / 64 * 64 }
        let order = (0..<count).sorted { (bytes($0), -$0) > (bytes($1), -$1) }
        var placed: [(offset: Int, size: Int, first: Int, last: Int)] = []
        var offsets = [Int](repeating: 0, count: count)
        var total = 0
        for v in order {
            let size = bytes(v)
            let conflicts = placed.filter { $0.first <= last[v] && first[v] <= $0.last }.sorted { $0.offset < $1.offset }
            var offset = 0
            for c in conflicts {
                if offset + size <= c.offset { break }
                offset = max(offset, c.offset + c.size)
            }
            offsets[v] = offset
            placed.append((offset, size, first[v], last[v]))
            total = max(total, offset + size)
        }
        self.offsets = offsets
        self.byteCount = total
    }
}
