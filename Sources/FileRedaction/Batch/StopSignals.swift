import Foundation
import Synchronization

/// SIGINT and SIGTERM as a request to stop, between frames and between inputs: how a scheduler
/// (Kubernetes, Slurm, AWS Batch) or a person at a terminal stops a run without leaving a half
/// file. The handler only records the signal (an atomic store, safe in a handler); pass
/// ``check()`` as `shouldStop` and the run throws ``StoppedBySignal``, a ``BatchStop``: the
/// temporary files are removed and the unfinished input gets no manifest record, so a rerun does
/// it. No thread is made. `blazeface redact` is one caller.
///
/// ```swift
/// StopSignals.install()
/// do {
///     _ = try batch.run(redactor: { try FaceRedactor() }, shouldStop: StopSignals.check)
/// } catch let stop as StoppedBySignal {
///     exit(stop.exitStatus)   // 130 for SIGINT, 143 for SIGTERM
/// }
/// ```
public enum StopSignals {
    private static let received = Atomic<Int32>(0)
    /// The actions the signals had before the first `install()`, for `remove()`.
    private static let previous = Mutex<[Int32: sigaction]>([:])

    /// Installs the handlers for SIGINT and SIGTERM (system calls restart after them) and
    /// unblocks both: a parent may start the process with them blocked (the mask is inherited),
    /// and threads made later inherit this thread's mask. From then on these signals no longer
    /// end the process: ``check()`` must be asked.
    public static func install() {
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for number in [SIGINT, SIGTERM] {
            sigaddset(&unblock, number)
            var action = sigaction()
            #if canImport(Darwin)
            action.__sigaction_u.__sa_handler = { StopSignals.received.store($0, ordering: .relaxed) }
            #else
            action.__sigaction_handler.sa_handler = { StopSignals.received.store($0, ordering: .relaxed) }
            #endif
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            var before = sigaction()
            sigaction(number, &action, &before)
            previous.withLock { if $0[number] == nil { $0[number] = before } }
        }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
    }

    /// Puts back the actions the signals had before ``install()`` (by default they end the
    /// process) and forgets a signal received: for a program that stops only some of its work
    /// this way.
    public static func remove() {
        previous.withLock { saved in
            for (number, action) in saved {
                var action = action
                sigaction(number, &action, nil)
            }
            saved = [:]
        }
        received.store(0, ordering: .relaxed)
    }

    /// The signal received since ``install()``, 0 for none.
    public static var receivedSignal: Int32 { received.load(ordering: .relaxed) }

    /// Throws ``StoppedBySignal`` once a signal came.
    public static func check() throws(StoppedBySignal) {
        let number = receivedSignal
        if number != 0 { throw StoppedBySignal(signal: number) }
    }
}

/// The run was stopped by a signal (``StopSignals``): a process ends with 128 + the signal (130
/// for SIGINT, 143 for SIGTERM), as a shell reports a process the signal killed.
public struct StoppedBySignal: BatchStop, Sendable, CustomStringConvertible {
    public let signal: Int32
    public init(signal: Int32) { self.signal = signal }
    public var exitStatus: Int32 { 128 + signal }
    public var description: String { "stopped by \(signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "signal \(signal)")" }
}
