import ArgumentParser
import FileRedaction

extension BatchExit {
    /// Ends the command with the batch's status (returns when it is 0).
    static func finish(refused: Int, failed: Int = 0) throws {
        let status = code(refused: refused, failed: failed)
        if status != ok { throw ExitCode(status) }
    }
}

/// A command's own exit ends a batch run as a signal does: no record for the input.
extension ExitCode: BatchStop {}
