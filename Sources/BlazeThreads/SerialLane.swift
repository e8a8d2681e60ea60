import Foundation

/// One background thread that runs submitted work in order, at most `depth` items behind the
/// submitter (`submit` waits while that many are queued): for work that overlaps the caller's,
/// such as masking and encoding frame N while the detector runs on frame N + 1. A pipeline
/// stage, not a parallel-for: the parallel work runs on a `ThreadPool`.
public final class SerialLane: @unchecked Sendable {
    private let queue: DispatchQueue
    private let slots: DispatchSemaphore

    /// A lane named `label` (seen in debuggers) that queues at most `depth` items (at least 1).
    public init(label: String, depth: Int) {
        queue = DispatchQueue(label: label)
        slots = DispatchSemaphore(value: max(depth, 1))
    }

    /// Queues `work`, after waiting for a free slot; it runs after everything submitted before.
    public func submit(_ work: @escaping @Sendable () -> Void) {
        slots.wait()
        queue.async { [slots] in
            defer { slots.signal() }
            work()
        }
    }

    /// Returns when everything submitted so far has run.
    public func waitUntilEmpty() { queue.sync {} }
}
