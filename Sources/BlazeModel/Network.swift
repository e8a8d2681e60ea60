import BlazeTensor
import BlazeThreads

/// A layer graph bound to buffers: built once from a `ModelFile`, then run many times.
///
/// Building checks the graph (every input defined before use, every shape consistent),
/// fuses what it can, packs the weights into each operator, and places every value in one
/// arena where values whose lifetimes do not overlap share memory. Running writes the input
/// buffer, executes the bound steps in order and leaves the outputs in place; it allocates
/// nothing. A network is not safe to run from two threads at once. It owns no threads: it
/// borrows the `ThreadPool` its options name, as XNNPACK's operators borrow the caller's.
public final class Network {
    /// Shapes of the graph's inputs and outputs, in declaration order.
    public let inputShapes: [Shape]
    /// Shapes of the graph's outputs, in declaration order (the buffers of `output(_:)`).
    public let outputShapes: [Shape]
    /// The operators in execution order, with the values they read and write (for `describe`).
    public let layers: [(node: Node, shape: Shape)]

    /// Bytes of activation memory, all values together after reuse (see `MemoryPlan`).
    public let arenaBytes: Int
    /// The operators with their packed weights (read-only; shared by `sharingWeights()`).
    private let plan: GraphPlan
    private let arena: UnsafeMutableRawPointer
    private let scratch: UnsafeMutablePointer<Float>
    private let scratchStride: Int
    /// The threads its layers are shared over (borrowed, not owned).
    public let threadPool: ThreadPool
    /// Layers with fewer multiply-adds than this run on the calling thread alone: sharing them
    /// would cost more in synchronisation than it saves.
    private static let parallelThreshold = 40_000
    private let buffers: [UnsafeMutablePointer<Float>]
    private let inputIndices: [Int]
    private let outputIndices: [Int]
    private let steps: [BoundWork]

    /// How a network is built: fusion on or off, fastest or reference kernels, the precision.
    /// In float32 every combination gives identical outputs; `reference` with no fusion runs
    /// the graph exactly as the file lists it, through the plain loops.
    public struct Options: Sendable {
        /// Whether to fold elementwise work into the operators that feed it (bit-identical).
        public var fuse: Bool
        /// The vectorised kernels (`.fastest`) or the plain loops (`.reference`).
        public var kernels: KernelChoice
        /// The threads that share each large layer (`ThreadPool.inline`: the calling thread
        /// alone). Results do not depend on it.
        public var threadPool: ThreadPool
        /// The convolutions' arithmetic (`Precision`): float32, the reference's, by default.
        public var precision: Precision
        /// Fusion on, fastest kernels, the calling thread alone and float32 by default.
        public init(fuse: Bool = true, kernels: KernelChoice = .fastest, threadPool: ThreadPool = .inline,
                    precision: Precision = .float32) {
            (self.fuse, self.kernels, self.threadPool, self.precision) = (fuse, kernels, threadPool, precision)
        }
        /// No fusion, reference kernels: the graph as the file lists it, through the plain loops.
        public static let reference = Options(fuse: false, kernels: .reference)
    }

    /// Checks, fuses (if asked) and binds `model`'s graph; throws for a CPU this build cannot
    /// run on or for a graph it cannot plan.
    public convenience init(model: ModelFile, options: Options = Options()) throws(ModelError) {
        // Before any kernel runs: a build for a newer CPU would die on an illegal instruction.
        if let message = BuildTarget.unsupportedCPUMessage { throw .unsupportedCPU(message) }
        let weights = Dictionary(model.tensors.map { ($0.name, $0.tensor) }, uniquingKeysWith: { a, _ in a })
        // Fusion is an optimisation: if a fused node cannot be planned (say a pooled skip of
        // odd size), the graph is planned as the file lists it, which also gives the true error.
        let plan: GraphPlan
        if options.fuse, let fused = try? GraphPlan(
            nodes: Fusion.apply(model.nodes, weightShape: options.kernels == .fastest ? { weights[$0]?.shape } : { _ in nil }),
            weights: weights, kernels: options.kernels, precision: options.precision) {
            plan = fused
        } else {
            plan = try GraphPlan(nodes: model.nodes, weights: weights, kernels: options.kernels, precision: options.precision)
        }
        try self.init(plan: plan, threadPool: options.threadPool)
    }

    /// A second network on this one's packed weights, with its own activations (and the same pool):
    /// the same model run on two inputs at once keeps one copy of its weights in memory and in
    /// the shared cache. Outputs are identical to this network's.
    public func sharingWeights() throws(ModelError) -> sending Network {
        try Network(plan: plan, threadPool: threadPool)
    }

    /// A network on this one's packed weights (shared, not copied) planned for other input
    /// shapes, with its own activations and the same pool: a fully convolutional model (such
    /// as CenterFace) run at any input size. Throws where a layer does not fit the new shapes.
    public func planned(inputShapes: [Shape]) throws(ModelError) -> sending Network {
        try Network(plan: plan.reshaped(inputShapes: inputShapes), threadPool: threadPool)
    }

    private init(plan: GraphPlan, threadPool: ThreadPool) throws(ModelError) {
        let threads = threadPool.threads
        let memory = MemoryPlan(plan)
        let arena = UnsafeMutableRawPointer.allocate(byteCount: max(memory.byteCount, 64), alignment: 64)
        arena.initializeMemory(as: UInt8.self, repeating: 0, count: max(memory.byteCount, 64))
        let buffers = memory.offsets.map { (arena + $0).assumingMemoryBound(to: Float.self) }
        var steps: [BoundWork] = []
        for (op, ins, outs) in plan.operators {
            do {
                steps.append(try op.bind(inputs: ins.map { UnsafePointer(buffers[$0]) },
                                         shapes: ins.map { plan.shapes[$0] }, outputs: outs.map { buffers[$0] }))
            } catch {
                arena.deallocate()
                throw .malformed(error.description)
            }
        }
        self.plan = plan
        self.arena = arena
        self.arenaBytes = memory.byteCount
        self.threadPool = threadPool
        // Scratch: one slot per thread, as large as the hungriest operator asks.
        // Each slot starts on a cache line: kernels store whole vectors there (the depthwise
        // half of DEPTHWISE_POINTWISE writes its rows to it), and a store across two lines costs double.
        let stride = ((steps.map(\.scratchFloats).max() ?? 0) + kernelSlack + 15) / 16 * 16
        self.scratchStride = stride
        self.scratch = UnsafeMutableRawPointer.allocate(byteCount: stride * threads * 4, alignment: 64)
            .bindMemory(to: Float.self, capacity: stride * threads)
        self.scratch.initialize(repeating: 0, count: stride * threads)
        self.buffers = buffers
        self.steps = steps
        self.inputIndices = plan.inputs
        self.outputIndices = plan.outputs
        self.inputShapes = plan.inputs.map { plan.shapes[$0] }
        self.outputShapes = plan.outputs.map { plan.shapes[$0] }
        self.layers = plan.layers
    }

    deinit {
        arena.deallocate()
        UnsafeMutableRawPointer(scratch).deallocate()
    }

    /// The buffer of input `i`: write the input here, then call `run()`.
    public func input(_ i: Int = 0) -> UnsafeMutableBufferPointer<Float> {
        UnsafeMutableBufferPointer(start: buffers[inputIndices[i]], count: inputShapes[i].count)
    }

    /// The buffer of output `i`, valid until the next `run()`.
    public func output(_ i: Int) -> UnsafeBufferPointer<Float> {
        UnsafeBufferPointer(start: buffers[outputIndices[i]], count: outputShapes[i].count)
    }

    /// Runs every layer once on the current input buffers: a layer large enough to share is
    /// cut into one chunk per thread of the pool, unless the pool is busy with other work (a
    /// network run from one of its lanes), when the whole run stays on this thread.
    public func run() {
        let pool = threadPool
        let threads = pool.threads
        guard threads > 1, !pool.isBusy else {
            for step in steps { step(scratch: scratch) }
            return
        }
        let (scratch, stride) = (scratch, scratchStride)
        for step in steps {
            if step.units >= threads, step.units * step.costPerUnit >= Self.parallelThreshold {
                pool.forEachChunk(units: step.units) { range, thread in step.run(range, scratch + thread * stride) }
            } else {
                step(scratch: scratch)
            }
        }
        pool.park()
    }

    /// Median time of each layer over `iterations` runs, with its multiply-add count: the
    /// per-kernel view of a benchmark (GFLOP/s = 2 * macs / seconds).
    package func profileLayers(iterations: Int) -> [(node: Node, shape: Shape, medianSeconds: Double, macs: Int)] {
        let clock = ContinuousClock()
        var samples = [[Double]](repeating: [], count: steps.count)
        for _ in 0..<max(iterations, 1) {
            for (i, step) in steps.enumerated() {
                let start = clock.now
                step(scratch: scratch)
                let d = clock.now - start
                samples[i].append(Double(d.components.attoseconds) / 1e18 + Double(d.components.seconds))
            }
        }
        return steps.indices.map { i in
            let sorted = samples[i].sorted()
            return (layers[i].node, layers[i].shape, sorted[sorted.count / 2], steps[i].units * steps[i].costPerUnit)
        }
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
            "\(node.op.padding(toLength: 20, withPad: " ", startingAt: 0)) \(node.inputs.joined(separator: ", ")) -> \(shape)"
        }.joined(separator: "\n")
    }
}
