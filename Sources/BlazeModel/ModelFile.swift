import BlazeTensor

/// One operation of the layer graph: an operator name (TFLite's, e.g. `CONV_2D`), the
/// names of the values or weights it reads, the values it writes, and integer attributes.
public struct Node: Equatable, Sendable {
    /// The operator name: TFLite's, or the `INPUT` and `OUTPUT` pseudo-nodes.
    public var op: String
    /// Names of the values or weight tensors it reads, in order.
    public var inputs: [String]
    /// Names of the values it writes, in order.
    public var outputs: [String]
    /// Integer attributes by name (`stride`, `padding`, `activation`, `shape`...).
    public var attributes: [String: [Int64]]

    /// A node from its operator, inputs, outputs and attributes (none by default).
    public init(op: String, inputs: [String], outputs: [String], attributes: [String: [Int64]] = [:]) {
        (self.op, self.inputs, self.outputs, self.attributes) = (op, inputs, outputs, attributes)
    }
}

/// The contents of a weights file: metadata, named weight tensors and the layer graph.
///
/// The graph starts with `INPUT` pseudo-nodes (attribute `shape`) and ends with an `OUTPUT`
/// pseudo-node whose inputs are the model outputs, in order. See Weights/README.md.
public struct ModelFile: Equatable, Sendable {
    /// Key-value pairs in file order (`name`, `source`, `source_sha256`...).
    public var metadata: [(key: String, value: String)]
    /// The weight tensors with their names, in file order.
    public var tensors: [(name: String, tensor: Tensor)]
    /// The layer graph in execution order: `INPUT` nodes first, the `OUTPUT` node last.
    public var nodes: [Node]

    /// A model file from its metadata, tensors and nodes.
    public init(metadata: [(key: String, value: String)], tensors: [(name: String, tensor: Tensor)], nodes: [Node]) {
        (self.metadata, self.tensors, self.nodes) = (metadata, tensors, nodes)
    }

    /// The value of the first metadata entry named `key`, or nil.
    public func metadata(_ key: String) -> String? { metadata.first { $0.key == key }?.value }
    /// The weight tensor named `name`, or nil.
    public func tensor(named name: String) -> Tensor? { tensors.first { $0.name == name }?.tensor }

    /// Equal when metadata, tensors and nodes match in order (tuple arrays are not Equatable).
    public static func == (a: ModelFile, b: ModelFile) -> Bool {
        a.metadata.elementsEqual(b.metadata) { $0 == $1 }
            && a.tensors.elementsEqual(b.tensors) { $0.name == $1.name && $0.tensor == $1.tensor }
            && a.nodes == b.nodes
    }
}
