import BlazeTensor
import Foundation
import Synchronization

/// Persistent worker threads that share one layer's work with the calling thread.
///
/// A network runs ~70 short layers per frame, so waking threads through the kernel for each
/// would cost more than the layers: workers spin on an atomic generation counter for a short
/// while after each job, and sleep on a condition variable when no job comes or when the
/// network run ends (`park`), so they do not take a core from what runs next. Work is
/// split statically into contiguous unit ranges (output rows), so every thread count gives
/// the same results bit for bit.
final class WorkerPool {
    private let state: PoolState

    /// A pool in which `threads` threads (the caller included) run each job.
    init(threads: Int) {
        state = PoolState(workers: threads - 1)
        for index in 1..<threads {
            let state = state
            let thread = Thread { state.workerLoop(index: index) }
            thread.name = "BlazeModel.worker\(index)"
            thread.start()
        }
    }

    deinit { state.shutdown() }

    var threads: Int { state.workers + 1 }

    /// Runs `work` split across all threads, thread `t` with scratch at `scratch + t * scratchStride`;
    /// returns when every part is done.
    func run(_ work: BoundWork, scratch: UnsafeMutablePointer<Float>, scratchStride: Int) {
        state.dispatch(work, scratch: scratch, stride: scratchStride)
    }

    /// Sends the workers to sleep now instead of after their spin: the caller has no more
    /// layers for a while (a network run ended), and spinning would take a core from whatever
    /// runs next (say, the face lanes after the detector). The next `run` wakes them.
    func park() { state.park() }
}

/// The state the workers share; separate from `WorkerPool` so that threads do not keep the
/// pool alive (its deinit stops them).
private final class PoolState: @unchecked Sendable {
    let workers: Int
    private let generation = Atomic<Int>(0)
    private let finished = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)
    private let exited = Atomic<Int>(0)
    /// Set by `park()`, cleared by the next dispatch: spinning workers go to sleep at once.
    private let parked = Atomic<Bool>(false)
    private let condition = NSCondition()
    /// The current job; written by the dispatching thread before the generation is published.
    nonisolated(unsafe) private var job: BoundWork?
    nonisolated(unsafe) private var scratch: UnsafeMutablePointer<Float>?
    nonisolated(unsafe) private var scratchStride = 0

    init(workers: Int) { self.workers = workers }

    func dispatch(_ work: BoundWork, scratch: UnsafeMutablePointer<Float>, stride: Int) {
        job = work
        self.scratch = scratch
        scratchStride = stride
        finished.store(0, ordering: .relaxed)
        parked.store(false, ordering: .relaxed)
        condition.lock()
        generation.wrappingAdd(1, ordering: .releasing)
        condition.broadcast()
        condition.unlock()
        runShare(of: work, index: 0)
        while finished.load(ordering: .acquiring) < workers {}
        job = nil
    }

    /// Thread `index` of `workers + 1` takes a contiguous slice of the units.
    private func runShare(of work: BoundWork, index: Int) {
        let parts = workers + 1
        let lower = work.units * index / parts, upper = work.units * (index + 1) / parts
        if lower < upper, let scratch { work.run(lower..<upper, scratch + index * scratchStride) }
    }

    func workerLoop(index: Int) {
        var seen = 0
        let clock = ContinuousClock()
        while true {
            // Spin for a while: the next layer usually comes within microseconds.
            let deadline = clock.now.advanced(by: .microseconds(200))
            var spins = 0
            while generation.load(ordering: .acquiring) == seen && !stopping.load(ordering: .relaxed) {
                spins += 1
                if spins & 1023 == 0, parked.load(ordering: .relaxed) || clock.now > deadline { break }
            }
            if generation.load(ordering: .acquiring) == seen && !stopping.load(ordering: .relaxed) {
                condition.lock()
                while generation.load(ordering: .acquiring) == seen && !stopping.load(ordering: .relaxed) {
                    condition.wait()
                }
                condition.unlock()
            }
            if stopping.load(ordering: .acquiring) { break }
            seen = generation.load(ordering: .acquiring)
            if let work = job { runShare(of: work, index: index) }
            finished.wrappingAdd(1, ordering: .releasing)
        }
        exited.wrappingAdd(1, ordering: .releasing)
    }

    func park() { parked.store(true, ordering: .relaxed) }

    func shutdown() {
        condition.lock()
        stopping.store(true, ordering: .releasing)
        condition.broadcast()
        condition.unlock()
        while exited.load(ordering: .acquiring) < workers { usleep(50) }
    }
}
