import Foundation
import Synchronization

/// Everything the soak counts, and every request in flight, behind one lock.
///
/// A `Synchronization.Mutex`: the library's `PThreadMutex` (which ThreadSanitizer sees) is a
/// `package` type that this separate package cannot use, and the soak is not run under
/// ThreadSanitizer.
final class SoakReport: Sendable {
    /// A request or download that has started and not ended.
    struct Running: Sendable {
        /// What it is, such as `forecast` or `order`.
        var kind: String
        /// What names it to a person: the city, the idempotency key, the file.
        var key: String
        /// When it started.
        var started: ContinuousClock.Instant
        /// Resumed once, when it ends or is declared hung.
        var continuation: CheckedContinuation<Void, Never>?
    }

    private struct State {
        var running: [Int: Running] = [:]
        var started = 0
        var ended = 0
        var hung: [String] = []
        var endedTwice: [String] = []
        var outcomes: [String: Int] = [:]
        var retries = 0
        var cancelsRequested = 0
        var wrongAnswers: [String] = []
        var untyped: [String] = []
        var samples: [ProcessSample] = []
        var serverFaults: [String: Int] = [:]
        var serverRequests = 0
        var ledger = LedgerSummary()
        var ledgerProblems: [String] = []
        var downloadOutcomes: [String: Int] = [:]
        var downloadProblems: [String] = []
        var kills = 0
        var growth: [String] = []
        var serverResidentKiB: [Int] = []
        var elapsed: [String: Duration] = [:]
        var afterRequests: ProcessSample?
    }

    /// Mutable state; every access holds the lock.
    private let state = Mutex(State())
    private let clock = ContinuousClock()

    // MARK: - Requests

    /// Registers request `id` and suspends until it ends (``end(_:outcome:)``) or is declared
    /// hung by ``hung(olderThan:)``.
    ///
    /// - Parameter start: Starts the request; called once it is registered.
    func run(_ id: Int, kind: String, key: String, start: () -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            state.withLock { state in
                state.started += 1
                state.running[id] = Running(kind: kind, key: key, started: clock.now, continuation: continuation)
            }
            start()
        }
    }

    /// Records that request `id` ended with `outcome`, or that it ended a second time.
    func end(_ id: Int, outcome: String) {
        let continuation: CheckedContinuation<Void, Never>? = state.withLock { state in
            guard let running = state.running.removeValue(forKey: id) else {
                state.endedTwice.append("request \(id) ended again (\(outcome)) after it had ended or hung")
                return nil
            }
            state.ended += 1
            state.outcomes[outcome, default: 0] += 1
            return running.continuation
        }
        continuation?.resume()
    }

    /// Declares every request older than `limit` hung, naming it, and lets its waiter go on.
    ///
    /// - Returns: The sentences naming the newly hung requests.
    @discardableResult
    func hung(olderThan limit: Duration) -> [String] {
        let now = clock.now
        let found: [(String, CheckedContinuation<Void, Never>?)] = state.withLock { state in
            let old = state.running.filter { now - $0.value.started > limit }
            var found: [(String, CheckedContinuation<Void, Never>?)] = []
            for (id, running) in old.sorted(by: { $0.key < $1.key }) {
                state.running[id] = nil
                let sentence =
                    "\(running.kind) \(id) (key \(running.key)) never ended: still running after "
                    + "\(now - running.started)"
                state.hung.append(sentence)
                found.append((sentence, running.continuation))
            }
            return found
        }
        for (sentence, continuation) in found {
            say("parley-soak: watchdog: \(sentence)")
            continuation?.resume()
        }
        return found.map(\.0)
    }

    /// Requests started and ended so far.
    var counts: (started: Int, ended: Int, running: Int) {
        state.withLock { ($0.started, $0.ended, $0.running.count) }
    }

    /// Counts one retry seen on a handle.
    func retried() { state.withLock { $0.retries += 1 } }

    /// Counts one cancellation the soak asked for.
    func cancelRequested() { state.withLock { $0.cancelsRequested += 1 } }

    /// Records an answer that decoded but says something it must not.
    func wrongAnswer(_ sentence: String) { state.withLock { $0.wrongAnswers.append(sentence) } }

    /// Records an error that is none of the library's typed errors.
    func untypedError(_ sentence: String) { state.withLock { $0.untyped.append(sentence) } }

    /// Records a sample of the process's figures.
    func sample(_ sample: ProcessSample, serverResidentKiB: Int) {
        say("parley-soak: \(sample); server RSS \(serverResidentKiB / 1024) MiB")
        state.withLock {
            $0.samples.append(sample)
            $0.serverResidentKiB.append(serverResidentKiB)
        }
    }

    /// The first sample, taken before any request.
    var firstSample: ProcessSample? {
        state.withLock { $0.samples.first }
    }

    /// The quiet sample taken after the last request, before the downloads.
    var sampleAfterRequests: ProcessSample? {
        get { state.withLock { $0.afterRequests } }
        set { state.withLock { $0.afterRequests = newValue } }
    }

    /// Records growth past the bounds.
    func grew(_ sentences: [String]) { state.withLock { $0.growth += sentences } }

    /// Records how long a phase took.
    func took(_ phase: String, _ duration: Duration) { state.withLock { $0.elapsed[phase] = duration } }

    // MARK: - The server's view

    /// Records the server's fault counters, summed over its routes, and its ledger.
    func server(faults: [String: Int], requests: Int, ledger: LedgerSummary, problems: [String]) {
        state.withLock { state in
            state.serverFaults = faults
            state.serverRequests = requests
            state.ledger = ledger
            state.ledgerProblems = problems
        }
    }

    // MARK: - Downloads

    /// Records how a download ended.
    func download(_ outcome: String) { state.withLock { $0.downloadOutcomes[outcome, default: 0] += 1 } }

    /// Records a download whose file is wrong.
    func downloadProblem(_ sentence: String) { state.withLock { $0.downloadProblems.append(sentence) } }

    /// Counts one `parley-fetch` killed with SIGKILL mid-download.
    func killed() { state.withLock { $0.kills += 1 } }

    // MARK: - Verdict

    /// Every check that failed, one sentence each; empty when the run passed.
    func failures() -> [String] {
        state.withLock { state in
            var failures: [String] = []
            failures += state.hung.map { "hung: \($0)" }
            failures += state.endedTwice.map { "duplicate: \($0)" }
            if !state.running.isEmpty {
                failures.append("lost: \(state.running.count) requests never ended")
            }
            failures += state.untyped.map { "untyped error: \($0)" }
            failures += state.wrongAnswers.map { "wrong answer: \($0)" }
            failures += state.ledgerProblems.map { "idempotency: \($0)" }
            failures += state.downloadProblems.map { "download: \($0)" }
            failures += state.growth.map { "growth: \($0)" }
            return failures
        }
    }

    /// Prints what happened: requests, the faults the server injected, retries, outcomes, the
    /// ledger, downloads and the samples.
    func printSummary(plan: SoakPlan) {
        state.withLock { state in
            say("parley-soak: summary (seed \(plan.seed))")
            for (phase, duration) in state.elapsed.sorted(by: { $0.key < $1.key }) {
                say("  time \(phase): \(duration)")
            }
            say(
                "  requests: \(state.started) started, \(state.ended) ended, \(state.running.count) running, "
                    + "\(state.hung.count) hung, \(state.endedTwice.count) ended twice")
            say("  cancellations asked: \(state.cancelsRequested)")
            say("  retries seen on handles: \(state.retries)")
            let faultTotal =
                state.serverFaults.values.reduce(0, +) - (state.serverFaults["503 without Retry-After"] ?? 0)
            say("  server: \(state.serverRequests) business requests, \(faultTotal) faulted")
            for (kind, count) in state.serverFaults.sorted(by: { $0.key < $1.key }) {
                say("    fault \(kind): \(count)")
            }
            for (outcome, count) in state.outcomes.sorted(by: { $0.key < $1.key }) {
                say("    outcome \(outcome): \(count)")
            }
            let ledger = state.ledger
            say(
                "  idempotency ledger: \(ledger.scopes) keys, \(ledger.attempts) attempts, \(ledger.applied) applied, "
                    + "\(ledger.appliedMoreThanOnce.count) applied more than once")
            say("  downloads: \(state.kills) parley-fetch killed with SIGKILL")
            for (outcome, count) in state.downloadOutcomes.sorted(by: { $0.key < $1.key }) {
                say("    download \(outcome): \(count)")
            }
            say(
                "  samples (bounds after the baseline: +\(plan.bounds.residentKiB) KiB, "
                    + "+\(plan.bounds.descriptors) descriptors besides +\(plan.bounds.sockets) sockets, "
                    + "+\(plan.bounds.threads) threads):")
            for (sample, server) in zip(state.samples, state.serverResidentKiB) {
                say("    \(sample); server RSS \(server / 1024) MiB")
            }
        }
    }
}

/// What the server's `/idempotent/ledger` says.
struct LedgerSummary: Decodable, Sendable {
    /// Scopes seen: one per idempotent request the soak sent.
    var scopes = 0
    /// Attempts received.
    var attempts = 0
    /// Requests applied.
    var applied = 0
    /// Scopes that applied more than one request.
    var appliedMoreThanOnce: [String] = []
    /// Keys applied in more than one scope.
    var keysInSeveralScopes: [String] = []
}
