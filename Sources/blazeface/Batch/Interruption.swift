import BlazeImage
import FileRedaction
import Foundation
import Synchronization

/// SIGINT and SIGTERM during `redact` (issue 40): the handler only records the signal (an
/// atomic store, safe in a handler); the video frame loop and the batch loop check it between
/// frames and between inputs and throw `Interrupted`, which takes the normal cleanup path
/// (temporary files removed, no manifest record for the unfinished output). No thread is made.
enum Interruption {
    private static let received = Atomic<Int32>(0)

    /// Installs the handlers for SIGINT and SIGTERM (system calls restart after them) and
    /// unblocks both: a parent may start the tool with them blocked (the mask is inherited), and
    /// the threads made later inherit this thread's mask.
    static func install() {
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for number in [SIGINT, SIGTERM] {
            sigaddset(&unblock, number)
            var action = sigaction()
            #if canImport(Darwin)
            action.__sigaction_u.__sa_handler = { Interruption.received.store($0, ordering: .relaxed) }
            #else
            action.__sigaction_handler.sa_handler = { Interruption.received.store($0, ordering: .relaxed) }
            #endif
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(number, &action, nil)
        }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
    }

    /// The signal received, 0 for none.
    static var signal: Int32 { received.load(ordering: .relaxed) }

    /// Throws `Interrupted` once a signal came.
    static func check() throws {
        let number = signal
        if number != 0 { throw Interrupted(signal: number) }
    }
}

/// The run was stopped by a signal: it exits 128 + the signal (130 for SIGINT, 143 for SIGTERM).
struct Interrupted: BatchStop, CustomStringConvertible {
    let signal: Int32
    var exitStatus: Int32 { 128 + signal }
    var description: String { "stopped by \(signal == SIGINT ? "SIGINT" : signal == SIGTERM ? "SIGTERM" : "signal \(signal)")" }
}
