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
        states.withUnsafeMutableBufferPointer { states in
            pool.forEachInOrder(count: count, lanes: lanes, { i, lane in work(&states[lane], i) }, emit: emit)
        }
    }
}
