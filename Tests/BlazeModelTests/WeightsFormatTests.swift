import BlazeModel
import BlazeTensor
import Foundation
import Testing

/// A two-layer graph: conv 1x1 (2 -> 3 channels) with ReLU, then a reshape.
func tinyModel() throws -> ModelFile {
    let w = try Tensor(shape: Shape([3, 1, 1, 2]), scalars: [1, 0, 0, 1, -1, 1])
    let b = try Tensor(shape: Shape([3]), scalars: [0.5, -0.5, 0])
    return ModelFile(
        metadata: [("name", "tiny"), ("note", "ünïcode ok")],
        tensors: [("w", w), ("b", b)],
        nodes: [
            Node(op: "INPUT", inputs: [], outputs: ["x"], attributes: ["shape": [1, 1, 2, 2]]),
            Node(op: "CONV_2D", inputs: ["x", "w", "b"], outputs: ["y"],
                 attributes: ["stride": [1, 1], "padding": [1], "activation": [1]]),
            Node(op: "RESHAPE", inputs: ["y"], outputs: ["z"], attributes: ["shape": [1, 6]]),
            Node(op: "OUTPUT", inputs: ["z"], outputs: []),
        ])
}

@Suite struct WeightsFormatTests {
    @Test func roundTripsExactly() throws {
        let model = try tinyModel()
        let bytes = WeightsFormat.encode(model)
        #expect(Array(bytes.prefix(4)) == Array("BFWF".utf8))
        #expect(try WeightsFormat.decode(bytes) == model)
        // Tensor data starts on the declared alignment.
        let dataOffset = bytes[24..<32].reversed().reduce(0) { $0 << 8 | Int($1) }
        #expect(dataOffset % WeightsFormat.alignment == 0)
    }

    @Test func refusesWrongMagic() throws {
        var bytes = WeightsFormat.encode(try tinyModel())
        bytes[0] = UInt8(ascii: "X")
        #expect(throws: ModelError.notAWeightsFile(found: "XFWF")) { try WeightsFormat.decode(bytes) }
    }

    @Test func refusesOtherVersions() throws {
        var bytes = WeightsFormat.encode(try tinyModel())
        bytes[4] = 2
        #expect(throws: ModelError.unsupportedVersion(found: 2, supported: 1)) { try WeightsFormat.decode(bytes) }
    }

    @Test func refusesEveryTruncation() throws {
        let bytes = WeightsFormat.encode(try tinyModel())
        for n in 0..<bytes.count {
            #expect(throws: ModelError.self) { try WeightsFormat.decode(Array(bytes.prefix(n))) }
        }
    }

    @Test func refusesEveryFlippedByteAfterTheHeader() throws {
        let bytes = WeightsFormat.encode(try tinyModel())
        for i in 48..<bytes.count {
            var corrupt = bytes
            corrupt[i] ^= 0x5a
            #expect(throws: ModelError.self) { try WeightsFormat.decode(corrupt) }
        }
    }

    @Test func refusesMissingFile() {
        #expect(throws: ModelError.self) { try WeightsFormat.read(contentsOf: "/nonexistent/weights.bin") }
    }
}

@Suite struct NetworkTests {
    @Test func runsTheGraph() throws {
        let network = try Network(model: try tinyModel())
        #expect(network.inputShapes == [Shape([1, 1, 2, 2])])
        #expect(network.outputShapes == [Shape([1, 6])])
        let x = try Tensor(shape: Shape([1, 1, 2, 2]), scalars: [1, 2, 3, 4])
        // Per pixel (a, b): relu(a + 0.5), relu(b - 0.5), relu(b - a).
        #expect(try network([x])[0].scalars == [1.5, 1.5, 1, 3.5, 3.5, 1])
    }

    /// A network sharing another's weights has its own activations: runs on different inputs,
    /// interleaved, leave each with its own outputs.
    @Test func sharingWeightsKeepsActivationsApart() throws {
        let first = try Network(model: try tinyModel())
        let second = try first.sharingWeights()
        #expect(second.inputShapes == first.inputShapes && second.outputShapes == first.outputShapes)
        _ = first.input().update(fromContentsOf: [1, 2, 3, 4] as [Float])
        _ = second.input().update(fromContentsOf: [4, 3, 2, 1] as [Float])
        first.run()
        second.run()
        #expect(Array(first.output(0)) == [1.5, 1.5, 1, 3.5, 3.5, 1])
        // Per pixel (a, b): relu(a + 0.5), relu(b - 0.5), relu(b - a).
        #expect(Array(second.output(0)) == [4.5, 2.5, 0, 2.5, 0.5, 0])
    }

    @Test func refusesUnknownOperators() throws {
        var model = try tinyModel()
        model.nodes[1].op = "GELU"
        #expect(throws: ModelError.unknownOperator(op: "GELU", node: 1)) { try Network(model: model) }
    }

    @Test func refusesUndefinedInputs() throws {
        var model = try tinyModel()
        model.nodes[2].inputs = ["nowhere"]
        #expect(throws: ModelError.missingValue(name: "nowhere", node: 2)) { try Network(model: model) }
    }

    @Test func refusesWeightsOfTheWrongShape() throws {
        var model = try tinyModel()
        model.tensors[1] = ("b", try Tensor(shape: Shape([4]), scalars: [0, 0, 0, 0]))
        #expect(throws: ModelError.self) { try Network(model: model) }
        model = try tinyModel()
        model.nodes[0].attributes["shape"] = [1, 1, 2, 5]   // 5 channels into a 2-channel conv
        #expect(throws: ModelError.self) { try Network(model: model) }
    }

    @Test func refusesBadAttributes() throws {
        var model = try tinyModel()
        model.nodes[1].attributes["padding"] = [7]
        #expect(throws: ModelError.self) { try Network(model: model) }
        model = try tinyModel()
        model.nodes[1].attributes["stride"] = [0, 1]
        #expect(throws: ModelError.self) { try Network(model: model) }
        model = try tinyModel()
        model.nodes[1].attributes["activation"] = [4]   // TANH is not a fused activation we run
        #expect(throws: ModelError.self) { try Network(model: model) }
    }
}

/// The committed short-range weights: provenance and the layer list the exporter wrote.
@Suite struct CommittedWeightsTests {
    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Weights/face_detection_short_range.bin").path

    @Test func recordsItsSourceAndGraph() throws {
        let model = try WeightsFormat.read(contentsOf: Self.path)
        #expect(model.metadata("source") == "face_detection_short_range.tflite")
        #expect(model.metadata("source_sha256") == "bbff11cebd1eb27a1e004cae0b0e63ec8c551cbf34a4451148b4908b8db3eca8")
        // The TFLite graph's 164 operators less its 74 DEQUANTIZE nodes, plus INPUT and OUTPUT.
        var counts: [String: Int] = [:]
        model.nodes.forEach { counts[$0.op, default: 0] += 1 }
        #expect(counts == ["INPUT": 1, "CONV_2D": 21, "DEPTHWISE_CONV_2D": 16, "ADD": 16, "RELU": 17, "PAD": 11,
                           "MAX_POOL_2D": 3, "RESHAPE": 4, "CONCATENATION": 2, "OUTPUT": 1])
        #expect(model.tensors.count == 74)
        let network = try Network(model: model)
        #expect(network.inputShapes == [Shape([1, 128, 128, 3])])
        #expect(network.outputShapes == [Shape([1, 896, 16]), Shape([1, 896, 1])])
    }

    /// Fusion, the SIMD kernels and the memory plan change nothing: the optimised network and
    /// the file's graph run through the reference loops give identical outputs.
    @Test func optimisedNetworkEqualsReferenceGraph() throws {
        let model = try WeightsFormat.read(contentsOf: Self.path)
        let fast = try Network(model: model)
        let reference = try Network(model: model, options: .reference)
        #expect(fast.layers.count < reference.layers.count)   // fusion happened
        var state: UInt64 = 7
        let input = try Tensor(shape: Shape([1, 128, 128, 3]), scalars: (0..<128 * 128 * 3).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Float(Int(state >> 40) % 2001 - 1000) / 1000
        })
        let a = try fast([input]), b = try reference([input])
        #expect(a == b)
        #expect(try fast([input]) == a)   // and running again on reused buffers changes nothing
    }

    /// Two threads, run after run on changing inputs: the workers park when a run ends and
    /// wake for the next, and every run equals the one-thread network's.
    @Test func twoThreadsParkBetweenRunsAndAgree() throws {
        let model = try WeightsFormat.read(contentsOf: Self.path)
        let one = try Network(model: model), two = try Network(model: model, options: Network.Options(threadPool: ThreadPool(threads: 2)))
        var state: UInt64 = 3
        for _ in 0..<4 {
            let input = try Tensor(shape: Shape([1, 128, 128, 3]), scalars: (0..<128 * 128 * 3).map { _ in
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return Float(Int(state >> 40) % 2001 - 1000) / 1000
            })
            #expect(try two([input]) == (try one([input])))
        }
    }

    /// Many more threads than cores, and two such networks run at once from two threads (issue
    /// 23): the pool starts at most `AvailableCores.count` threads, work goes to whichever
    /// thread claims it, and every run equals the one-thread network's.
    @Test func oversubscribedNetworksRunConcurrentlyAndAgree() throws {
        #expect((1...max(ProcessInfo.processInfo.activeProcessorCount, 1)).contains(AvailableCores.count))
        let model = try WeightsFormat.read(contentsOf: Self.path)
        let input = try Tensor(shape: Shape([1, 128, 128, 3]), scalars: (0..<128 * 128 * 3).map { Float($0 % 255) / 127.5 - 1 })
        let expected = try Network(model: model)([input])
        // Each lane runs only its own network.
        let networks = Locked(try (0..<2).map { _ in try Network(model: model, options: Network.Options(threadPool: ThreadPool(threads: 16))) })
        let results = Locked([[Tensor]]())
        DispatchQueue.concurrentPerform(iterations: 2) { lane in
            let network = networks.values[lane]
            for _ in 0..<5 { if let out = try? network([input]) { results.append(out) } }
        }
        #expect(results.values.count == 10)
        #expect(results.values.allSatisfy { $0 == expected })
    }

    /// The blendshape model's eight layer norms fuse into LAYER_NORM nodes (ten operators
    /// each), and the fused network equals the reference graph (every
    /// operator as the file lists it, reference kernels) bit for bit on random landmarks.
    @Test func blendshapeLayerNormsFuseAndEqualReferenceGraph() throws {
        let path = Self.path.replacingOccurrences(of: "face_detection_short_range", with: "face_blendshapes")
        let model = try WeightsFormat.read(contentsOf: path)
        let fast = try Network(model: model), reference = try Network(model: model, options: .reference)
        #expect(fast.layers.filter { $0.node.op == "LAYER_NORM" }.count == 8)
        #expect(!fast.layers.contains { ["NEG", "RSQRT", "SQUARED_DIFFERENCE"].contains($0.node.op) })
        var state: UInt64 = 5
        for _ in 0..<3 {
            let input = try Tensor(shape: Shape([1, 146, 2]), scalars: (0..<146 * 2).map { _ in
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return Float(Int(state >> 40) % 2001) / 2000 * 256
            })
            #expect(try fast([input]) == (try reference([input])))
        }
    }

    /// A network's pool (`parallelFor`, which the letterbox runs on) hands out every unit
    /// exactly once, whatever the thread count and however the threads' claims interleave:
    /// 1 to 300 units over 1 to 4 threads.
    @Test func parallelForCoversEveryUnitOnce() throws {
        let model = try WeightsFormat.read(contentsOf: Self.path)
        for threads in 1...4 {
            let network = try Network(model: model, options: Network.Options(threadPool: ThreadPool(threads: threads)))
            for units in [1, 2, 3, 7, 31, 128, 300] {
                let counts = UnsafeMutableBufferPointer<Int>.allocate(capacity: units)
                defer { counts.deallocate() }
                counts.initialize(repeating: 0)
                // Disjoint ranges, so no two threads write the same count.
                network.threadPool.parallelFor(units: units) { range in for u in range { counts[u] += 1 } }
                #expect(counts.allSatisfy { $0 == 1 }, "threads \(threads), units \(units)")
            }
        }
    }

    /// The same for the full-range model (pruned weights run by the SpMM kernels, resize,
    /// depth-to-space, folded pads, fused depthwise + pointwise blocks), at one and two
    /// threads: bit-identical.
    @Test func optimisedFullRangeNetworkEqualsReferenceGraph() throws {
        let path = Self.path.replacingOccurrences(of: "short_range", with: "full_range")
        let model = try WeightsFormat.read(contentsOf: path)
        let reference = try Network(model: model, options: .reference)
        var state: UInt64 = 11
        let input = try Tensor(shape: Shape([1, 192, 192, 3]), scalars: (0..<192 * 192 * 3).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Float(Int(state >> 40) % 2001 - 1000) / 1000
        })
        let expected = try reference([input])
        for threads in [1, 2] {
            let fast = try Network(model: model, options: Network.Options(threadPool: ThreadPool(threads: threads)))
            #expect(fast.layers.contains { $0.node.op == "DEPTHWISE_POINTWISE" })
            #expect(try fast([input]) == expected)
        }
    }
}

/// An array several threads append to.
private final class Locked<Element>: @unchecked Sendable {
    private var storage: [Element]
    private let lock = NSLock()
    init(_ values: [Element]) { storage = values }
    func append(_ value: Element) { lock.withLock { storage.append(value) } }
    var values: [Element] { lock.withLock { storage } }
}
