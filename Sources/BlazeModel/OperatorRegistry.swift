import BlazeTensor

/// Builds tensor operators from graph nodes. The attribute names and codes are the ones the
/// exporter writes (TFLite's builtin options; see Weights/README.md):
/// `stride` [h, w], `padding` 0 SAME / 1 VALID, `activation` 0 none / 1 relu / 3 relu6,
/// `filter` [h, w], `paddings` [8], `shape` [...], `axis` [a].
enum OperatorRegistry {
    /// The operator for `node`, and which of its inputs are runtime values (the rest are weights
    /// the operator has already taken in).
    static func make(_ node: Node, index: Int, kernels: KernelChoice, precision: Precision = .float32,
                     weights: (String) -> Tensor?) throws(ModelError)
        -> (op: any TensorOperator, valueInputs: [String])
    {
        let parser = AttributeReader(node: node, index: index)
        func weight(_ i: Int, optional: Bool = false) throws(ModelError) -> Tensor? {
            guard i < node.inputs.count else {
                if optional { return nil }
                throw .invalidNode(node: index, op: node.op, reason: "input \(i) is missing")
            }
            guard let t = weights(node.inputs[i]) else {
                throw .invalidNode(node: index, op: node.op, reason: "weight '\(node.inputs[i])' is not in the tensor table")
            }
            return t
        }
        /// The PRELU Fusion folded into this node: its slopes are input `expectedAt`.
        func foldedPReLU(expectedAt position: Int) throws(ModelError) -> PReLU? {
            guard node.attributes["prelu"] != nil else { return nil }
            guard try parser.int("prelu") == position, position == node.inputs.count - 1 else {
                throw .invalidNode(node: index, op: node.op, reason: "a folded PRELU's slopes must be input \(position), the last")
            }
            do { return try PReLU(alpha: try weight(position)!, kernels: kernels) } catch let e as TensorError {
                throw .invalidNode(node: index, op: node.op, reason: e.description)
            } catch let e as ModelError { throw e } catch { throw .invalidNode(node: index, op: node.op, reason: "\(error)") }
        }
        do {
            switch node.op {
            case "CONV_2D":
                let s = try parser.pair("stride")
                // A fused residual (see Fusion) adds a fourth input, the skip value; a folded
                // PRELU adds its slopes as the last input (attribute `prelu`: its position).
                let prelu = try foldedPReLU(expectedAt: node.attributes["residual_pool"] == nil ? 3 : 4)
                let residual = node.attributes["residual_pool"] == nil ? nil
                    : Residual(pooled: try parser.int("residual_pool") != 0)
                guard residual == nil || node.inputs.count == 4 + (prelu == nil ? 0 : 1) else {
                    throw ModelError.invalidNode(node: index, op: node.op, reason: "a residual needs inputs x, weights, bias, skip")
                }
                let op = try Conv2D(weights: try weight(1)!, bias: try weight(2, optional: true),
                                    strideH: s.0, strideW: s.1, padding: try parser.padding(),
                                    activation: try parser.activation(), residual: residual, prelu: prelu, kernels: kernels,
                                    precision: precision)
                return (op, residual == nil ? [node.inputs[0]] : [node.inputs[0], node.inputs[3]])
            case "DEPTHWISE_CONV_2D":
                let s = try parser.pair("stride")
                let multiplier = try parser.int("depth_multiplier", default: 1)
                guard multiplier == 1 else {
                    throw ModelError.invalidNode(node: index, op: node.op, reason: "depth multiplier \(multiplier) is not supported")
                }
                let op = try DepthwiseConv2D(weights: try weight(1)!, bias: try weight(2, optional: true),
                                             strideH: s.0, strideW: s.1, padding: try parser.padding(),
                                             activation: try parser.activation(), kernels: kernels)
                return (op, [node.inputs[0]])
            case "TRANSPOSE_CONV":
                // Inputs x, weights [O, kh, kw, I], bias (TFLite's operands less output_shape,
                // which follows from the input: kernel == stride, VALID).
                let s = try parser.pair("stride")
                let op = try TransposeConv2D(weights: try weight(1)!, bias: try weight(2, optional: true),
                                             strideH: s.0, strideW: s.1, padding: try parser.padding(),
                                             activation: try parser.activation(), kernels: kernels)
                return (op, [node.inputs[0]])
            case "MAX_POOL_2D":
                let f = try parser.pair("filter"), s = try parser.pair("stride")
                return (MaxPool2D(filterH: f.0, filterW: f.1, strideH: s.0, strideW: s.1,
                                  padding: try parser.padding(), activation: try parser.activation()),
                        [node.inputs[0]])
            case "ADD", "SUB", "MUL", "DIV", "SQUARED_DIFFERENCE":
                // A weight operand is read as a constant value (GraphPlan binds it).
                let kinds: [String: BinaryKind] = ["ADD": .add, "SUB": .subtract, "MUL": .multiply, "DIV": .divide,
                                                   "SQUARED_DIFFERENCE": .squaredDifference]
                guard node.inputs.count == 2, let kind = kinds[node.op] else {
                    throw ModelError.invalidNode(node: index, op: node.op, reason: "needs two inputs")
                }
                return (BinaryElementwise(kind, activation: try parser.activation(), kernels: kernels), node.inputs)
            case "LOGISTIC", "NEG", "SQRT", "RSQRT":
                let kinds: [String: UnaryKind] = ["LOGISTIC": .logistic, "NEG": .negate, "SQRT": .squareRoot,
                                                  "RSQRT": .reciprocalSquareRoot]
                guard node.inputs.count == 1, let kind = kinds[node.op] else {
                    throw ModelError.invalidNode(node: index, op: node.op, reason: "needs one input")
                }
                return (Unary(kind), node.inputs)
            case "PRELU":
                return (try PReLU(alpha: try weight(1)!, kernels: kernels), [node.inputs[0]])
            case "MEAN", "SUM":
                return (Reduce(node.op == "MEAN" ? .mean : .sum, axes: try parser.ints("axis"),
                               keepDims: try parser.int("keep_dims", default: 0) != 0, kernels: kernels), [node.inputs[0]])
            case "TRANSPOSE":
                return (try Transpose(perm: try parser.ints("perm")), [node.inputs[0]])
            case "STRIDED_SLICE":
                return (try Slice(begin: try parser.ints("begin"), size: try parser.ints("size"), shape: try parser.ints("shape")),
                        [node.inputs[0]])
            case "RELU":
                return (ReLU(), node.inputs)
            case "CONSTANT":
                return (ConstantValue(try weight(0)!), [])
            case "LAYER_NORM":
                // Fusion's node: inputs x, epsilon and gamma (the last two weights).
                guard node.inputs.count == 3 else {
                    throw ModelError.invalidNode(node: index, op: node.op, reason: "needs inputs x, epsilon, gamma")
                }
                return (try LayerNorm(gamma: try weight(2)!, epsilon: try weight(1)!, axis: try parser.int("axis"), kernels: kernels),
                        [node.inputs[0]])
            case "PAD":
                let p = try parser.ints("paddings")
                guard p.count == 8 else {
                    throw ModelError.invalidNode(node: index, op: node.op, reason: "paddings has \(p.count) values, expected 8")
                }
                return (try Pad(paddings: (0..<4).map { (p[2 * $0], p[2 * $0 + 1]) }), [node.inputs[0]])
            case "RESHAPE":
                return (Reshape(newShape: try parser.ints("shape")), [node.inputs[0]])
            case "DEPTHWISE_POINTWISE":
                // Fusion's node: inputs x, depthwise weights and bias, pointwise weights and
                // bias, then the skip if the pointwise convolution has a residual.
                let prelu = try foldedPReLU(expectedAt: node.attributes["residual_pool"] == nil ? 5 : 6)
                let structural = node.inputs.count - (prelu == nil ? 0 : 1)
                guard structural == 5 || structural == 6 else {
                    throw ModelError.invalidNode(node: index, op: node.op, reason: "needs 5 or 6 inputs")
                }
                let ds = try parser.pair("depthwise_stride")
                let depthwisePadding: Padding
                if let e = node.attributes["depthwise_explicit_padding"], e.count == 4 {
                    depthwisePadding = .explicit(top: Int(e[0]), bottom: Int(e[1]), left: Int(e[2]), right: Int(e[3]))
                } else {
                    depthwisePadding = try parser.int("depthwise_padding") == 0 ? .same : .valid
                }
                let depthwise = try DepthwiseConv2D(
                    weights: try weight(1)!, bias: try weight(2), strideH: ds.0, strideW: ds.1, padding: depthwisePadding,
                    activation: try AttributeReader(node: Node(op: node.op, inputs: [], outputs: [],
                                                               attributes: ["activation": node.attributes["depthwise_activation"] ?? [0]]),
                                                    index: index).activation(),
                    kernels: kernels)
                let residual = structural == 6 ? Residual(pooled: try parser.int("residual_pool") != 0) : nil
                let pointwise = try Conv2D(weights: try weight(3)!, bias: try weight(4), strideH: 1, strideW: 1, padding: .valid,
                                           activation: try parser.activation(), residual: residual, prelu: prelu, kernels: kernels,
                                           precision: precision)
                return (try DepthwisePointwise(depthwise: depthwise, pointwise: pointwise),
                        residual == nil ? [node.inputs[0]] : [node.inputs[0], node.inputs[5]])
            case "EXPAND_DEPTHWISE_POINTWISE":
                // Fusion's node: inputs x, the expand convolution's weights and bias, then the
                // DEPTHWISE_POINTWISE inputs after its x (attribute `expand_activation`).
                guard node.inputs.count >= 7, node.attributes["prelu"] == nil else {
                    throw ModelError.invalidNode(node: index, op: node.op, reason: "needs 7 or 8 inputs")
                }
                let expand = try Conv2D(weights: try weight(1)!, bias: try weight(2), strideH: 1, strideW: 1, padding: .valid,
                                        activation: try AttributeReader(node: Node(op: node.op, inputs: [], outputs: [],
                                                                                   attributes: ["activation": node.attributes["expand_activation"] ?? [0]]),
                                                                        index: index).activation(),
                                        kernels: kernels, precision: precision)
                var blockAttributes = node.attributes
                blockAttributes["expand_activation"] = nil
                let blockNode = Node(op: "DEPTHWISE_POINTWISE", inputs: [node.inputs[0]] + Array(node.inputs[3...]),
                                     outputs: node.outputs, attributes: blockAttributes)
                let (block, values) = try make(blockNode, index: index, kernels: kernels, precision: precision, weights: weights)
                guard let block = block as? DepthwisePointwise else {
                    throw ModelError.invalidNode(node: index, op: node.op, reason: "the block is not a DEPTHWISE_POINTWISE")
                }
                return (try ExpandDepthwisePointwise(expand: expand, block: block), values)
            case "DEPTH_TO_SPACE":
                return (try DepthToSpace(blockSize: try parser.int("block_size")), [node.inputs[0]])
            case "RESIZE_BILINEAR":
                let size = try parser.pair("size")
                // A second input is the fused ADD's other operand (see Fusion).
                return (try ResizeBilinear(height: size.0, width: size.1, alignCorners: try parser.int("align_corners", default: 0) != 0,
                                           halfPixelCenters: try parser.int("half_pixel_centers", default: 0) != 0,
                                           activation: try parser.activation()),
                        Array(node.inputs.prefix(2)))
            case "CONCATENATION":
                guard try parser.activation() == .none else {
                    throw ModelError.invalidNode(node: index, op: node.op, reason: "a fused activation is not supported")
                }
                return (Concatenation(axis: try parser.int("axis")), node.inputs)
            default:
                throw ModelError.unknownOperator(op: node.op, node: index)
            }
        } catch let e as ModelError {
            throw e
        } catch let e as TensorError {
            throw .invalidNode(node: index, op: node.op, reason: e.description)
        } catch {
            throw .invalidNode(node: index, op: node.op, reason: "\(error)")
        }
    }
}

/// Reads a node's integer attributes, turning absence or bad values into a ModelError.
struct AttributeReader {
    let node: Node, index: Int

    func ints(_ key: String) throws(ModelError) -> [Int] {
        guard let v = node.attributes[key] else {
            throw .invalidNode(node: index, op: node.op, reason: "attribute '\(key)' is missing")
        }
        guard v.allSatisfy({ $0 > -(1 << 31) && $0 < 1 << 31 }) else {
            throw .invalidNode(node: index, op: node.op, reason: "attribute '\(key)' is out of range")
        }
        return v.map { Int($0) }
    }
    func int(_ key: String, default value: Int? = nil) throws(ModelError) -> Int {
        if node.attributes[key] == nil, let value { return value }
        let v = try ints(key)
        guard v.count == 1 else { throw .invalidNode(node: index, op: node.op, reason: "attribute '\(key)' must be one value") }
        return v[0]
    }
    func pair(_ key: String) throws(ModelError) -> (Int, Int) {
        let v = try ints(key)
        guard v.count == 2, v[0] > 0, v[1] > 0 else {
            throw .invalidNode(node: index, op: node.op, reason: "attribute '\(key)' must be two positive values")
        }
        return (v[0], v[1])
    }
    /// SAME or VALID by TFLite's code, or explicit rows and columns where fusion folded a PAD in.
    func padding() throws(ModelError) -> Padding {
        if node.attributes["explicit_padding"] != nil {
            let p = try ints("explicit_padding")
            guard p.count == 4, p.allSatisfy({ $0 >= 0 }) else {
                throw .invalidNode(node: index, op: node.op, reason: "explicit_padding must be four non-negative values")
            }
            return .explicit(top: p[0], bottom: p[1], left: p[2], right: p[3])
        }
        switch try int("padding") {
        case 0: return .same
        case 1: return .valid
        case let p: throw .invalidNode(node: index, op: node.op, reason: "padding code \(p) is not SAME (0) or VALID (1)")
        }
    }
    func activation() throws(ModelError) -> Activation {
        switch try int("activation", default: 0) {
        case 0: return .none
        case 1: return .relu
        case 3: return .relu6
        case let a: throw .invalidNode(node: index, op: node.op, reason: "fused activation code \(a) is not supported")
        }
    }
}
