import CProcessor
import Foundation
import Synchronization

/// The threads that run work in parallel: one pool, owned by the caller and passed down to
/// everything that runs work in parallel (a network's layers, the letterbox, the face lanes,
/// the redactor's regions, a batch of images), as XNNPACK's operators borrow the caller's
/// pthreadpool and swift-nio's handlers an `EventLoopGroup`.
///
/// A pool of `threads` threads runs a job on the calling thread and `threads - 1` workers. A
/// network runs ~70 short layers per frame, so waking workers through the kernel for each
/// would cost more than the layers: after a job, workers spin for a short while, yielding the
/// core to any other runnable thread as they do, then sleep on a condition variable (at once
/// after `park()`).
///
/// One job runs at a time. A job started while the pool is busy (by another thread, or from
/// inside a job: a network run by one of the face lanes) runs on the calling thread alone, so
/// nesting never deadlocks and never starts more threads than the pool has. Every chunk
/// computes the same values whichever thread runs it, so results never depend on the pool.
/// A pool's deinit waits for its workers to stop: let go of the last reference outside its
/// own jobs (the owner that made it, as usual).
public final class ThreadPool: @unchecked Sendable {
    /// The pool for when the caller has not made one: the cores this process may use
    /// (`AvailableCores`), at most 4, past which these models' layers are too small to share.
    /// Its threads start on its first parallel job.
    public static let shared = ThreadPool(threads: AvailableCores.automatic(cap: 4))
    /// A pool without workers: every job runs on the calling thread.
    public static let inline = ThreadPool(threads: 1)

    /// Threads that run a job, the caller's included (1...64, and at most `AvailableCores.count`).
    public let threads: Int
    private let state: PoolState
    /// Whether the workers run; written only by the thread holding the pool.
    nonisolated(unsafe) private var workersStarted = false

    /// A pool of `threads` threads, the calling thread included: clamped to 1...64 and to the
    /// cores this process may use (more would only wait for each other's cores). The workers
    /// start with the first job that needs them.
    public init(threads: Int) {
        self.threads = max(1, min(threads, 64, AvailableCores.count))
        state = PoolState(workers: self.threads - 1)
    }

    deinit { state.shutdown() }

    /// Starts the workers if they have not started; called only by the thread holding the pool.
    private func startWorkers() {
        guard !workersStarted else { return }
        workersStarted = true
        state.launched(threads - 1)
        for index in 1..<threads {
            let state = state
            let thread = Thread { state.workerLoop(index: index) }
            thread.name = "BlazeThreads.worker\(index)"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// Runs `body` over `0..<units` cut into one contiguous chunk per thread (at most
    /// `threads`, at most 42), each called as `body(range, thread)` with `thread` in
    /// `0..<threads` (for per-thread scratch: no two calls at once share it); returns when
    /// every chunk is done. Each thread takes its own chunk first, so that the rows a thread
    /// made in one layer are the rows it reads in the next, in its own cache; a thread that is
    /// late (asleep, or not scheduled) leaves its chunk to the first one done. With one
    /// thread, one unit, or the pool busy: one call, `body(0..<units, 0)`, on this thread.
    public func forEachChunk(units: Int, _ body: (Range<Int>, _ thread: Int) -> Void) {
        guard units > 0 else { return }
        guard threads > 1, units > 1, state.acquire() else { return body(0..<units, 0) }
        startWorkers()
        withoutActuallyEscaping(body) { state.dispatch(units: units, $0) }
        state.release()
    }

    /// Runs `body` over `0..<units` in small contiguous ranges that the threads claim as they
    /// go, and returns when all are done: for work whose cost per unit varies, or that starts
    /// while the workers may still be asleep (one takes 30 to 80 µs to wake on a virtual
    /// machine, and the caller gets on with the units meanwhile). With one thread, fewer units
    /// than threads, or the pool busy: one call on this thread.
    public func parallelFor(units: Int, _ body: (Range<Int>) -> Void) {
        guard units > 0 else { return }
        guard threads > 1, units >= threads, state.acquire() else { return body(0..<units) }
        startWorkers()
        let grain = max(1, units / (threads * 8))
        state.nextUnit.store(0, ordering: .relaxed)   // published to the workers by the dispatch
        withoutActuallyEscaping(body) { body in
            state.dispatch(units: threads) { _, _ in
                while case let start = self.state.nextUnit.wrappingAdd(grain, ordering: .relaxed).oldValue, start < units {
                    body(start..<min(start + grain, units))
                }
            }
        }
        state.release()
    }

    /// Runs `body(index, lane)` for every index in `0..<count`, `lanes` at a time (at most
    /// `threads`): each lane takes the next index as soon as it is done with one, so a slow
    /// item holds up no other, and a lane's calls never overlap (per-lane state, such as a
    /// detector of its own, needs no lock). With one lane, or the pool busy: every index in
    /// order on this thread, as lane 0.
    public func forEach(count: Int, lanes: Int, _ body: (_ index: Int, _ lane: Int) -> Void) {
        guard count > 0 else { return }
        let lanes = min(lanes, threads, count)
        guard lanes > 1, state.acquire() else {
            for index in 0..<count { body(index, 0) }
            return
        }
        startWorkers()
        state.nextUnit.store(0, ordering: .relaxed)
        withoutActuallyEscaping(body) { body in
            state.dispatch(units: lanes) { range, _ in
                for lane in range {
                    while case let index = self.state.nextUnit.wrappingAdd(1, ordering: .relaxed).oldValue, index < count {
                        body(index, lane)
                    }
                }
            }
        }
        state.release()
    }

    /// Sends the workers to sleep now instead of after their spin: the caller has no more
    /// work for them for a while (a network run ended), and spinning would take a core from
    /// whatever runs next. The next job wakes them.
    public func park() { state.park() }

    /// Whether a job is running on the pool now (a job started meanwhile runs on its caller).
    package var isBusy: Bool { state.isBusy }
}

/// The state the workers share; separate from `ThreadPool` so that threads do not keep the
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
    private let started = Atomic<Int>(0)
    /// Set by `park()`, cleared by the next dispatch: spinning workers go to sleep at once.
    private let parked = Atomic<Bool>(false)
    /// Workers asleep on `condition` (or about to be): a dispatch signals only when some are.
    private let sleepers = Atomic<Int>(0)
    /// Whether a job holds the pool (one at a time).
    private let busy = Atomic<Bool>(false)
    /// The next unclaimed unit of the current `parallelFor` or `forEach` job.
    let nextUnit = Atomic<Int>(0)
    private let condition = NSCondition()
    /// The current job; written by the dispatching thread before the ticket is published.
    nonisolated(unsafe) private var job: ((Range<Int>, Int) -> Void)?
    nonisolated(unsafe) private var units = 0

    init(workers: Int) { self.workers = workers }

    var isBusy: Bool { busy.load(ordering: .relaxed) }

    /// Takes the pool for one job; false if another job holds it.
    func acquire() -> Bool {
        busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged
    }

    func release() { busy.store(false, ordering: .releasing) }

    private static func generation(_ t: UInt64) -> UInt64 { t >> 48 }
    private static func chunks(_ t: UInt64) -> Int { Int((t >> 42) & 63) }

    func dispatch(units: Int, _ work: @escaping (Range<Int>, Int) -> Void) {
        let chunks = min(units, workers + 1, 42)
        job = work
        self.units = units
        // The next generation (only the thread holding the pool writes the ticket's generation).
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
            if let work = job {
                let lower = units * chunk / chunks, upper = units * (chunk + 1) / chunks
                if lower < upper { work(lower..<upper, index) }
            }
            done.wrappingAdd(1, ordering: .releasing)
        }
    }

    /// Counts workers launched, before they start: `shutdown` waits for them all.
    func launched(_ count: Int) { started.store(count, ordering: .releasing) }

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
        // Only the workers that were started (they start with the first parallel job).
        while exited.load(ordering: .acquiring) < started.load(ordering: .acquiring) { usleep(50) }
    }
}
