import Synchronization

/// Runs a closed-loop benchmark: `options.concurrency` workers, each issuing requests back to back until
/// `options.requests` have been issued in all.
///
/// First `options.warmup` requests run the same way, untimed, so connections are open and caches warm when timing
/// begins. Then the timed phase runs, and the report covers it alone:
///
/// - `seconds`: from the first timed request's start to the last one's completion;
/// - latency: from a request's start to `perform` returning, which must be when the body is fully received
///   (`get`, `download`) or sent and answered (`upload`);
/// - `bytes`: the sum of what `perform` returned for successful requests;
/// - `cpu_s`: the process's user plus system CPU time across the timed phase.
///
/// Workers are child tasks of one task group, so `perform` runs on the executor the caller prefers (the global
/// concurrent executor unless it prefers another), or on the one `workerExecutor` gives each worker. Request indices
/// come from one atomic counter; each worker keeps its own latency samples and the samples are merged at the end,
/// so measuring adds no contention beyond that counter.
///
/// - Parameters:
///   - options: The parsed command line.
///   - workerExecutor: The executor each worker prefers, asked once per worker and phase; `nil` (the default) for
///     the preference of the calling task.
///   - perform: Performs request `index` (0-based within its phase) and returns its body byte count. It throws on
///     failure, including a status other than 2xx (see ``UnexpectedStatus``).
/// - Returns: The timed phase's measurements, and the warm-up's failure count.
public func runClosedLoop(
    options: BenchmarkOptions,
    workerExecutor: @escaping @Sendable () -> (any TaskExecutor)? = { nil },
    _ perform: @escaping @Sendable (Int) async throws -> Int
) async -> ClosedLoopReport {
    var warmupErrors = 0
    if options.warmup > 0 {
        let warmup = await runPhase(
            requests: options.warmup, concurrency: options.concurrency, workerExecutor: workerExecutor, perform)
        warmupErrors = warmup.errors
        reportFailures(warmup.failures, phase: "warm-up")
    }

    let cpuBefore = processCPUSeconds()
    let timed = await runPhase(
        requests: options.requests, concurrency: options.concurrency, workerExecutor: workerExecutor, perform)
    let cpuAfter = processCPUSeconds()
    reportFailures(timed.failures, phase: "timed")

    var seconds = 0.0
    if let first = timed.firstStart, let last = timed.lastEnd {
        seconds = microseconds(last - first) / 1_000_000
    }
    return ClosedLoopReport(
        mode: options.mode,
        requests: options.requests,
        concurrency: options.concurrency,
        ok: timed.ok,
        errors: timed.errors,
        warmupErrors: warmupErrors,
        seconds: seconds,
        latenciesMicroseconds: timed.latencies.sorted(),
        bytes: timed.bytes,
        cpuSeconds: cpuAfter - cpuBefore
    )
}

/// The measurements of a closed-loop run's timed phase.
public struct ClosedLoopReport: Sendable {
    /// The mode every request ran in.
    public var mode: BenchmarkMode
    /// The number of timed requests.
    public var requests: Int
    /// The number of workers.
    public var concurrency: Int
    /// Timed requests that succeeded.
    public var ok: Int
    /// Timed requests that failed.
    public var errors: Int
    /// Warm-up requests that failed; not part of ``errors``, but they still fail the run.
    public var warmupErrors: Int
    /// From the first timed request's start to the last one's completion.
    public var seconds: Double
    /// The latency of every successful timed request, in microseconds, ascending.
    public var latenciesMicroseconds: [Double]
    /// Body bytes of successful timed requests.
    public var bytes: Int
    /// Process CPU time, user plus system, across the timed phase.
    public var cpuSeconds: Double

    /// The report of a run that sent no request: `--idle`, where the client is started and shut down.
    ///
    /// - Parameter options: The parsed command line.
    /// - Returns: A report of zero requests, which ``succeeded``.
    public static func idle(options: BenchmarkOptions) -> ClosedLoopReport {
        ClosedLoopReport(
            mode: options.mode, requests: 0, concurrency: options.concurrency, ok: 0, errors: 0, warmupErrors: 0,
            seconds: 0, latenciesMicroseconds: [], bytes: 0, cpuSeconds: 0)
    }

    /// Whether every request, warm-up included, succeeded.
    public var succeeded: Bool {
        errors == 0 && warmupErrors == 0 && ok == requests
    }

    /// The report as the contract's `RESULT` line.
    ///
    /// - Parameter peer: The `peer=` label.
    public func resultLine(peer: String) -> ResultLine {
        ResultLine(
            peer: peer,
            mode: mode,
            requests: requests,
            concurrency: concurrency,
            ok: ok,
            errors: errors,
            seconds: seconds,
            p50Microseconds: percentile(50, ofSorted: latenciesMicroseconds),
            p99Microseconds: percentile(99, ofSorted: latenciesMicroseconds),
            bytes: bytes,
            cpuSeconds: cpuSeconds
        )
    }
}

/// A response whose status is not 2xx: a benchmark request failure.
public struct UnexpectedStatus: Error, CustomStringConvertible {
    /// The response status code.
    public var code: Int

    public init(code: Int) {
        self.code = code
    }

    public var description: String {
        "unexpected HTTP status \(code)"
    }
}

// MARK: - Phases

/// What the workers of one phase measured, merged.
private struct PhaseTally: Sendable {
    var latencies: [Double] = []
    var ok = 0
    var errors = 0
    var bytes = 0
    var firstStart: ContinuousClock.Instant?
    var lastEnd: ContinuousClock.Instant?
    /// The first few failures, for the diagnostic on standard error.
    var failures: [String] = []

    static let failureSampleLimit = 5

    mutating func merge(_ other: PhaseTally) {
        latencies += other.latencies
        ok += other.ok
        errors += other.errors
        bytes += other.bytes
        if let start = other.firstStart, firstStart.map({ start < $0 }) ?? true {
            firstStart = start
        }
        if let end = other.lastEnd, lastEnd.map({ end > $0 }) ?? true {
            lastEnd = end
        }
        failures += other.failures.prefix(Self.failureSampleLimit - min(failures.count, Self.failureSampleLimit))
    }
}

/// Hands out request indices `0..<limit`, once each, to any number of workers.
private final class RequestTickets: Sendable {
    private let issued = Atomic<Int>(0)
    private let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// The next unissued index, or `nil` once all are issued.
    func next() -> Int? {
        let index = issued.wrappingAdd(1, ordering: .relaxed).oldValue
        return index < limit ? index : nil
    }
}

private func runPhase(
    requests: Int,
    concurrency: Int,
    workerExecutor: @Sendable () -> (any TaskExecutor)?,
    _ perform: @escaping @Sendable (Int) async throws -> Int
) async -> PhaseTally {
    let tickets = RequestTickets(limit: requests)
    let workers = min(concurrency, requests)
    return await withTaskGroup(of: PhaseTally.self, returning: PhaseTally.self) { group in
        let worker: @Sendable () async -> PhaseTally = {
            let clock = ContinuousClock()
            var tally = PhaseTally()
            tally.latencies.reserveCapacity(requests / workers + 1)
            while let index = tickets.next() {
                let start = clock.now
                if tally.firstStart == nil {
                    tally.firstStart = start
                }
                do {
                    let bytes = try await perform(index)
                    let end = clock.now
                    tally.latencies.append(microseconds(end - start))
                    tally.bytes += bytes
                    tally.ok += 1
                    tally.lastEnd = end
                } catch {
                    tally.errors += 1
                    tally.lastEnd = clock.now
                    if tally.failures.count < PhaseTally.failureSampleLimit {
                        tally.failures.append("request \(index): \(error)")
                    }
                }
            }
            return tally
        }
        for _ in 0..<workers {
            // Without a preference a worker inherits the calling task's. It is added without
            // one then, rather than with `nil`, which gives each task a preference record of
            // its own: a kilobyte per waiting request at 10,000 in flight.
            if let executor = workerExecutor() {
                group.addTask(executorPreference: executor, operation: worker)
            } else {
                group.addTask(operation: worker)
            }
        }
        var total = PhaseTally()
        for await tally in group {
            total.merge(tally)
        }
        return total
    }
}

private func microseconds(_ duration: Duration) -> Double {
    let (seconds, attoseconds) = duration.components
    return Double(seconds) * 1_000_000 + Double(attoseconds) / 1_000_000_000_000
}

private func reportFailures(_ failures: [String], phase: String) {
    for failure in failures {
        printToStandardError("\(phase) \(failure)")
    }
}
