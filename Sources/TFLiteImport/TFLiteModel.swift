/// Why a TFLite file could not be read or converted.
public enum TFLiteError: Error, Equatable, CustomStringConvertible {
    /// The bytes lack the 'TFL3' file identifier.
    case notTFLite
    /// The flatbuffer is malformed: an offset, index or size out of range (the message says which).
    case corrupt(String)
    /// A valid model that uses something the importer does not handle (the message says what).
    case unsupported(String)

    /// A readable message naming the problem.
    public var description: String {
        switch self {
        case .notTFLite: "not a TFLite model (no 'TFL3' identifier)"
        case .corrupt(let s): "corrupt TFLite model: \(s)"
        case .unsupported(let s): "unsupported TFLite model: \(s)"
        }
    }
}

/// The parts of a TFLite model (schema.fbs) the exporter needs, read into plain values.
/// Field numbers below are the schema's field ids.
public struct TFLiteModel: Sendable {
    /// TFLite's TensorType: the element types the importer reads.
    public enum ElementType: Int8, Sendable {
        /// The schema's TensorType values for each type.
        case float32 = 0, float16 = 1, int32 = 2, uint8 = 3, int64 = 4, int8 = 9
    }

    /// One tensor of the subgraph: its name, shape, element type, and data if it is a constant.
    public struct Tensor: Sendable {
        /// The tensor's name in the file, or `t` and its index when it has none.
        public var name: String
        /// The dimensions, outermost first.
        public var shape: [Int]
        /// The element type of its values.
        public var type: ElementType
        /// The raw little-endian bytes of a constant, or nil for an activation.
        public var data: [UInt8]?
        /// For a sparse constant: how its stored values map onto the dense shape.
        public var sparsity: Sparsity?
    }

    /// TFLite's SparsityParameters (schema.fbs): the dense dimensions, possibly split into
    /// blocks, visited in `traversalOrder`, each stored dense or as CSR (segments, indices).
    public struct Sparsity: Sendable {
        /// How one traversed dimension is stored: TFLite's DimensionMetadata, DENSE or SPARSE_CSR.
        public enum Dimension: Sendable {
            /// Stored densely: all `size` positions.
            case dense(size: Int)
            /// Stored as CSR: `segments` delimit each parent position's run of `indices`.
            case compressed(segments: [Int], indices: [Int])
        }
        /// The order the dimensions are traversed in: the tensor's own, then any block dimensions.
        public var traversalOrder: [Int]
        /// For each block dimension, the tensor dimension it splits.
        public var blockMap: [Int]
        /// The storage of each dimension, in traversal order.
        public var dimensions: [Dimension]
    }

    /// One operator of the subgraph: its builtin code, input and output tensors, and options.
    public struct Operator: Sendable {
        /// The BuiltinOperator code (see `Code`).
        public var code: Int32            // BuiltinOperator
        /// Tensor indices of the inputs, -1 for an omitted optional one.
        public var inputs: [Int]          // tensor indices, -1 for an omitted optional input
        /// Tensor indices of the outputs.
        public var outputs: [Int]
        /// The builtin options table, read by field id and width (see the schema's *Options).
        var options: FlatBuffer.Table?

        func byte(_ id: Int, default value: UInt8 = 0) throws(TFLiteError) -> UInt8 {
            try options?.u8(id, default: value) ?? value
        }
        func int(_ id: Int, default value: Int32 = 0) throws(TFLiteError) -> Int32 {
            try options?.i32(id, default: value) ?? value
        }
        func ints(_ id: Int) throws(TFLiteError) -> [Int32] { try options?.i32s(id) ?? [] }
    }

    /// The schema version recorded in the file.
    public var version: UInt32
    /// The subgraph's tensors, indexed by the operators' inputs and outputs.
    public var tensors: [Tensor]
    /// The subgraph's operators, in execution order.
    public var operators: [Operator]
    /// Tensor indices of the subgraph's inputs.
    public var inputs: [Int]
    /// Tensor indices of the subgraph's outputs.
    public var outputs: [Int]

    /// BuiltinOperator codes of the operators the exporter knows.
    public enum Code {
        /// The codes of ADD, CONCATENATION and CONV_2D.
        public static let add: Int32 = 0, concatenation: Int32 = 2, conv2D: Int32 = 3
        /// The codes of DEPTHWISE_CONV_2D, DEQUANTIZE and MAX_POOL_2D.
        public static let depthwiseConv2D: Int32 = 4, dequantize: Int32 = 6, maxPool2D: Int32 = 17
        /// The codes of RELU, RESHAPE and PAD.
        public static let relu: Int32 = 19, reshape: Int32 = 22, pad: Int32 = 34
        /// The codes of DEPTH_TO_SPACE, RESIZE_BILINEAR and DENSIFY.
        public static let depthToSpace: Int32 = 5, resizeBilinear: Int32 = 23, densify: Int32 = 124
        /// The codes of LOGISTIC, MUL, TRANSPOSE and MEAN.
        public static let logistic: Int32 = 14, mul: Int32 = 18, transpose: Int32 = 39, mean: Int32 = 40
        /// The codes of SUB, DIV, STRIDED_SLICE and PRELU.
        public static let sub: Int32 = 41, div: Int32 = 42, stridedSlice: Int32 = 45, prelu: Int32 = 54
        /// The codes of NEG, SUM, SQRT and RSQRT.
        public static let neg: Int32 = 59, sum: Int32 = 74, sqrt: Int32 = 75, rsqrt: Int32 = 76
        /// The code of SQUARED_DIFFERENCE.
        public static let squaredDifference: Int32 = 99

        static let names: [Int32: String] = [
            0: "ADD", 1: "AVERAGE_POOL_2D", 2: "CONCATENATION", 3: "CONV_2D", 4: "DEPTHWISE_CONV_2D",
            5: "DEPTH_TO_SPACE", 6: "DEQUANTIZE", 9: "FULLY_CONNECTED", 14: "LOGISTIC", 17: "MAX_POOL_2D",
            18: "MUL", 19: "RELU", 21: "RELU6", 22: "RESHAPE", 23: "RESIZE_BILINEAR", 25: "SOFTMAX",
            28: "TANH", 34: "PAD", 39: "TRANSPOSE", 40: "MEAN", 41: "SUB", 42: "DIV", 45: "STRIDED_SLICE",
            49: "SPLIT", 54: "PRELU", 59: "NEG", 74: "SUM", 75: "SQRT", 76: "RSQRT", 99: "SQUARED_DIFFERENCE",
            124: "DENSIFY",
        ]
        /// The schema's name for `code` (e.g. `CONV_2D`), or `BUILTIN_` and the number if unknown.
        public static func name(_ code: Int32) -> String { names[code] ?? "BUILTIN_\(code)" }
    }

    /// Parses a `.tflite` flatbuffer (first subgraph only; BlazeFace has one).
    public init(bytes: [UInt8]) throws(TFLiteError) {
        guard bytes.count >= 8, Array(bytes[4..<8]) == Array("TFL3".utf8) else { throw .notTFLite }
        let fb = FlatBuffer(bytes)
        let model = try fb.root()
        version = try model.u32(0)
        let codes = try model.tables(1).map { c throws(TFLiteError) -> Int32 in
            // builtin_code (3) superseded deprecated_builtin_code (0); take the larger, as TFLite does.
            max(Int32(Int8(bitPattern: try c.u8(0))), try c.i32(3))
        }
        let buffers = try model.tables(4)
        let subgraphs = try model.tables(2)
        guard subgraphs.count == 1 else { throw .unsupported("\(subgraphs.count) subgraphs (expected 1)") }
        let graph = subgraphs[0]

        var tensors: [Tensor] = []
        for t in try graph.tables(0) {
            let name = try t.string(3) ?? "t\(tensors.count)"
            let rawType = Int8(bitPattern: try t.u8(1))
            guard let type = ElementType(rawValue: rawType) else {
                throw .unsupported("tensor '\(name)' has element type \(rawType)")
            }
            let sparsity = try t.table(6).map { table throws(TFLiteError) in try Self.sparsity(table, tensor: name) }
            let bufferIndex = Int(try t.u32(2))
            guard bufferIndex < max(buffers.count, 1) else { throw .corrupt("tensor '\(name)' names buffer \(bufferIndex) of \(buffers.count)") }
            var data: [UInt8]? = nil
            if bufferIndex > 0, let bytes = try buffers[bufferIndex].bytes(0), !bytes.isEmpty { data = Array(bytes) }
            if bufferIndex > 0, data == nil, try buffers[bufferIndex].u64(1) > 1 {
                throw .unsupported("tensor '\(name)' keeps its data outside the flatbuffer")
            }
            let shape = try t.i32s(0).map(Int.init)
            guard shape.allSatisfy({ $0 >= 0 && $0 < 1 << 24 }) else { throw .corrupt("tensor '\(name)' has shape \(shape)") }
            tensors.append(Tensor(name: name, shape: shape, type: type, data: data, sparsity: sparsity))
        }
        var operators: [Operator] = []
        for op in try graph.tables(3) {
            let index = Int(try op.u32(0))
            guard index < codes.count else { throw .corrupt("operator code index \(index) of \(codes.count)") }
            let ins = try op.i32s(1).map(Int.init), outs = try op.i32s(2).map(Int.init)
            guard ins.allSatisfy({ $0 >= -1 && $0 < tensors.count }), outs.allSatisfy({ $0 >= 0 && $0 < tensors.count }) else {
                throw .corrupt("operator \(operators.count) names a tensor out of range")
            }
            operators.append(Operator(code: codes[index], inputs: ins, outputs: outs, options: try op.table(4)))
        }
        let inputs = try graph.i32s(1).map(Int.init), outputs = try graph.i32s(2).map(Int.init)
        guard (inputs + outputs).allSatisfy({ $0 >= 0 && $0 < tensors.count }) else {
            throw .corrupt("graph inputs or outputs out of range")
        }
        (self.tensors, self.operators, self.inputs, self.outputs) = (tensors, operators, inputs, outputs)
    }

    /// Reads SparsityParameters: traversal_order (0), block_map (1), dim_metadata (2), each
    /// DimensionMetadata being format (0: DENSE 0 / SPARSE_CSR 1), dense_size (1), and the
    /// array_segments (2, 3) and array_indices (4, 5) unions of Int32/Uint16/Uint8 vectors.
    private static func sparsity(_ table: FlatBuffer.Table, tensor name: String) throws(TFLiteError) -> Sparsity {
        let order = try table.i32s(0).map(Int.init), blockMap = try table.i32s(1).map(Int.init)
        var dimensions: [Sparsity.Dimension] = []
        for metadata in try table.tables(2) {
            switch try metadata.u8(0) {
            case 0:
                dimensions.append(.dense(size: Int(try metadata.i32(1))))
            case 1:
                func vector(_ typeField: Int, _ valueField: Int) throws(TFLiteError) -> [Int] {
                    guard let v = try metadata.table(valueField) else { throw .corrupt("sparse tensor '\(name)' lacks an index vector") }
                    switch try metadata.u8(typeField) {
                    case 1: return try v.i32s(0).map(Int.init)
                    case 2:
                        guard let (count, start) = try v.vector(0, elementSize: 2) else { return [] }
                        var out: [Int] = []
                        for i in 0..<count { out.append(Int(try v.buffer.u16(start + 2 * i))) }
                        return out
                    case 3: return (try v.bytes(0) ?? []).map(Int.init)
                    case let t: throw .unsupported("sparse tensor '\(name)' uses index vector type \(t)")
                    }
                }
                dimensions.append(.compressed(segments: try vector(2, 3), indices: try vector(4, 5)))
            case let f:
                throw .unsupported("sparse tensor '\(name)' has dimension format \(f)")
            }
        }
        guard order.count == dimensions.count, order.count >= blockMap.count else {
            throw .corrupt("sparse tensor '\(name)' has \(order.count) traversal dims for \(dimensions.count) metadata")
        }
        return Sparsity(traversalOrder: order, blockMap: blockMap, dimensions: dimensions)
    }
}
