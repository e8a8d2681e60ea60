import BlazeTensor

/// One operation of the layer graph: an operator name (TFLite's, e.g. `CONV_2D`), the
/// names of the values or weights it reads, the values it writes, and integer attributes.
public struct Node: Equatable, Sendable {
    public var op: String
    public var inputs: [String]
    public var outputs: [String]
    public var attributes: [String: [Int64]]

    public init(op: String, inputs: [String], outputs: [String], attributes: [String: [Int64]] = [:]) {
        (self.op, self.inputs, self.outputs, self.attributes) = (op, inputs, outputs, attributes)
    }
}

/// The contents of a weights file: metadata, named weight tensors and the layer graph.
///
/// The graph starts with `INPUT` pseudo-nodes (attribute `shape`) and ends with an `OUTPUT`
/// pseudo-node whose inputs are the model outputs, in order. See Weights/README.md.
public struct ModelFile: Equatable, Sendable {
    public var metadata: [(key: String, value: String)]
    public var tensors: [(name: String, tensor: Tensor)]
    public var nodes: [Node]

    public init(metadata: [(key: String, value: String)], tensors: [(name: String, tensor: Tensor)], nodes: [Node]) {
        (self.metadata, self.tensors, self.nodes) = (metadata, tensors, nodes)
    }

    public func metadata(_ key: String) -> String? { metadata.first { $0.key == key }?.value }
    public func tensor(named name: String) -> Tensor? { tensors.first { $0.name == name }?.tensor }

    public static func == (a: ModelFile, b: ModelFile) -> Bool {
        a.metadata.elementsEqual(b.metadata) { $0 == $1 }
            && a.tensors.elementsEqual(b.tensors) { $0.name == $1.name && $0.tensor == $1.tensor }
            && a.nodes == b.nodes
    }
}
