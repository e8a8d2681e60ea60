import BlazeModel
import BlazeTensor
import Foundation
import InternalUtilities

/// Converts a TFLite model into the flat weights format: constants dequantised to float32,
/// DEQUANTIZE nodes folded away, every other operator kept one for one with its options
/// written as node attributes. Refuses anything it cannot represent exactly.
public enum Exporter {
    /// The weights file for `model`, with `metadata` stored as given; throws for an operator or
    /// tensor it cannot represent exactly.
    public static func convert(_ model: TFLiteModel, metadata: [(key: String, value: String)]) throws(TFLiteError) -> ModelFile {
        let names = uniqueNames(model.tensors.map(\.name))
        // Float weights by tensor index, after folding DEQUANTIZE(const) into a constant.
        var constants: [Int: BlazeTensor.Tensor] = [:]
        var alias: [Int: Int] = [:]   // dequantize output -> its constant input
        for (i, t) in model.tensors.enumerated() where t.data != nil && (t.type == .float32 || t.type == .float16) {
            constants[i] = try floats(t)
        }
        // DENSIFY (sparse constant to dense) and DEQUANTIZE (float16 constant to float32) of
        // constants are folded: their outputs become aliases of the dense float32 constant.
        for op in model.operators where op.code == TFLiteModel.Code.dequantize || op.code == TFLiteModel.Code.densify {
            guard op.inputs.count == 1, op.outputs.count == 1 else { throw .unsupported("\(TFLiteModel.Code.name(op.code)) arity") }
            alias[op.outputs[0]] = op.inputs[0]
        }
        func resolve(_ i: Int) -> Int {
            var i = i
            for _ in 0..<8 { guard let next = alias[i] else { break }; i = next }
            return i
        }
        for (output, _) in alias where constants[resolve(output)] == nil {
            throw .unsupported("DENSIFY or DEQUANTIZE of a non-constant tensor '\(model.tensors[output].name)'")
        }

        var nodes: [Node] = []
        var usedWeights: [Int] = []
        for i in model.inputs {
            nodes.append(Node(op: "INPUT", inputs: [], outputs: [names[i]],
                              attributes: ["shape": model.tensors[i].shape.map(Int64.init)]))
        }
        for (index, op) in model.operators.enumerated()
        where op.code != TFLiteModel.Code.dequantize && op.code != TFLiteModel.Code.densify {
            let opName = TFLiteModel.Code.name(op.code)
            func fail(_ why: String) -> TFLiteError { .unsupported("operator \(index) (\(opName)): \(why)") }
            var inputs = op.inputs.filter { $0 >= 0 }.map(resolve)
            var attributes: [String: [Int64]] = [:]
            func weightInputs(_ positions: [Int]) throws(TFLiteError) {
                for p in positions where p < inputs.count {
                    guard constants[inputs[p]] != nil else { throw fail("input \(p) is not a constant") }
                    if !usedWeights.contains(inputs[p]) { usedWeights.append(inputs[p]) }
                }
            }
            /// Float constants among the inputs become weight tensors (the runtime reads them as values).
            func constantInputs() throws(TFLiteError) {
                for (p, i) in inputs.enumerated() where constants[i] != nil {
                    try weightInputs([p])
                }
            }
            func activation(_ code: UInt8) throws(TFLiteError) -> Int64 {
                guard [0, 1, 3].contains(code) else { throw fail("fused activation \(code)") }
                return Int64(code)
            }
            func padding(_ code: UInt8) throws(TFLiteError) -> Int64 {
                guard code <= 1 else { throw fail("padding \(code)") }
                return Int64(code)
            }
            switch op.code {
            case TFLiteModel.Code.conv2D:
                guard try op.int(4, default: 1) == 1, try op.int(5, default: 1) == 1 else { throw fail("dilation") }
                attributes["padding"] = [try padding(try op.byte(0))]
                attributes["stride"] = [Int64(try op.int(2)), Int64(try op.int(1))]
                attributes["activation"] = [try activation(try op.byte(3))]
                try weightInputs([1, 2])
            case TFLiteModel.Code.depthwiseConv2D:
                guard try op.int(5, default: 1) == 1, try op.int(6, default: 1) == 1 else { throw fail("dilation") }
                attributes["padding"] = [try padding(try op.byte(0))]
                attributes["stride"] = [Int64(try op.int(2)), Int64(try op.int(1))]
                attributes["depth_multiplier"] = [Int64(try op.int(3, default: 1))]
                attributes["activation"] = [try activation(try op.byte(4))]
                try weightInputs([1, 2])
            case TFLiteModel.Code.maxPool2D:
                attributes["padding"] = [try padding(try op.byte(0))]
                attributes["stride"] = [Int64(try op.int(2)), Int64(try op.int(1))]
                attributes["filter"] = [Int64(try op.int(4)), Int64(try op.int(3))]
                attributes["activation"] = [try activation(try op.byte(5))]
            case TFLiteModel.Code.add:
                attributes["activation"] = [try activation(try op.byte(0))]
                try constantInputs()
            case TFLiteModel.Code.concatenation:
                attributes["axis"] = [Int64(try op.int(0))]
                attributes["activation"] = [try activation(try op.byte(1))]
                try constantInputs()
            case TFLiteModel.Code.relu:
                break
            case TFLiteModel.Code.depthToSpace:
                attributes["block_size"] = [Int64(try op.int(0))]
            case TFLiteModel.Code.resizeBilinear:
                // ResizeBilinearOptions: align_corners (2), half_pixel_centers (3); the size is input 1.
                guard inputs.count == 2, let size = int32Constant(model.tensors[inputs[1]], count: 2) else {
                    throw fail("size must be a constant int32 [2]")
                }
                attributes["size"] = size
                attributes["align_corners"] = [Int64(try op.byte(2))]
                attributes["half_pixel_centers"] = [Int64(try op.byte(3))]
                inputs = [inputs[0]]
            case TFLiteModel.Code.reshape:
                // The output tensor's static shape is the target; the shape input is dropped.
                guard let out = op.outputs.first else { throw fail("no output") }
                attributes["shape"] = model.tensors[out].shape.map(Int64.init)
                inputs = Array(inputs.prefix(1))
            case TFLiteModel.Code.pad:
                guard inputs.count == 2, let p = int32Constant(model.tensors[inputs[1]], count: 8) else {
                    throw fail("paddings must be a constant int32 [4, 2]")
                }
                attributes["paddings"] = p
                inputs = [inputs[0]]
            case TFLiteModel.Code.prelu:
                try weightInputs([1])
            case TFLiteModel.Code.logistic, TFLiteModel.Code.neg, TFLiteModel.Code.sqrt, TFLiteModel.Code.rsqrt:
                break
            case TFLiteModel.Code.sub, TFLiteModel.Code.mul, TFLiteModel.Code.div:
                // Add/Sub/Mul/DivOptions: fused_activation_function (0). Constant operands become weights.
                attributes["activation"] = [try activation(try op.byte(0))]
                try constantInputs()
            case TFLiteModel.Code.squaredDifference:
                try constantInputs()
            case TFLiteModel.Code.mean, TFLiteModel.Code.sum:
                // ReducerOptions: keep_dims (0); the axes are input 1.
                guard inputs.count == 2, let axes = int32Constant(model.tensors[inputs[1]]) else {
                    throw fail("axes must be a constant int32 vector")
                }
                attributes["axis"] = axes
                attributes["keep_dims"] = [Int64(try op.byte(0))]
                inputs = [inputs[0]]
            case TFLiteModel.Code.transpose:
                guard inputs.count == 2, let perm = int32Constant(model.tensors[inputs[1]]) else {
                    throw fail("perm must be a constant int32 vector")
                }
                attributes["perm"] = perm
                inputs = [inputs[0]]
            case TFLiteModel.Code.stridedSlice:
                attributes.merge(try stridedSlice(op, model, fail), uniquingKeysWith: { $1 })
                inputs = [inputs[0]]
            default:
                throw fail("not supported by the exporter yet")
            }
            nodes.append(Node(op: opName, inputs: inputs.map { names[$0] }, outputs: op.outputs.map { names[$0] },
                              attributes: attributes))
        }
        nodes.append(Node(op: "OUTPUT", inputs: model.outputs.map { names[$0] }, outputs: []))
        let tensors = usedWeights.map { (name: names[$0], tensor: constants[$0]!) }
        return ModelFile(metadata: metadata, tensors: tensors, nodes: nodes)
    }

    /// STRIDED_SLICE with constant begin, end and strides, resolved against the input's static
    /// shape (StridedSliceOptions: begin_mask 0, end_mask 1, ellipsis_mask 2, new_axis_mask 3,
    /// shrink_axis_mask 4, offset 5) into `begin` and `size` per input axis (stride 1 only) and
    /// the output `shape` (shrunk axes dropped).
    static func stridedSlice(_ op: TFLiteModel.Operator, _ model: TFLiteModel,
                             _ fail: (String) -> TFLiteError) throws(TFLiteError) -> [String: [Int64]] {
        guard op.inputs.count == 4, op.inputs.allSatisfy({ $0 >= 0 }), let out = op.outputs.first,
              let begin = int32Constant(model.tensors[op.inputs[1]]),
              let end = int32Constant(model.tensors[op.inputs[2]]),
              let strides = int32Constant(model.tensors[op.inputs[3]]) else {
            throw fail("begin, end and strides must be constant int32 vectors")
        }
        let shape = model.tensors[op.inputs[0]].shape
        guard begin.count == shape.count, end.count == shape.count, strides.count == shape.count else {
            throw fail("begin/end/strides do not match the input rank \(shape.count)")
        }
        guard strides.allSatisfy({ $0 == 1 }) else { throw fail("strides other than 1") }
        guard try op.int(2) == 0, try op.int(3) == 0, try op.byte(5) == 0 else {
            throw fail("ellipsis, new-axis masks and offset are not supported")
        }
        let beginMask = try op.int(0), endMask = try op.int(1), shrinkMask = try op.int(4)
        var starts: [Int64] = [], sizes: [Int64] = []
        for axis in shape.indices {
            let n = Int64(shape[axis])
            func clamp(_ v: Int64) -> Int64 { min(max(v < 0 ? v + n : v, 0), n) }
            let b = beginMask & (1 << axis) != 0 ? 0 : clamp(begin[axis])
            var e = endMask & (1 << axis) != 0 ? n : clamp(end[axis])
            if shrinkMask & (1 << axis) != 0 { e = b + 1 }
            guard e > b, e <= n else { throw fail("empty or out-of-range slice on axis \(axis)") }
            starts.append(b); sizes.append(e - b)
        }
        return ["begin": starts, "size": sizes, "shape": model.tensors[out].shape.map(Int64.init)]
    }

    /// The values of a constant int32 tensor (of `count` elements if given), or nil if it is not one.
    static func int32Constant(_ t: TFLiteModel.Tensor, count: Int? = nil) -> [Int64]? {
        guard t.type == .int32, let d = t.data, d.count % 4 == 0, count.map({ d.count == 4 * $0 }) ?? true else { return nil }
        return stride(from: 0, to: d.count, by: 4).map {
            Int64(Int32(bitPattern: UInt32(d[$0]) | UInt32(d[$0 + 1]) << 8 | UInt32(d[$0 + 2]) << 16 | UInt32(d[$0 + 3]) << 24))
        }
    }

    /// A tensor's constant data as float32; float16 widens exactly.
    static func floats(_ t: TFLiteModel.Tensor) throws(TFLiteError) -> BlazeTensor.Tensor {
        let data = t.data ?? []
        let width = t.type == .float16 ? 2 : 4
        guard let dense = Shape.checkedProduct(t.shape.map { Int($0) }) else {
            throw .corrupt("tensor '\(t.name)' has an invalid shape \(t.shape)")
        }
        let count = t.sparsity == nil ? dense : data.count / width
        guard data.count / width == count, data.count % width == 0 else {
            throw .corrupt("tensor '\(t.name)' has \(data.count) bytes for shape \(t.shape)")
        }
        var values = [Float](repeating: 0, count: count)
        for i in 0..<count {
            if width == 2 {
                values[i] = floatFromHalf(UInt16(data[2 * i]) | UInt16(data[2 * i + 1]) << 8)
            } else {
                let b = 4 * i
                values[i] = Float(bitPattern: UInt32(data[b]) | UInt32(data[b + 1]) << 8 | UInt32(data[b + 2]) << 16 | UInt32(data[b + 3]) << 24)
            }
        }
        if let sparsity = t.sparsity { values = try sparsity.densify(values, shape: t.shape, zero: 0) }
        guard let tensor = try? BlazeTensor.Tensor(shape: Shape(t.shape), scalars: values) else {
            throw .corrupt("tensor '\(t.name)'")
        }
        return tensor
    }

    /// IEEE 754 binary16 to binary32, exactly (subnormals, infinities and NaN included).
    static func floatFromHalf(_ h: UInt16) -> Float {
        let sign = UInt32(h >> 15) << 31
        let exponent = Int(h >> 10) & 0x1f
        let mantissa = UInt32(h & 0x3ff)
        switch exponent {
        case 0:
            // Zero or subnormal: mantissa * 2^-24, exact in float32.
            let magnitude = Float(mantissa) * Float(sign: .plus, exponent: -24, significand: 1)
            return sign != 0 ? -magnitude : magnitude
        case 31:
            return Float(bitPattern: sign | 0x7f80_0000 | mantissa << 13)
        default:
            return Float(bitPattern: sign | UInt32(exponent - 15 + 127) << 23 | mantissa << 13)
        }
    }

    /// TFLite names are not guaranteed unique; suffix repeats with their tensor index.
    static func uniqueNames(_ names: [String]) -> [String] {
        var seen: [String: Int] = [:]
        names.forEach { seen[$0, default: 0] += 1 }
        return names.enumerated().map { i, n in n.isEmpty || seen[n]! > 1 ? "\(n)#\(i)" : n }
    }
}

extension Exporter {
    /// Converts the model at `path` (a `.tflite` file, or `member` of a MediaPipe `.task` bundle,
    /// refused unless its SHA-256 is `bundleSHA256` when that is given) and writes its weights
    /// file to `output`, as `blazeface export` does: with its provenance in the metadata (`name`,
    /// by default the model's file name without `.tflite`; the source's name and SHA-256; the
    /// bundle's; the exporter and the license), and only once the runtime has built its graph.
    ///
    /// ```swift
    /// let file = try Exporter.export(modelAt: "face_landmarker.task", member: "face_detector.tflite",
    ///                                to: "face_detection_short_range.bin")
    /// print(file.nodes.count, "nodes")
    /// ```
    @discardableResult
    public static func export(modelAt path: String, member: String? = nil, bundleSHA256: String? = nil, name: String? = nil,
                              to output: String) throws(ExportError) -> ModelFile {
        let bytes: [UInt8]
        var source = URL(fileURLWithPath: path).lastPathComponent
        var provenance: [(key: String, value: String)] = []
        if let member {
            do {
                let bundle = try TaskBundle(contentsOf: path, expectedSHA256: bundleSHA256)
                bytes = try bundle.member(member)
                provenance = [("bundle", source), ("bundle_sha256", bundle.sha256)]
                source = member
            } catch { throw ExportError("\(path): \(error.description)") }
        } else {
            guard let data = FileManager.default.contents(atPath: path) else { throw ExportError("cannot read '\(path)'") }
            bytes = [UInt8](data)
        }
        let file: ModelFile
        do {
            file = try convert(try TFLiteModel(bytes: bytes), metadata: [
                ("name", name ?? source.replacingOccurrences(of: ".tflite", with: "")),
                ("source", source),
                ("source_sha256", SHA256.hex(bytes)),
            ] + provenance + [
                ("exporter", "blazeface export (format version \(WeightsFormat.version))"),
                ("license", "Apache-2.0 (MediaPipe models)"),
            ])
        } catch { throw ExportError("\(path): \(error.description)") }
        do {
            _ = try Network(model: file)   // refuse to write a graph the runtime cannot run
            try WeightsFormat.write(file, to: output)
        } catch { throw ExportError("\(error)") }
        return file
    }
}

/// Why a model was not exported (`Exporter.export(modelAt:member:bundleSHA256:name:to:)`), naming
/// the file.
public struct ExportError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
