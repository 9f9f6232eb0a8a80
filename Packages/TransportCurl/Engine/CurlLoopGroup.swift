import Synchronization
import Transport

/// A transport's event loops: each a ``CurlEventLoop`` with its own thread, libcurl multi
/// handle, connection cache and easy-handle pool, and the rules that spread transfers over them.
///
/// The group is fixed when the transport is created. For each request it reads the facts
/// ``LoopPlacement`` needs (the origin's home loop, whether the origin is pinned, the loop the
/// sending task prefers, each loop's transfers in flight) and applies its rules; with one loop
/// none of this runs. The connection limits are divided between the loops
/// (``loopConfigurations(for:)``), so that the transport as a whole keeps to the ones the
/// caller set.
final class CurlLoopGroup: Sendable {
    /// The transfers in flight on one loop: started and not yet finished (for a streamed
    /// response, until its body has been read or dropped).
    final class Load: Sendable {
        /// An atomic, the only shared value (see CONTRIBUTING, Locks).
        let count = Atomic(0)
    }

    /// Counts a streamed transfer as in flight until the stream buffer that holds this token
    /// goes away with the response body.
    final class StreamToken: Sendable {
        private let load: Load

        /// Counts one more transfer on `load`.
        init(_ load: Load) {
            self.load = load
            load.count.add(1, ordering: .relaxed)
        }

        deinit {
            load.count.subtract(1, ordering: .relaxed)
        }
    }

    /// The loops, at least one.
    let loops: [CurlEventLoop]
    /// Transfers in flight, per loop.
    let loads: [Load]
    /// Each loop's executor as the runtime names a task's preference, to find the sender's loop.
    private let executorIdentities: [UnownedTaskExecutor]
    private let placement: LoopPlacement
    /// Whether HTTPS origins are pinned to their home loop (HTTP/2 offered).
    private let pinsHTTPS: Bool
    /// The loop whose executor ``nextExecutor()`` hands out next.
    private let executorCursor = Atomic(0)
    /// Hashes of HTTPS origins that answered in HTTP/1.x, no longer pinned.
    private let http1Origins = PThreadMutex(Set<UInt64>())
    /// Set once ``http1Origins`` holds one, so that placement takes its lock only then (an
    /// atomic flag, set after the insertion; see CONTRIBUTING, Locks).
    private let knowsHTTP1Origins = Atomic(false)

    /// Starts the loops the configuration asks for (``loopConfigurations(for:)``).
    ///
    /// - Throws: ``TransportError`` when a loop cannot be started; loops already started are
    ///   asked to stop.
    init(configuration: CurlTransport.Configuration) throws {
        var loops: [CurlEventLoop] = []
        for loopConfiguration in Self.loopConfigurations(for: configuration) {
            do {
                loops.append(try CurlEventLoop(configuration: loopConfiguration))
            } catch {
                for loop in loops { loop.requestShutdown() }
                throw error
            }
        }
        self.loops = loops
        self.loads = loops.map { _ in Load() }
        self.executorIdentities = loops.map { $0.executor.asUnownedTaskExecutor() }
        let perHost = max(1, configuration.maximumConnectionsPerHost)
        self.placement = LoopPlacement(
            loopCount: loops.count,
            baseLoopCount: configuration.loopCount,
            connectionsPerHost: perHost / loops.count
        )
        self.pinsHTTPS = configuration.allowsHTTP2
    }

    // MARK: - Placement

    /// Where a request was placed.
    struct Placed {
        /// The loop that runs it.
        var loop: Int
        /// The hash of its origin when the origin is pinned to its home loop, for
        /// ``learn(httpVersion:of:)``.
        var pinnedOrigin: UInt64?
    }

    /// The loop that runs a request to `url` (a validated, absolute URL).
    func place(_ url: String) -> Placed {
        guard loops.count > 1 else { return Placed(loop: 0) }
        let origin = LoopPlacement.origin(of: url)
        let pins = pinsHTTPS && origin.isHTTPS && !speaksHTTP1(origin.hash)
        let request = LoopPlacement.Request(
            home: placement.home(ofHash: origin.hash),
            pinsOrigin: pins,
            senderLoop: senderLoop()
        )
        let loop = placement.loop(for: request) { loads[$0].count.load(ordering: .relaxed) }
        return Placed(loop: loop, pinnedOrigin: pins ? origin.hash : nil)
    }

    /// Records the HTTP version a pinned origin answered in: an origin that answers HTTPS in
    /// HTTP/1.1 gains nothing from one loop (it cannot multiplex), so its later requests spread
    /// over the loops like cleartext ones, with every loop's share of its connections. Up to
    /// ``http1OriginLimit`` origins are remembered, so that the set stays small whatever a
    /// process visits; beyond, origins stay pinned.
    func learn(httpVersion: String, of origin: UInt64) {
        guard httpVersion != "2", httpVersion != "3" else { return }
        http1Origins.withLock { origins in
            if origins.count < Self.http1OriginLimit { origins.insert(origin) }
        }
        knowsHTTP1Origins.store(true, ordering: .releasing)
    }

    /// The most HTTPS origins remembered as answering in HTTP/1.x: 4,096 (32 KiB of hashes).
    static let http1OriginLimit = 4096

    /// Whether `origin` is known to answer HTTPS in HTTP/1.x; without taking the lock while
    /// no origin is.
    private func speaksHTTP1(_ origin: UInt64) -> Bool {
        guard knowsHTTP1Origins.load(ordering: .acquiring) else { return false }
        return http1Origins.withLock { $0.contains(origin) }
    }

    /// The loop whose executor the current task prefers, if any.
    private func senderLoop() -> Int? {
        guard let preferred = withUnsafeCurrentTask(body: { $0?.unownedTaskExecutor }) else { return nil }
        for index in executorIdentities.indices where executorIdentities[index] == preferred { return index }
        return nil
    }

    /// Counts a transfer started on `loop` (with more than one loop).
    func began(on loop: Int) {
        if loops.count > 1 { loads[loop].count.add(1, ordering: .relaxed) }
    }

    /// Counts a transfer on `loop` as finished (with more than one loop).
    func ended(on loop: Int) {
        if loops.count > 1 { loads[loop].count.subtract(1, ordering: .relaxed) }
    }

    /// Each loop's transfers in flight (not counted with one loop, where they read 0).
    var inFlight: [Int] { loads.map { $0.count.load(ordering: .relaxed) } }

    /// A token that counts a streamed transfer on `loop` until it is released, or `nil` with
    /// one loop, where nothing is counted.
    func streamToken(on loop: Int) -> StreamToken? {
        loops.count > 1 ? StreamToken(loads[loop]) : nil
    }

    // MARK: - Executors

    /// One base loop's executor, each in turn (the extra loops take transfers only when the
    /// base loops are full; see ``LoopPlacement``).
    func nextExecutor() -> CurlLoopExecutor {
        let count = placement.baseLoopCount
        guard count > 1 else { return loops[0].executor }
        let turn = executorCursor.wrappingAdd(1, ordering: .relaxed).oldValue
        return loops[Int(UInt(bitPattern: turn) % UInt(count))].executor
    }

    // MARK: - Shutdown

    /// Stops every loop and returns when all have exited; they stop side by side.
    func shutdown() async {
        for loop in loops { loop.requestShutdown() }
        for loop in loops { await loop.shutdown() }
    }

    /// Asks every loop to stop without waiting (for `deinit`).
    func requestShutdown() {
        for loop in loops { loop.requestShutdown() }
    }

    /// Stops taking transfers, waits up to `gracePeriod` for those in flight to end, fails the
    /// rest with `lateError`, and stops every loop; returns when all have exited.
    ///
    /// - Returns: Whether every transfer ended within the grace period.
    func shutdown(gracePeriod: Duration, lateError: TransportError) async -> Bool {
        let loops = self.loops
        // Before any suspension: a request sent after this call began is refused.
        for loop in loops { loop.stopAccepting() }
        let drained = await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for loop in loops { await loop.drained() }
                return true
            }
            group.addTask {
                // A cancelled wait ends the grace period at once.
                try? await Task.sleep(for: gracePeriod)
                return false
            }
            let drained = await group.next() ?? false
            if drained {
                group.cancelAll()
            } else {
                // The drain's waiters are resumed when the loops exit.
                for loop in loops { loop.requestShutdown(failingRunningWith: lateError) }
            }
            return drained
        }
        await shutdown()
        return drained
    }

    // MARK: - Limits

    /// The configuration of each loop: the transport's, with the connection limits divided
    /// between the loops so that together they keep to the transport's.
    ///
    /// There are ``CurlTransport/Configuration/loopCount`` loops (the base loops), and more
    /// (extra loops, up to ``largestLoopCount``) when the connection limits allow more than
    /// ``connectionsPerLoop`` connections for each: ``CurlTransport/Configuration/maximumTotalConnections``
    /// when it is set, else ``CurlTransport/Configuration/maximumConnectionsPerHost`` (the most
    /// one host can have). There are never more loops than either limit (at least 1), so that
    /// every loop may hold at least one connection. Each limit is divided as evenly as whole
    /// numbers allow, the first loops taking one more: 16 per host over 3 loops is 6, 5 and 5.
    static func loopConfigurations(for configuration: CurlTransport.Configuration) -> [CurlTransport.Configuration] {
        let perHost = max(1, configuration.maximumConnectionsPerHost)
        let total = max(0, configuration.maximumTotalConnections)
        let connections = total > 0 ? total : perHost
        let forConnections = (connections + connectionsPerLoop - 1) / connectionsPerLoop
        var count = max(max(1, configuration.loopCount), min(forConnections, largestLoopCount))
        count = min(count, perHost)
        if total > 0 { count = min(count, total) }
        return (0..<count).map { index in
            var loop = configuration
            loop.loopCount = 1
            loop.maximumConnectionsPerHost = share(of: perHost, loop: index, of: count)
            loop.maximumTotalConnections = total == 0 ? 0 : share(of: total, loop: index, of: count)
            return loop
        }
    }

    /// The connections a loop is given before the transport adds a loop for more: 1,024.
    /// libcurl 7.88 walks every connection of a loop's cache when a transfer finishes (and
    /// every connection to the host when one starts), so the cost per transfer grows with the
    /// connections a loop holds; 10,000 transfers in flight over 2 loops took 2.7 times the CPU
    /// per request of 100, over 8 loops 1.3 times (docs/BENCHMARKS.md, "Ten thousand requests
    /// in flight").
    static let connectionsPerLoop = 1024

    /// The most loops the connection limits add up to: 64.
    static let largestLoopCount = 64

    /// Loop `index`'s part of `limit` divided between `count` loops.
    private static func share(of limit: Int, loop index: Int, of count: Int) -> Int {
        limit / count + (index < limit % count ? 1 : 0)
    }
}
