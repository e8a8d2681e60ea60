import BlazeTensor
import CProcessor
import Foundation
import Synchronization

/// Persistent worker threads that share one layer's work with the calling thread.
///
/// A network runs ~70 short layers per frame, so waking threads through the kernel for each
/// would cost more than the layers: after a job, workers spin for a short while, yielding the
/// core to any other runnable thread as they do, then sleep on a condition variable (at once
/// when the network run ends, `park`).
///
/// A job's units (output rows) are cut into contiguous chunks that the threads claim one at a
/// time, the caller included, and the caller waits only for chunks already claimed: a worker
/// that is asleep, or that the scheduler has not run (more threads than free cores), takes no
/// share, so it holds nothing up. Every chunk computes the same values whichever thread runs it,
/// so every thread count gives the same results bit for bit.
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

    /// Runs `work` split across the threads, thread `t` with scratch at `scratch + t * scratchStride`;
    /// returns when every unit is done.
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
    /// The current job's claim ticket: its generation (bits 48...63), its chunk count (42...47)
    /// and one bit per chunk claimed (0...41). One word, so that a claim (compare-and-swap) can
    /// only take a chunk of the generation the claimer joined.
    private let ticket = Atomic<UInt64>(0)
    /// Chunks of the current job finished.
    private let done = Atomic<Int>(0)
    private let stopping = Atomic<Bool>(false)
    private let exited = Atomic<Int>(0)
    /// Set by `park()`, cleared by the next dispatch: spinning workers go to sleep at once.
    private let parked = Atomic<Bool>(false)
    /// Workers asleep on `condition` (or about to be): a dispatch signals only when some are.
    private let sleepers = Atomic<Int>(0)
    private let condition = NSCondition()
    /// The current job; written by the dispatching thread before the ticket is published.
    nonisolated(unsafe) private var job: BoundWork?
    nonisolated(unsafe) private var scratch: UnsafeMutablePointer<Float>?
    nonisolated(unsafe) private var scratchStride = 0

    init(workers: Int) { self.workers = workers }

    private static func generation(_ t: UInt64) -> UInt64 { t >> 48 }
    private static func chunks(_ t: UInt64) -> Int { Int((t >> 42) & 63) }

    func dispatch(_ work: BoundWork, scratch: UnsafeMutablePointer<Float>, stride: Int) {
        // One chunk per thread, so that each thread's rows of one layer are the rows it made in
        // the layer before, in its own cache; a thread that is late (asleep, or not scheduled)
        // leaves its chunk to the first thread done with its own.
        let chunks = min(work.units, workers + 1, 42)
        job = work
        self.scratch = scratch
        scratchStride = stride
        // The next generation (only this thread writes the ticket's generation).
        let generation = (Self.generation(ticket.load(ordering: .relaxed)) + 1) & 0xFFFF
        done.store(0, ordering: .relaxed)
        parked.store(false, ordering: .relaxed)
        // Sequentially consistent with the sleepers' count (a worker adds itself, then reads
        // the ticket): either this sees the sleeper, or the sleeper sees the new ticket.
        ticket.store(generation << 48 | UInt64(chunks) << 42, ordering: .sequentiallyConsistent)
        if sleepers.load(ordering: .sequentiallyConsistent) > 0 {
            condition.lock()
            condition.broadcast()
            condition.unlock()
        }
        claimChunks(generation: generation, index: 0)
        // Wait for the chunks others claimed; yield the core to them if they are not running.
        var spins = 0
        while done.load(ordering: .acquiring) < chunks {
            spins += 1
            if spins < 64 { bf_spin_pause() } else { sched_yield() }
        }
        job = nil
    }

    /// Claims and runs chunks of `generation` until none is left (or a newer job replaced it):
    /// thread `index`'s own chunk first, then any unclaimed one.
    private func claimChunks(generation: UInt64, index: Int) {
        var home = true
        while true {
            let t = ticket.load(ordering: .acquiring)
            guard Self.generation(t) == generation else { return }
            let chunks = Self.chunks(t)
            let free = ~t & ((1 << UInt64(chunks)) - 1)
            guard free != 0 else { return }
            let chunk = home && index < chunks && free & (1 << UInt64(index)) != 0 ? index : free.trailingZeroBitCount
            home = false
            guard ticket.compareExchange(expected: t, desired: t | 1 << UInt64(chunk), ordering: .acquiringAndReleasing).exchanged else {
                home = chunk == index
                continue
            }
            // The job stays as it is until this claimed chunk is done.
            if let work = job, let scratch {
                let lower = work.units * chunk / chunks, upper = work.units * (chunk + 1) / chunks
                if lower < upper { work.run(lower..<upper, scratch + index * scratchStride) }
            }
            done.wrappingAdd(1, ordering: .releasing)
        }
    }

    func workerLoop(index: Int) {
        var seen: UInt64 = 0
        let clock = ContinuousClock()
        while true {
            // Spin for a while: the next layer usually comes within microseconds. The first
            // microseconds on the core alone (a layer waits for the slowest thread to notice
            // it); then yielding the core on every round, so that a spinning worker never keeps
            // it from a thread that has work; then asleep.
            let start = clock.now
            let yieldAfter = start.advanced(by: .microseconds(20)), sleepAfter = start.advanced(by: .microseconds(200))
            var spins = 0
            while Self.generation(ticket.load(ordering: .acquiring)) == seen && !stopping.load(ordering: .relaxed) {
                spins += 1
                if spins & 63 == 0 || spins > 4096 {
                    if parked.load(ordering: .relaxed) { break }
                    let now = clock.now
                    if now > sleepAfter { break }
                    if now > yieldAfter { sched_yield(); continue }
                }
                bf_spin_pause()
            }
            if Self.generation(ticket.load(ordering: .acquiring)) == seen && !stopping.load(ordering: .relaxed) {
                condition.lock()
                sleepers.wrappingAdd(1, ordering: .sequentiallyConsistent)
                while Self.generation(ticket.load(ordering: .sequentiallyConsistent)) == seen
                    && !stopping.load(ordering: .relaxed) {
                    condition.wait()
                }
                sleepers.wrappingSubtract(1, ordering: .relaxed)
                condition.unlock()
            }
            if stopping.load(ordering: .acquiring) { break }
            seen = Self.generation(ticket.load(ordering: .acquiring))
            claimChunks(generation: seen, index: index)
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
