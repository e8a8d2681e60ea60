import Foundation

/// How many cores this process may really use: what threads are sized from.
///
/// On Linux, the smaller of the CPUs in the process's affinity mask (`taskset`, cpusets) and
/// its cgroup's CPU quota rounded up (`docker --cpus`, a Kubernetes CPU limit; cgroup v2's
/// `cpu.max` or v1's `cpu.cfs_quota_us`); elsewhere `ProcessInfo.activeProcessorCount`. A pool
/// sized past it only adds threads that wait for each other's cores.
public enum AvailableCores {
    /// Read once; at least 1.
    public static let count: Int = {
        var count = max(ProcessInfo.processInfo.activeProcessorCount, 1)
        #if os(Linux)
        if let affinity = affinityCount() { count = min(count, affinity) }
        if let quota = cgroupQuota() { count = min(count, quota) }
        #endif
        return max(count, 1)
    }()

    /// The thread count `auto` means for one network: the available cores, at most `cap`
    /// (where the model stops scaling).
    public static func automatic(cap: Int) -> Int { max(1, min(count, cap)) }

    #if os(Linux)
    /// The CPUs in this process's affinity mask (`Cpus_allowed` in /proc/self/status, a hex mask).
    private static func affinityCount() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed:") }) else { return nil }
        let bits = line.dropFirst("Cpus_allowed:".count).reduce(0) { $0 + ($1.hexDigitValue?.nonzeroBitCount ?? 0) }
        return bits > 0 ? bits : nil
    }

    /// The quota in whole cores, rounded up; nil without a limit.
    private static func cgroupQuota() -> Int? {
        func read(_ path: String) -> String? {
            (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        func cores(_ quota: Double, _ period: Double) -> Int? {
            quota > 0 && period > 0 ? Int((quota / period).rounded(.up)) : nil
        }
        if let v2 = read("/sys/fs/cgroup/cpu.max")?.split(separator: " "), v2.count == 2, v2[0] != "max",
           let quota = Double(v2[0]), let period = Double(v2[1]) {
            return cores(quota, period)
        }
        if let quota = read("/sys/fs/cgroup/cpu/cpu.cfs_quota_us").flatMap(Double.init),
           let period = read("/sys/fs/cgroup/cpu/cpu.cfs_period_us").flatMap(Double.init) {
            return cores(quota, period)
        }
        return nil
    }
    #endif
}
