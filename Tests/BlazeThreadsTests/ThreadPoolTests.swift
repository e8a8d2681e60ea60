import BlazeThreads
import Foundation
import Synchronization
import Testing

/// The pool's contract: every unit or index exactly once, whatever the thread count; a job
/// started inside a job (or while another thread holds the pool) runs on its caller.
@Suite struct ThreadPoolTests {
    /// Counts how often each unit was run, safely from any thread.
    final class Tally: Sendable {
        let counts: Mutex<[Int]>
        init(_ n: Int) { counts = Mutex(Array(repeating: 0, count: n)) }
        func add(_ range: Range<Int>) { counts.withLock { for u in range { $0[u] += 1 } } }
        var all: [Int] { counts.withLock { $0 } }
    }

    @Test(arguments: [1, 2, 3, 8])
    func everyUnitOnceWhateverTheThreads(threads: Int) {
        let pool = ThreadPool(threads: threads)
        #expect((1...max(AvailableCores.count, 1)).contains(pool.threads))
        for units in [1, 2, 3, 7, 64, 1000] {
            let chunks = Tally(units), ranges = Tally(units), indices = Tally(units)
            pool.forEachChunk(units: units) { range, thread in
                #expect((0..<pool.threads).contains(thread))
                chunks.add(range)
            }
            pool.parallelFor(units: units) { ranges.add($0) }
            let laneOf = Mutex([Int](repeating: -1, count: units))
            pool.forEach(count: units, lanes: 4) { index, lane in
                #expect((0..<min(4, pool.threads)).contains(lane))
                indices.add(index..<index + 1)
                laneOf.withLock { $0[index] = lane }
            }
            #expect(chunks.all == Array(repeating: 1, count: units))
            #expect(ranges.all == Array(repeating: 1, count: units))
            #expect(indices.all == Array(repeating: 1, count: units))
        }
    }

    /// Results come out in index order whichever lane finished first: every index emitted
    /// once, in order, one call at a time; `map` is the sequential map.
    @Test(arguments: [1, 2, 4])
    func resultsComeOutInOrder(threads: Int) {
        let pool = ThreadPool(threads: threads)
        for count in [0, 1, 5, 200] {
            var emitted: [Int] = []
            let inEmit = Atomic<Int>(0), overlaps = Atomic<Int>(0)
            pool.forEachInOrder(count: count, lanes: 4, { index, _ in
                if index % 7 == 0 { usleep(200) }   // early indices finish late
                return index * index
            }, emit: { index, square in
                if inEmit.add(1, ordering: .relaxed).newValue > 1 { overlaps.add(1, ordering: .relaxed) }
                #expect(square == index * index)
                emitted.append(index)
                inEmit.subtract(1, ordering: .relaxed)
            })
            #expect(emitted == Array(0..<count))
            #expect(overlaps.load(ordering: .relaxed) == 0)
            #expect(pool.map(count: count, lanes: 3) { index, _ in index * 3 } == (0..<count).map { $0 * 3 })
        }
    }

    /// With a state per lane: one state made per lane before any work (at least one), each
    /// used by one item at a time, the results in order; a state that cannot be made stops the
    /// run before any item runs.
    @Test(arguments: [1, 2, 4])
    func eachLaneHasItsOwnState(threads: Int) throws {
        struct Refused: Error {}
        final class Lane { var busy = false; var items = 0 }
        let pool = ThreadPool(threads: threads)
        for count in [0, 3, 100] {
            var made: [Lane] = [], emitted: [Int] = []
            let clashes = Atomic<Int>(0)
            pool.forEachInOrder(count: count, makeState: { let lane = Lane(); made.append(lane); return lane }, { lane, index in
                if lane.busy { clashes.add(1, ordering: .relaxed) }
                lane.busy = true
                if index % 5 == 0 { usleep(100) }
                lane.items += 1
                lane.busy = false
                return index + 1
            }, emit: { index, output in
                #expect(output == index + 1)
                emitted.append(index)
            })
            #expect(made.count == max(min(pool.threads, count), 1))
            #expect(made.reduce(0) { $0 + $1.items } == count && emitted == Array(0..<count))
            #expect(clashes.load(ordering: .relaxed) == 0)
        }
        var ran = 0
        #expect(throws: Refused.self) {
            try pool.forEachInOrder(count: 10, makeState: { throw Refused() }, { (_: inout Int, _) in ran += 1 }, emit: { _, _ in })
        }
        #expect(ran == 0)
    }

    /// A job inside a job runs on the thread that started it: a lane that runs a network
    /// neither waits for the pool nor starts threads of its own.
    @Test func nestedJobsRunOnTheirCaller() {
        let pool = ThreadPool(threads: 2)
        let inner = Tally(8 * 100)
        pool.forEach(count: 8, lanes: 2) { index, _ in
            let caller = Thread.current
            pool.forEachChunk(units: 100) { range, thread in
                #expect(thread == 0)
                #expect(Thread.current == caller)
                inner.add(index * 100 + range.lowerBound..<index * 100 + range.upperBound)
            }
        }
        #expect(inner.all == Array(repeating: 1, count: 800))
    }

    /// One lane's calls never overlap: per-lane state needs no lock.
    @Test func aLaneRunsOneIndexAtATime() {
        let pool = ThreadPool(threads: 4)
        let busy = Mutex([Bool](repeating: false, count: 4))
        let overlaps = Atomic<Int>(0)
        pool.forEach(count: 200, lanes: 4) { _, lane in
            let wasBusy = busy.withLock { lanes in
                defer { lanes[lane] = true }
                return lanes[lane]
            }
            if wasBusy { overlaps.add(1, ordering: .relaxed) }
            usleep(20)
            busy.withLock { $0[lane] = false }
        }
        #expect(overlaps.load(ordering: .relaxed) == 0)
    }

    /// Two threads using one pool at once: one gets it, the other runs its job itself; both
    /// finish, every unit once.
    @Test func twoCallersShareOnePool() {
        let pool = ThreadPool(threads: 2)
        let tallies = [Tally(250), Tally(250)]
        DispatchQueue.concurrentPerform(iterations: 2) { caller in
            for _ in 0..<20 { pool.parallelFor(units: 250) { tallies[caller].add($0) } }
        }
        for tally in tallies { #expect(tally.all == Array(repeating: 20, count: 250)) }
    }

    /// The serial lane runs work in submission order and `waitUntilEmpty` waits for all of it.
    @Test func serialLaneKeepsOrder() {
        let lane = SerialLane(label: "test", depth: 2)
        let seen = Mutex([Int]())
        for i in 0..<100 { lane.submit { seen.withLock { $0.append(i) } } }
        lane.waitUntilEmpty()
        #expect(seen.withLock { $0 } == Array(0..<100))
    }
}
