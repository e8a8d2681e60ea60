import Foundation

/// Runs `work` on items with N worker threads, each with its own state (one detector per
/// worker), and hands the results to `emit` on the calling thread in input order, each as soon
/// as it and all before it are done.
enum OrderedBatch {
    static func run<State, Output>(count: Int, jobs: Int, makeState: () throws -> State,
                                   work: @escaping @Sendable (inout State, Int) -> Output,
                                   emit: (Int, Output) -> Void) rethrows {
        if jobs <= 1 || count <= 1 {
            var state = try makeState()
            for i in 0..<count { emit(i, work(&state, i)) }
            return
        }
        let workers = min(jobs, count)
        let states = try (0..<workers).map { _ in try makeState() }   // fail before starting threads
        let shared = Shared<Output>(count: count)
        for w in 0..<workers {
            let box = UnsafeSendable(value: states[w])
            let thread = Thread {
                var state = box.value
                while let i = shared.next() { shared.finish(i, work(&state, i)) }
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
        for i in 0..<count { emit(i, shared.wait(for: i)) }
    }

    /// The queue of indices and the finished results, under one condition lock.
    private final class Shared<Output>: @unchecked Sendable {
        private let condition = NSCondition()
        private var nextIndex = 0
        private let count: Int
        private var results: [Output?]

        init(count: Int) {
            self.count = count
            results = Array(repeating: nil, count: count)
        }

        func next() -> Int? {
            condition.lock(); defer { condition.unlock() }
            guard nextIndex < count else { return nil }
            nextIndex += 1
            return nextIndex - 1
        }

        func finish(_ i: Int, _ output: Output) {
            condition.lock()
            results[i] = output
            condition.broadcast()
            condition.unlock()
        }

        func wait(for i: Int) -> Output {
            condition.lock(); defer { condition.unlock() }
            while true {
                if let output = results[i] {
                    results[i] = nil   // free it once printed
                    return output
                }
                condition.wait()
            }
        }
    }

    /// Moves a per-worker value into its thread; only that thread uses it afterwards.
    private struct UnsafeSendable<T>: @unchecked Sendable { let value: T }
}
