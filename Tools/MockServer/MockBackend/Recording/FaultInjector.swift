import NIOConcurrencyHelpers

/// Faults on demand for the business routes of a ``MockServer``: lost answers, 503s, slowness.
///
/// The business routes are those of the weather demo's backend: `/sysTime`, `/sysVersion`,
/// `/weather`, `/weather/cities`, `/weather/radar`, `/weather/report`, `/auth/login` and
/// `/auth/refresh` (``paths``). The test routes (`/echo`, `/bytes/{n}`, …) are never faulted.
/// Each business request consults the injector once, before its route runs:
///
/// 1. it waits the route's delay (``setDelay(_:for:)``), so a client's loading state shows;
/// 2. it takes the next scripted outcome of its route (``script(_:_:)``), if there is one;
/// 3. otherwise, with probability ``chaosRate``, it gets a fault picked by a SplitMix64
///    generator seeded with ``chaosSeed``, uniformly among ``chaosFaults``: by default half
///    the faults drop the connection, half are 503s.
///
/// The outcomes:
///
/// - ``Outcome/ok``: the route answers as usual;
/// - ``Outcome/drop``: the connection closes without a byte of answer, as `/idempotent` does
///   (curl: "Empty reply from server"); a route that reads a body reads it first;
/// - ``Outcome/unavailable(retryAfter:)``: HTTP 503 with `Retry-After` (whole seconds, rounded
///   up) and `{"code": 503, "message": "Service unavailable; try again", "data": null}`;
/// - ``Outcome/unavailableWithoutRetryAfter``: the same 503 without `Retry-After`, so the
///   client's own backoff decides the wait;
/// - ``Outcome/reset``: a 200 head promising 64 bytes, 16 of them, then a TCP reset (curl:
///   "Recv failure: Connection reset by peer");
/// - ``Outcome/stall``: the same head and 16 bytes, then silence until the client gives up
///   (its stall timeout) or the server stops.
///
/// A route that streams a body (`/weather/radar`) can also be paced (``setPace(_:for:)``): it
/// waits after each 64 KiB, so a download's progress is visible.
///
/// The chaos is reproducible: the `n`-th business request that reaches step 3 gets the same
/// outcome for the same seed, in every run. (libcurl sends a request again by itself, once,
/// when a connection it reused closes without an answer, so a drop can cost a client two
/// draws.)
///
/// ```swift
/// try await MockServer.withRunning { server in
///     server.faults.script("/weather", [.drop, .unavailable(retryAfter: .seconds(1))])
///     server.faults.setDelay(.milliseconds(600), for: "/weather")
///     // … the client's first request fails, the second gets a 503, the third the forecast.
///     #expect(server.faults.counters(for: "/weather").faults == 2)
/// }
/// ```
///
/// A separate process drives the same injector through the `/faults` routes (see
/// ``MockServer``). Paths are route paths without a query, such as `/weather/radar`; a
/// trailing slash is ignored.
public final class FaultInjector: Sendable {
    /// What a business request gets instead of, or as, its answer.
    public enum Outcome: Hashable, Sendable, CustomStringConvertible {
        /// The route answers as usual.
        case ok
        /// The connection closes before a byte of answer.
        case drop
        /// HTTP 503 with `Retry-After` and the envelope `{"code": 503, …}`.
        case unavailable(retryAfter: Duration)
        /// HTTP 503 with the envelope `{"code": 503, …}` and no `Retry-After`.
        case unavailableWithoutRetryAfter
        /// A 200 head promising 64 bytes, 16 of them, then a TCP reset: an answer cut mid-body.
        case reset
        /// A 200 head promising 64 bytes, 16 of them, then nothing until the client leaves.
        case stall

        /// `ok`, `drop`, `503:N` with `N` the `Retry-After` seconds, `503:none`, `reset` or
        /// `stall`: what ``init(_:)`` reads.
        public var description: String {
            switch self {
            case .ok: "ok"
            case .drop: "drop"
            case .unavailable(let retryAfter): "503:\(FaultInjector.seconds(retryAfter))"
            case .unavailableWithoutRetryAfter: "503:none"
            case .reset: "reset"
            case .stall: "stall"
            }
        }

        /// Parses the name of an outcome, as the `/faults/script` route takes it.
        ///
        /// - Parameter text: `ok`, `drop`, `503` or `unavailable` (`Retry-After: 1`),
        ///   `503:N` or `unavailable:N` (`Retry-After: N`, `N` in 0…86400), `503:none` or
        ///   `unavailable:none` (no `Retry-After`), `reset` or `stall`.
        /// - Returns: The outcome, or `nil` when `text` names none.
        public init?(_ text: String) {
            let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            switch (parts[0].lowercased(), parts.count) {
            case ("ok", 1): self = .ok
            case ("drop", 1): self = .drop
            case ("reset", 1): self = .reset
            case ("stall", 1): self = .stall
            case ("503", 2) where parts[1].lowercased() == "none",
                ("unavailable", 2) where parts[1].lowercased() == "none":
                self = .unavailableWithoutRetryAfter
            case ("503", 1), ("unavailable", 1): self = .unavailable(retryAfter: .seconds(1))
            case ("503", 2), ("unavailable", 2):
                guard let seconds = Int(parts[1]), (0...86_400).contains(seconds) else { return nil }
                self = .unavailable(retryAfter: .seconds(seconds))
            default: return nil
            }
        }
    }

    /// What the injector has done on one route.
    public struct Counters: Hashable, Sendable {
        /// Business requests of the route that consulted the injector.
        public var requests: Int
        /// Connections dropped without an answer.
        public var drops: Int
        /// 503 answers, with `Retry-After` or without.
        public var unavailable: Int
        /// Requests that waited a delay before answering.
        public var delayed: Int
        /// The 503 answers of ``unavailable`` that had no `Retry-After`.
        public var unavailableWithoutRetryAfter: Int
        /// Answers reset mid-body.
        public var resets: Int
        /// Answers that stalled mid-body.
        public var stalls: Int

        /// Every fault injected: ``drops``, ``unavailable``, ``resets`` and ``stalls``.
        public var faults: Int { drops + unavailable + resets + stalls }

        /// Counters with the given values, all 0 by default.
        public init(
            requests: Int = 0, drops: Int = 0, unavailable: Int = 0, delayed: Int = 0,
            unavailableWithoutRetryAfter: Int = 0, resets: Int = 0, stalls: Int = 0
        ) {
            self.requests = requests
            self.drops = drops
            self.unavailable = unavailable
            self.delayed = delayed
            self.unavailableWithoutRetryAfter = unavailableWithoutRetryAfter
            self.resets = resets
            self.stalls = stalls
        }
    }

    /// What one business request gets: the outcome, and the wait before it.
    struct Decision: Equatable {
        /// The outcome.
        var outcome: Outcome
        /// The wait before the answer (or the drop); zero for none.
        var delay: Duration
    }

    /// The paths of the business routes, the only ones the injector affects, sorted.
    public static let paths = [
        "/auth/login", "/auth/refresh", "/sysTime", "/sysVersion", "/weather", "/weather/cities", "/weather/radar",
        "/weather/report",
    ]

    /// The faults chaos picks from when no other set is given: a drop or a 503 with
    /// `Retry-After: 1`, half each.
    public static let defaultChaosFaults: [Outcome] = [.drop, .unavailable(retryAfter: .seconds(1))]

    /// The injector's settings and counters, behind one lock.
    private struct State {
        var rate: Double
        var seed: UInt64
        var generator: SplitMix64
        var chaosFaults: [Outcome] = FaultInjector.defaultChaosFaults
        var scripts: [String: [Outcome]] = [:]
        var delays: [String: Duration] = [:]
        var paces: [String: Duration] = [:]
        var counters: [String: Counters] = [:]
    }

    private let state: NIOLockedValueBox<State>
    /// The seed the server started with, which ``reset()`` returns to.
    private let initialSeed: UInt64

    /// An injector with the given chaos and delays and no scripts.
    ///
    /// - Parameters:
    ///   - chaosRate: The probability of a fault, clamped to 0…1.
    ///   - chaosSeed: The seed of the chaos generator.
    ///   - chaosFaults: The faults chaos picks from; ``defaultChaosFaults`` when empty or
    ///     holding only `ok`.
    ///   - delays: Delays by route path.
    init(
        chaosRate: Double = 0, chaosSeed: UInt64 = 0, chaosFaults: [Outcome] = FaultInjector.defaultChaosFaults,
        delays: [String: Duration] = [:]
    ) {
        var initial = State(rate: Self.clamped(chaosRate), seed: chaosSeed, generator: SplitMix64(seed: chaosSeed))
        initial.chaosFaults = Self.usable(chaosFaults)
        for (path, delay) in delays where delay > .zero {
            initial.delays[Self.normalized(path)] = delay
        }
        state = NIOLockedValueBox(initial)
        initialSeed = chaosSeed
    }

    // MARK: - Chaos

    /// The probability, 0…1, that a business request without a scripted outcome gets a fault.
    ///
    /// 0 (the default) injects nothing; 1 faults every request. Values outside 0…1 are clamped
    /// (NaN is 0). Setting it keeps the generator where it is; ``setChaos(rate:seed:)`` restarts it.
    public var chaosRate: Double {
        get { state.withLockedValue { $0.rate } }
        set { state.withLockedValue { $0.rate = Self.clamped(newValue) } }
    }

    /// The seed the chaos generator last started from.
    public var chaosSeed: UInt64 {
        state.withLockedValue { $0.seed }
    }

    /// Sets the chaos rate and restarts the generator from `seed`, so the faults that follow
    /// repeat those of any other run with the same seed.
    ///
    /// - Parameters:
    ///   - rate: The probability of a fault, clamped to 0…1.
    ///   - seed: The generator's seed.
    public func setChaos(rate: Double, seed: UInt64) {
        state.withLockedValue { state in
            state.rate = Self.clamped(rate)
            state.seed = seed
            state.generator = SplitMix64(seed: seed)
        }
    }

    /// The faults chaos picks from, uniformly: ``defaultChaosFaults`` unless set.
    ///
    /// Setting an empty list, or one holding only `ok`, restores ``defaultChaosFaults``. List a
    /// fault twice to make it twice as likely. Setting it keeps the generator where it is.
    public var chaosFaults: [Outcome] {
        get { state.withLockedValue { $0.chaosFaults } }
        set { state.withLockedValue { $0.chaosFaults = Self.usable(newValue) } }
    }

    // MARK: - Scripts and delays

    /// Replaces the scripted outcomes of `path`: its next requests get `outcomes`, one each, in
    /// order, before the chaos applies again. An empty list removes the script.
    ///
    /// - Parameters:
    ///   - path: A business route's path, such as `/weather`.
    ///   - outcomes: The outcomes of its next requests, such as `[.drop, .unavailable(retryAfter:
    ///     .seconds(1)), .ok]`.
    public func script(_ path: String, _ outcomes: [Outcome]) {
        let path = Self.normalized(path)
        state.withLockedValue { $0.scripts[path] = outcomes.isEmpty ? nil : outcomes }
    }

    /// The scripted outcomes `path`'s requests have not consumed yet, in order.
    public func scriptedOutcomes(for path: String) -> [Outcome] {
        let path = Self.normalized(path)
        return state.withLockedValue { $0.scripts[path] ?? [] }
    }

    /// Makes every request of `path` wait `delay` before its answer (or its fault).
    ///
    /// - Parameters:
    ///   - delay: The wait; zero or less removes it.
    ///   - path: A business route's path, such as `/weather`.
    public func setDelay(_ delay: Duration, for path: String) {
        let path = Self.normalized(path)
        state.withLockedValue { $0.delays[path] = delay > .zero ? delay : nil }
    }

    /// The wait before each answer of `path`: zero when none was set.
    public func delay(for path: String) -> Duration {
        let path = Self.normalized(path)
        return state.withLockedValue { $0.delays[path] ?? .zero }
    }

    /// Makes the body of every answer of `path` arrive slowly: a wait of `pace` after each
    /// 64 KiB, in whole milliseconds. Only routes that stream a body use it: `/weather/radar`,
    /// where a `chunk-delay` query item takes precedence.
    ///
    /// - Parameters:
    ///   - pace: The wait after each 64 KiB; zero or less removes it.
    ///   - path: A business route's path, such as `/weather/radar`.
    public func setPace(_ pace: Duration, for path: String) {
        let path = Self.normalized(path)
        state.withLockedValue { $0.paces[path] = pace > .zero ? pace : nil }
    }

    /// The wait after each 64 KiB of `path`'s bodies: zero when none was set.
    public func pace(for path: String) -> Duration {
        let path = Self.normalized(path)
        return state.withLockedValue { $0.paces[path] ?? .zero }
    }

    /// Back to no faults: no scripts, no delays, no paces, chaos rate 0, the default chaos
    /// faults, every counter 0, and the chaos generator restarted from the seed the server
    /// started with.
    public func reset() {
        state.withLockedValue { state in
            state = State(rate: 0, seed: initialSeed, generator: SplitMix64(seed: initialSeed))
        }
    }

    // MARK: - Counters

    /// What the injector has done on `path` so far.
    public func counters(for path: String) -> Counters {
        let path = Self.normalized(path)
        return state.withLockedValue { $0.counters[path] ?? Counters() }
    }

    /// The counters of every route that has had a business request, by path.
    public func allCounters() -> [String: Counters] {
        state.withLockedValue { $0.counters }
    }

    // MARK: - For the responder

    /// Decides what a request of the business route `path` gets, and counts it.
    func decide(for path: String) -> Decision {
        state.withLockedValue { state in
            var counters = state.counters[path] ?? Counters()
            counters.requests += 1
            let delay = state.delays[path] ?? .zero
            if delay > .zero { counters.delayed += 1 }
            var outcome = Outcome.ok
            if var queue = state.scripts[path], !queue.isEmpty {
                outcome = queue.removeFirst()
                state.scripts[path] = queue.isEmpty ? nil : queue
            } else if state.rate > 0, state.generator.nextUnitInterval() < state.rate {
                // With the two default faults this is the generator's lowest bit, as it always was.
                let faults = state.chaosFaults
                outcome = faults[Int(state.generator.next() % UInt64(faults.count))]
            }
            switch outcome {
            case .ok: break
            case .drop: counters.drops += 1
            case .unavailable: counters.unavailable += 1
            case .unavailableWithoutRetryAfter:
                counters.unavailable += 1
                counters.unavailableWithoutRetryAfter += 1
            case .reset: counters.resets += 1
            case .stall: counters.stalls += 1
            }
            state.counters[path] = counters
            return Decision(outcome: outcome, delay: delay)
        }
    }

    /// The state as `GET /faults` answers it:
    /// `{"chaos": {"rate", "seed", "faults": [outcome]}, "delays": {path: ms}, "paces": {path:
    /// ms}, "scripts": {path: [outcome]}, "counters": {path: {"requests", "drops",
    /// "unavailable", "unavailableWithoutRetryAfter", "resets", "stalls", "delayed"}}, "paths":
    /// [path]}`.
    func json() -> JSONValue {
        state.withLockedValue { state in
            .object([
                "chaos": .object([
                    "rate": .double(state.rate), "seed": .unsigned(state.seed),
                    "faults": .array(state.chaosFaults.map { .string($0.description) }),
                ]),
                "delays": .object(state.delays.mapValues { .int(Self.milliseconds($0)) }),
                "paces": .object(state.paces.mapValues { .int(Self.milliseconds($0)) }),
                "scripts": .object(state.scripts.mapValues { .array($0.map { .string($0.description) }) }),
                "counters": .object(
                    state.counters.mapValues { counters in
                        .object([
                            "requests": .int(counters.requests), "drops": .int(counters.drops),
                            "unavailable": .int(counters.unavailable), "delayed": .int(counters.delayed),
                            "unavailableWithoutRetryAfter": .int(counters.unavailableWithoutRetryAfter),
                            "resets": .int(counters.resets), "stalls": .int(counters.stalls),
                        ])
                    }),
                "paths": .array(Self.paths.map(JSONValue.string)),
            ])
        }
    }

    // MARK: - Helpers

    /// `path` without a query or a trailing slash, and with a leading one: `weather/` is `/weather`.
    static func normalized(_ path: String) -> String {
        var path =
            path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return path.hasPrefix("/") ? path : "/" + path
    }

    /// `duration` in whole seconds, rounded up, at least 0: what `Retry-After` says.
    static func seconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(0, Int(seconds) + (attoseconds > 0 ? 1 : 0))
    }

    /// `duration` in whole milliseconds, rounded down.
    static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }

    /// `faults` without `ok`, or ``defaultChaosFaults`` when nothing is left.
    private static func usable(_ faults: [Outcome]) -> [Outcome] {
        let kept = faults.filter { $0 != .ok }
        return kept.isEmpty ? defaultChaosFaults : kept
    }

    /// `rate` within 0…1; NaN is 0.
    private static func clamped(_ rate: Double) -> Double {
        rate.isNaN ? 0 : min(max(rate, 0), 1)
    }
}
