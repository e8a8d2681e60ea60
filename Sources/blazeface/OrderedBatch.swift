import BlazeFace
import Foundation

/// Runs `work` on items as lanes of the run's thread pool, each lane with its own state (one
/// detector per lane), and hands the results to `emit` in input order, each as soon as it and
/// all before it are done (on whichever lane finished the last of them, one call at a time).
enum OrderedBatch {
    static func run<State, Output>(count: Int, pool: ThreadPool, makeState: () throws -> State,
                                   work: (inout State, Int) -> Output,
                                   emit: (Int, Output) -> Void) rethrows {
        let lanes = min(pool.threads, count)
        // Every lane's state before any work starts: a failure to make one stops the run first.
        var states = try (0..<max(lanes, 1)).map { _ in try makeState() }
        guard lanes > 1 else {
            for i in 0..<count { emit(i, work(&states[0], i)) }
            return
        }
        let order = InOrder<Output>(count: count)
        states.withUnsafeMutableBufferPointer { states in
            pool.forEach(count: count, lanes: lanes) { i, lane in
                let output = work(&states[lane], i)
                order.lock.withLock {
                    order.finished[i] = output
                    // Emit the run of finished items that now continues the output.
                    while order.next < count, let ready = order.finished[order.next].take() {
                        emit(order.next, ready)
                        order.next += 1
                    }
                }
            }
        }
    }

    /// The finished outputs not yet emitted, and the index of the next to emit, under `lock`.
    private final class InOrder<Output> {
        let lock = NSLock()
        var finished: [Output?]
        var next = 0
        init(count: Int) { finished = Array(repeating: nil, count: count) }
    }
}
