import Foundation

/// This process's resident memory, open descriptors and threads, read from `/proc/self`.
struct ProcessSample: Sendable, CustomStringConvertible {
    /// How much a sample may exceed the baseline before the run fails.
    struct Bounds: Sendable {
        /// Resident memory, in KiB.
        var residentKiB: Int
        /// Open descriptors other than sockets: files, pipes, event and timer descriptors.
        var descriptors: Int
        /// Open sockets beyond those at the start: the engine keeps idle connections to the
        /// backend for reuse, as many as its connection limit per host, and how many are left
        /// open when the traffic stops depends on which answers came last, not on how many came
        /// before; a leak grows with the requests past any such limit.
        var sockets: Int
        /// Threads.
        var threads: Int
    }

    /// Requests ended when the sample was taken.
    var requests: Int
    /// `VmRSS` of `/proc/self/status`, in KiB.
    var residentKiB: Int
    /// Entries of `/proc/self/fd`, less the one the listing itself opens.
    var descriptors: Int
    /// The descriptors of ``descriptors`` that are sockets.
    var sockets: Int
    /// Entries of `/proc/self/task`.
    var threads: Int
    /// Whether no request was in flight.
    var quiet: Bool

    /// Reads the process's figures now.
    static func now(requests: Int, quiet: Bool) -> ProcessSample {
        let targets = descriptorTargets()
        return ProcessSample(
            requests: requests, residentKiB: residentKiB(), descriptors: targets.count,
            sockets: targets.count { $0.hasPrefix("socket:") }, threads: count("/proc/self/task"), quiet: quiet)
    }

    /// `requests 10000: RSS 41.2 MiB, 23 descriptors, 9 threads (quiet)`.
    var description: String {
        let mebibytes = String(format: "%.1f", Double(residentKiB) / 1024)
        return "requests \(requests): RSS \(mebibytes) MiB, \(descriptors) descriptors (\(sockets) sockets), "
            + "\(threads) threads"
            + (quiet ? " (none in flight)" : "")
    }

    /// What grew past `bounds` from `baseline` (sockets: from `start`) to this sample, one
    /// sentence each.
    func growth(since baseline: ProcessSample, start: ProcessSample, bounds: Bounds, label: String) -> [String] {
        var found: [String] = []
        if residentKiB - baseline.residentKiB > bounds.residentKiB {
            found.append(
                "resident memory grew by \(residentKiB - baseline.residentKiB) KiB from \(baseline.requests) to "
                    + "\(requests) requests (\(label)), more than the bound of \(bounds.residentKiB) KiB")
        }
        let others = descriptors - sockets
        let baselineOthers = baseline.descriptors - baseline.sockets
        if others - baselineOthers > bounds.descriptors {
            found.append(
                "open descriptors other than sockets grew from \(baselineOthers) to \(others) (\(label)), more than "
                    + "the bound of +\(bounds.descriptors): \(Self.descriptorTargets().joined(separator: ", "))")
        }
        if sockets - start.sockets > bounds.sockets {
            found.append(
                "open sockets grew from \(start.sockets) at the start to \(sockets) (\(label)), more than the "
                    + "bound of +\(bounds.sockets), the most idle connections the engine keeps to the backend")
        }
        if threads - baseline.threads > bounds.threads {
            found.append(
                "threads grew from \(baseline.threads) to \(threads) (\(label)), more than the bound of "
                    + "+\(bounds.threads)")
        }
        return found
    }

    /// The names of this process's threads, from `/proc/self/task/*/comm`.
    static func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.sorted().map { task in
            let name = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
            return name?.trimmingCharacters(in: .whitespacesAndNewlines) ?? task
        }
    }

    private static func residentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") ?? 0
        }
        return 0
    }

    /// What each open descriptor refers to (`socket:[…]`, `pipe:[…]`, a path), less the one
    /// the listing itself opens.
    static func descriptorTargets() -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.compactMap { entry in
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(entry)")
        }.filter { !$0.hasPrefix("/proc/") || !$0.hasSuffix("/fd") }
    }

    private static func count(_ folder: String) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: folder).count) ?? 0
    }
}
