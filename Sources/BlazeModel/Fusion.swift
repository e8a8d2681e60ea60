import BlazeTensor

/// Graph rewrites that fold elementwise work into the convolution that feeds it, so the
/// intermediate values are never written. Each rewrite applies only where the folded values
/// have a single consumer, and gives bit-identical results (the same float operations on the
/// same values, in the same order).
///
/// - A spatial zero `PAD` feeding a VALID `CONV_2D` or `DEPTHWISE_CONV_2D` becomes that
///   operator's `explicit_padding` (kernels skip taps outside the input: the same sums).
/// - `CONV_2D → RELU` becomes `CONV_2D` with `activation` ReLU.
/// - A 3x3 `DEPTHWISE_CONV_2D` whose only consumer is a 1x1 stride-1 `CONV_2D` becomes one
///   `DEPTHWISE_POINTWISE` node (see DepthwisePointwise): the depthwise output stays in cache.
/// - `PRELU` after a convolution without activation becomes that convolution's epilogue
///   (attribute `prelu`, the slopes its last input).
/// - A 1x1 stride-1 `CONV_2D` whose only consumer is a `DEPTHWISE_POINTWISE` (MobileNetV2's
///   expand, depthwise and project convolutions) becomes one `EXPAND_DEPTHWISE_POINTWISE`
///   node (see ExpandDepthwisePointwise): the expanded tensor stays in cache. Last of the rewrites.
/// - BlazeFace's residual block, `RELU(ADD(CONV_2D(x), skip))`, becomes one `CONV_2D` with the
///   skip as a fourth input (attribute `residual_pool`), where the skip
///   may come through a channel-only `PAD` and a 2x2/2 `MAX_POOL_2D`, both then skipped.
/// - `ADD(RESIZE_BILINEAR(x), y)` (the full-range model's feature pyramid) becomes one
///   `RESIZE_BILINEAR` with `y` as a second input and the ADD's activation.
/// - The blendshape model's layer norm, `x * s + NEG(m) * s` with `m = MEAN(x)`,
///   `s = RSQRT(MEAN(SQUARED_DIFFERENCE(x, m)) + ε) * γ` (ten operators; ε and γ weights,
///   named directly or through `CONSTANT` nodes), becomes one `LAYER_NORM` node with inputs
///   x and the weights of ε and γ and the means' axis (see `LayerNorm`, which takes only the
///   last); `CONSTANT`s left without a consumer are then dropped.
enum Fusion {
    /// - Parameter weightShape: the shape of a weight tensor by name (kernel sizes decide some rewrites).
    static func apply(_ nodes: [Node], weightShape: (String) -> Shape? = { _ in nil }) -> [Node] {
        var nodes = nodes
        var consumers: [String: Int] = [:]
        var producer: [String: Int] = [:]
        func recount() {
            consumers = [:]; producer = [:]
            for (i, n) in nodes.enumerated() {
                n.inputs.forEach { consumers[$0, default: 0] += 1 }
                n.outputs.forEach { producer[$0] = i }
            }
        }
        func single(_ value: String) -> Bool { consumers[value] == 1 }
        func node(producing value: String, _ op: String) -> Int? {
            guard let i = producer[value], nodes[i].op == op, nodes[i].outputs.count == 1, !nodes[i].inputs.isEmpty else { return nil }
            return i
        }
        var removed = Set<Int>()

        recount()
        for (i, add) in nodes.enumerated() where add.op == "ADD" && add.inputs.count == 2 && add.outputs.count == 1 {
            // One operand is a 1x1 stride-1 convolution without activation, used only here.
            guard let (convIndex, skipValue) = add.inputs.indices.lazy.compactMap({ k -> (Int, String)? in
                guard let c = node(producing: add.inputs[k], "CONV_2D"), single(add.inputs[k]),
                      (nodes[c].attributes["activation"] ?? [0]) == [0],
                      nodes[c].inputs.count == 3 else { return nil }
                return (c, add.inputs[1 - k])
            }).first else { continue }
            var activation = add.attributes["activation"] ?? [0]
            var output = add.outputs[0]
            var last = i
            if activation == [0], single(output), let r = consumerIndex(of: output, nodes, "RELU") {
                activation = [1]; output = nodes[r].outputs[0]; removed.insert(r); last = r
            }
            var skip = skipValue, pooled = false
            if let p = node(producing: skip, "PAD"), single(skip), isChannelPad(nodes[p]) {
                removed.insert(p); skip = nodes[p].inputs[0]
                if let m = node(producing: skip, "MAX_POOL_2D"), single(skip), isPool2x2(nodes[m]) {
                    removed.insert(m); skip = nodes[m].inputs[0]; pooled = true
                }
            } else if let m = node(producing: skip, "MAX_POOL_2D"), single(skip), isPool2x2(nodes[m]) {
                removed.insert(m); skip = nodes[m].inputs[0]; pooled = true
            }
            var fused = nodes[convIndex]
            fused.inputs.append(skip)
            fused.outputs = [output]
            fused.attributes["activation"] = activation
            fused.attributes["residual_pool"] = [pooled ? 1 : 0]
            removed.insert(convIndex); removed.insert(i)
            nodes[last] = fused
            removed.remove(last)
        }
        nodes = nodes.enumerated().filter { !removed.contains($0.offset) }.map(\.element)

        recount()
        removed = []
        for (i, pad) in nodes.enumerated() where pad.op == "PAD" && pad.inputs.count == 1 && pad.outputs.count == 1 {
            guard let p = pad.attributes["paddings"], p.count == 8, p[0] == 0, p[1] == 0, p[6] == 0, p[7] == 0,
                  single(pad.outputs[0]),
                  let c = nodes.firstIndex(where: { ($0.op == "CONV_2D" || $0.op == "DEPTHWISE_CONV_2D") && $0.inputs.first == pad.outputs[0] }),
                  nodes[c].attributes["padding"] == [1], nodes[c].attributes["explicit_padding"] == nil else { continue }
            nodes[c].inputs[0] = pad.inputs[0]
            nodes[c].attributes["explicit_padding"] = [p[2], p[3], p[4], p[5]]
            removed.insert(i)
        }
        nodes = nodes.enumerated().filter { !removed.contains($0.offset) }.map(\.element)

        recount()
        removed = []
        for (i, relu) in nodes.enumerated() where relu.op == "RELU" && relu.inputs.count == 1 {
            guard let c = node(producing: relu.inputs[0], "CONV_2D"), single(relu.inputs[0]),
                  (nodes[c].attributes["activation"] ?? [0]) == [0] else { continue }
            var fused = nodes[c]
            fused.attributes["activation"] = [1]
            fused.outputs = relu.outputs
            nodes[c] = fused
            removed.insert(i)
        }
        nodes = nodes.enumerated().filter { !removed.contains($0.offset) }.map(\.element)

        recount()
        removed = []
        for (i, add) in nodes.enumerated() where add.op == "ADD" && add.inputs.count == 2 && add.outputs.count == 1 {
            guard let k = add.inputs.indices.first(where: { k in
                node(producing: add.inputs[k], "RESIZE_BILINEAR").map { nodes[$0].inputs.count == 1 } == true
                    && single(add.inputs[k]) && add.inputs[1 - k] != add.inputs[k]
            }), let r = node(producing: add.inputs[k], "RESIZE_BILINEAR") else { continue }
            var fused = nodes[r]
            fused.inputs.append(add.inputs[1 - k])
            fused.outputs = add.outputs
            fused.attributes["activation"] = add.attributes["activation"] ?? [0]
            nodes[i] = fused
            removed.insert(r)
        }
        nodes = nodes.enumerated().filter { !removed.contains($0.offset) }.map(\.element)

        recount()
        removed = []
        for (i, dw) in nodes.enumerated() where dw.op == "DEPTHWISE_CONV_2D" && dw.inputs.count == 3 && dw.outputs.count == 1 {
            guard let dwShape = weightShape(dw.inputs[1]), dwShape.dims.count == 4, dwShape[1] == 3, dwShape[2] == 3,
                  (dw.attributes["depth_multiplier"] ?? [1]) == [1], single(dw.outputs[0]),
                  let p = nodes.firstIndex(where: { $0.op == "CONV_2D" && $0.inputs.first == dw.outputs[0] }), p > i,
                  nodes[p].inputs.count >= 3, let pwShape = weightShape(nodes[p].inputs[1]), pwShape.dims.count == 4,
                  pwShape[1] == 1, pwShape[2] == 1, nodes[p].attributes["stride"] == [1, 1],
                  nodes[p].attributes["explicit_padding"] == nil else { continue }
            let pw = nodes[p]
            var attributes: [String: [Int64]] = [
                "depthwise_stride": dw.attributes["stride"] ?? [1, 1],
                "depthwise_padding": dw.attributes["padding"] ?? [0],
                "depthwise_activation": dw.attributes["activation"] ?? [0],
                "activation": pw.attributes["activation"] ?? [0],
            ]
            if let e = dw.attributes["explicit_padding"] { attributes["depthwise_explicit_padding"] = e }
            if let r = pw.attributes["residual_pool"] { attributes["residual_pool"] = r }
            nodes[p] = Node(op: "DEPTHWISE_POINTWISE", inputs: dw.inputs + Array(pw.inputs[1...]),
                            outputs: pw.outputs, attributes: attributes)
            removed.insert(i)
        }
        nodes = nodes.enumerated().filter { !removed.contains($0.offset) }.map(\.element)

        recount()
        removed = []
        for (i, add) in nodes.enumerated() where add.op == "ADD" && add.outputs.count == 1 {
            guard let norm = layerNorm(ending: i, nodes, producer: producer, consumers: consumers) else { continue }
            removed.formUnion(norm.removed)
            nodes[i] = Node(op: "LAYER_NORM", inputs: [norm.x, norm.epsilon, norm.gamma], outputs: add.outputs,
                            attributes: ["axis": [norm.axis]])
        }
        nodes = nodes.enumerated().filter { !removed.contains($0.offset) }.map(\.element)
        recount()
        nodes = nodes.filter { $0.op != "CONSTANT" || $0.outputs.contains { consumers[$0, default: 0] > 0 } }

        // PRELU after a convolution (plain, with a fused residual, or the pointwise half of a
        // DEPTHWISE_POINTWISE) that has no activation and no other consumer: the slopes become
        // the convolution's last input, applied in its epilogue.
        recount()
        removed = []
        for (i, prelu) in nodes.enumerated() where prelu.op == "PRELU" && prelu.inputs.count == 2 {
            guard let c = producer[prelu.inputs[0]], ["CONV_2D", "DEPTHWISE_POINTWISE"].contains(nodes[c].op),
                  nodes[c].outputs.count == 1, single(prelu.inputs[0]), nodes[c].attributes["prelu"] == nil,
                  (nodes[c].attributes["activation"] ?? [0]) == [0] else { continue }
            var fused = nodes[c]
            fused.attributes["prelu"] = [Int64(fused.inputs.count)]
            fused.inputs.append(prelu.inputs[1])
            fused.outputs = prelu.outputs
            nodes[c] = fused
            removed.insert(i)
        }
        nodes = nodes.enumerated().filter { !removed.contains($0.offset) }.map(\.element)

        // MobileNetV2's expand convolution: a plain 1x1 stride-1 CONV_2D (no residual, no
        // PRELU) whose only consumer is a DEPTHWISE_POINTWISE without a folded PRELU.
        recount()
        removed = []
        for (i, block) in nodes.enumerated() where block.op == "DEPTHWISE_POINTWISE" && block.attributes["prelu"] == nil {
            guard let c = node(producing: block.inputs[0], "CONV_2D"), single(block.inputs[0]), c < i,
                  nodes[c].inputs.count == 3, nodes[c].attributes["residual_pool"] == nil, nodes[c].attributes["prelu"] == nil,
                  nodes[c].attributes["stride"] == [1, 1],
                  (nodes[c].attributes["explicit_padding"] ?? [0, 0, 0, 0]) == [0, 0, 0, 0],
                  let shape = weightShape(nodes[c].inputs[1]), shape.dims.count == 4, shape[1] == 1, shape[2] == 1 else { continue }
            var attributes = block.attributes
            attributes["expand_activation"] = nodes[c].attributes["activation"] ?? [0]
            nodes[i] = Node(op: "EXPAND_DEPTHWISE_POINTWISE", inputs: nodes[c].inputs + Array(block.inputs[1...]),
                            outputs: block.outputs, attributes: attributes)
            removed.insert(c)
        }
        return nodes.enumerated().filter { !removed.contains($0.offset) }.map(\.element)
    }

    /// The layer norm whose last operator, `ADD(MUL(x, s), MUL(NEG(m), s))`, is node `end`:
    /// its input x, the weights of ε and γ, and the nine other nodes it replaces (each used
    /// only inside the pattern; `consumers` counts each value's uses). Operands of ADD, MUL
    /// and SQUARED_DIFFERENCE may come in either order: each gives the same bits both ways.
    private static func layerNorm(ending end: Int, _ nodes: [Node], producer: [String: Int], consumers: [String: Int])
        -> (x: String, epsilon: String, gamma: String, axis: Int64, removed: [Int])? {
        func single(_ value: String) -> Bool { consumers[value] == 1 }
        func node(_ value: String, _ op: String, inputs: Int) -> Int? {
            guard let i = producer[value], nodes[i].op == op, nodes[i].inputs.count == inputs, nodes[i].outputs.count == 1,
                  (nodes[i].attributes["activation"] ?? [0]) == [0] else { return nil }
            return i
        }
        /// The weight `value` is: named directly (no node produces it) or through a `CONSTANT` node.
        func constant(_ value: String) -> String? {
            producer[value] == nil ? value : node(value, "CONSTANT", inputs: 1).map { nodes[$0].inputs[0] }
        }
        /// A MEAN over one axis, kept as 1 (`LayerNorm` checks that it is the last one).
        func oneAxisMean(_ value: String) -> Int? {
            guard let i = node(value, "MEAN", inputs: 1), nodes[i].attributes["axis"]?.count == 1,
                  nodes[i].attributes["keep_dims"] == [1] else { return nil }
            return i
        }
        let add = nodes[end]
        guard add.inputs.count == 2, (add.attributes["activation"] ?? [0]) == [0],
              let m1 = node(add.inputs[0], "MUL", inputs: 2), let m2 = node(add.inputs[1], "MUL", inputs: 2),
              single(add.inputs[0]), single(add.inputs[1]) else { return nil }
        // One product is NEG(m) * s, the other x * s, with the same s.
        for (scaled, shifted) in [(m1, m2), (m2, m1)] {
            for k in 0..<2 {
                let s = nodes[shifted].inputs[1 - k]
                guard let neg = node(nodes[shifted].inputs[k], "NEG", inputs: 1), single(nodes[shifted].inputs[k]),
                      let sIndex = nodes[scaled].inputs.firstIndex(of: s), nodes[scaled].inputs[1 - sIndex] != s else { continue }
                let x = nodes[scaled].inputs[1 - sIndex]
                let meanValue = nodes[neg].inputs[0]
                guard let mean = oneAxisMean(meanValue), nodes[mean].inputs[0] == x,
                      let scale = node(s, "MUL", inputs: 2) else { continue }
                // s = RSQRT(v + ε) * γ
                let scaleInputs = nodes[scale].inputs
                guard let rIndex = scaleInputs.firstIndex(where: { node($0, "RSQRT", inputs: 1) != nil }),
                      let gamma = constant(scaleInputs[1 - rIndex]), single(scaleInputs[1 - rIndex]), single(scaleInputs[rIndex]),
                      let rsqrt = node(scaleInputs[rIndex], "RSQRT", inputs: 1),
                      let shift = node(nodes[rsqrt].inputs[0], "ADD", inputs: 2), single(nodes[rsqrt].inputs[0]) else { continue }
                // v + ε, v = MEAN(SQUARED_DIFFERENCE(x, m))
                let shiftInputs = nodes[shift].inputs
                guard let vIndex = shiftInputs.firstIndex(where: { oneAxisMean($0) != nil }),
                      let epsilon = constant(shiftInputs[1 - vIndex]), single(shiftInputs[vIndex]),
                      let variance = oneAxisMean(shiftInputs[vIndex]),
                      let squares = node(nodes[variance].inputs[0], "SQUARED_DIFFERENCE", inputs: 2),
                      single(nodes[variance].inputs[0]), Set(nodes[squares].inputs) == [x, meanValue],
                      nodes[variance].attributes["axis"] == nodes[mean].attributes["axis"] else { continue }
                // The mean feeds only NEG and SQUARED_DIFFERENCE, s only the two products.
                guard consumers[meanValue] == 2, consumers[s] == 2 else { continue }
                let gammaNode = producer[scaleInputs[1 - rIndex]].map { [$0] } ?? []
                return (x, epsilon, gamma, nodes[mean].attributes["axis"]![0],
                        [m1, m2, neg, mean, scale, rsqrt, shift, variance, squares] + gammaNode)
            }
        }
        return nil
    }

    private static func consumerIndex(of value: String, _ nodes: [Node], _ op: String) -> Int? {
        nodes.firstIndex { $0.op == op && $0.inputs == [value] && $0.outputs.count == 1 }
    }

    private static func isChannelPad(_ n: Node) -> Bool {
        guard let p = n.attributes["paddings"], p.count == 8 else { return false }
        return p[0...6].allSatisfy { $0 == 0 } && p[7] >= 0
    }

    /// A 2x2 stride-2 max pool. TFLite marks BlazeFace's SAME, which on even sizes pads
    /// nothing; on odd sizes the fused operator's shape check fails and the network is
    /// planned unfused.
    private static func isPool2x2(_ n: Node) -> Bool {
        n.attributes["filter"] == [2, 2] && n.attributes["stride"] == [2, 2]
            && (n.attributes["activation"] ?? [0]) == [0]
    }
}
