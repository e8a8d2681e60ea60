import Foundation

/// Results of lanes in input order: what a batch of photos, a frame's search regions and a
/// picture's faces all need when their items run side by side but their outputs must come out
/// as if run one after another (a merge that sees them in the same order whichever lane ran
/// which; lines printed in input order).
extension ThreadPool {
    /// `forEach(count:lanes:)` with a result per index: `work(index, lane)` for every index,
    /// each result handed to `emit(index, result)` in index order as soon as it and all before
    /// it are done (on the lane that finished the last of them, one call at a time).
    public func forEachInOrder<Output>(count: Int, lanes: Int, _ work: (_ index: Int, _ lane: Int) -> Output,
                                       emit: (_ index: Int, _ output: Output) -> Void) {
        let p = Pending<Output>(count: count)
        forEach(count: count, lanes: lanes) { index, lane in
            let output = work(index, lane)
            p.lock.withLock {
                p.finished[index] = output
                while p.next < count, let ready = p.finished[p.next].take() {
                    emit(p.next, ready)
                    p.next += 1
                }
            }
        }
    }

    /// `forEachInOrder(count:lanes:_:emit:)` with a state of each lane's own (a detector, a
    /// network's buffers): `min(threads, count)` of them, at least one, all made before any work
    /// starts, so that a failure to make one stops the run first. `work(&state, index)`.
    public func forEachInOrder<State, Output>(count: Int, makeState: () throws -> State, _ work: (_ state: inout State, _ index: Int) -> Output,
                                              emit: (_ index: Int, _ output: Output) -> Void) rethrows {
        let lanes = min(threads, count)
        var states = try (0..<max(lanes, 1)).map { _ in try makeState() }
        states.withUnsafeMutableBufferPointer { states in
            forEachInOrder(count: count, lanes: lanes, { index, lane in work(&states[lane], index) }, emit: emit)
        }
    }

    /// The results of `work(index, lane)` for every index in `0..<count`, in index order, the
    /// indices run as `forEach(count:lanes:)` runs them.
    public func map<Output>(count: Int, lanes: Int, _ work: (_ index: Int, _ lane: Int) -> Output) -> [Output] {
        var results: [Output] = []
        results.reserveCapacity(count)
        forEachInOrder(count: count, lanes: lanes, work) { _, output in results.append(output) }
        return results
    }
}

/// The finished results not yet handed on, and the index of the next to hand on, under `lock`.
private final class Pending<Output> {
    let lock = NSLock()
    var finished: [Output?]
    var next = 0
    init(count: Int) { finished = Array(repeating: nil, count: count) }
}
