import Forms
import Foundation
import HTTPTypes
import Logging
import Mapping
import Retry
import Transport
import TransportCurl
import WeatherAPI

/// The client the soak drives: the weather feature's API and forms of its own, on one
/// configuration.
struct SoakClient: WeatherRequestable, Sendable {
    let clientConfiguration: ClientConfiguration?
}

/// The requests and downloads of one run, and the checks on them.
final class Soak: Sendable {
    let plan: SoakPlan
    let server: MockServerProcess
    let transport: CurlTransport
    let fetchPath: String
    let report: SoakReport
    let client: SoakClient
    let clock = ContinuousClock()

    /// The cities the forecasts ask for: a few of the server's 60, names that need encoding
    /// among them.
    static let cities = ["Toronto", "北京", "São Paulo", "Zürich", "Montréal", "Oslo", "Lagos", "Lima"]

    /// `http://127.0.0.1:PORT` of the server.
    var baseURL: String { server.baseURL }

    init(plan: SoakPlan, server: MockServerProcess, transport: CurlTransport, fetchPath: String, report: SoakReport) {
        self.plan = plan
        self.server = server
        self.transport = transport
        self.fetchPath = fetchPath
        self.report = report
        var configuration = ClientConfiguration(transport: transport, baseURL: server.baseURL)
        // A stall is over in a second, not the default 30.
        configuration.transferOptions.stallTimeout = .seconds(1)
        configuration.timeout = .seconds(20)
        // Short waits between attempts, so that a run is about its requests, not its sleeps. The
        // budget is the library's default one: when retries are being spent faster than
        // answers earn them back, requests fail with `retryBudgetExhausted`, a typed outcome.
        configuration.retry.baseDelay = .milliseconds(20)
        configuration.retry.maximumDelay = .milliseconds(500)
        configuration.retry.budget = RetryBudget()
        // A line per retry and per request given up would be thousands of lines; the summary
        // counts them instead.
        configuration.logger = Logger(label: "parley-soak", factory: { _ in SwiftLogNoOpLogHandler() })
        client = SoakClient(clientConfiguration: configuration)
    }

    // MARK: - Requests

    /// Sends the requests `plan.inFlight` at a time, with a quiet sample at the baseline and at
    /// the end, and samples on the way.
    func runRequests() async {
        let started = clock.now
        let start = await sample(quiet: true)
        await run(0..<plan.baselineAfter)
        await drain()
        let baseline = await sample(quiet: true)
        let end: Int? = plan.duration == nil ? plan.requests : nil
        await run(plan.baselineAfter..<(end ?? Int.max), until: plan.duration.map { started + $0 })
        await drain()
        let final = await sample(quiet: true)
        report.sampleAfterRequests = final
        report.grew(final.growth(since: baseline, start: start, bounds: plan.bounds, label: "after the requests"))
        report.took("requests", clock.now - started)
    }

    /// Sends requests `ids`, `plan.inFlight` at a time, until `deadline` if given.
    private func run(_ ids: Range<Int>, until deadline: ContinuousClock.Instant? = nil) async {
        await withTaskGroup(of: Void.self) { group in
            var next = ids.lowerBound
            func more() -> Bool {
                guard next < ids.upperBound else { return false }
                if let deadline, clock.now >= deadline { return false }
                let id = next
                next += 1
                group.addTask { await self.request(id) }
                if next % plan.sampleEvery == 0 {
                    group.addTask { await self.sample(quiet: false) }
                }
                return true
            }
            for _ in 0..<plan.inFlight where !more() { break }
            while await group.next() != nil {
                _ = more()
            }
        }
    }

    /// Waits until no request is running (the watchdog ends those that hang).
    private func drain() async {
        while report.counts.running > 0 {
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Samples the process and the server.
    @discardableResult
    private func sample(quiet: Bool) async -> ProcessSample {
        if quiet, report.firstSample != nil {
            // Let the engine's loop close what the last answers left half-closed, and Dispatch
            // end the workers it added under load: an idle worker ends after 5 seconds without
            // work, so this is one sleep, not a poll that would keep waking them.
            try? await Task.sleep(for: .seconds(6))
        }
        let sample = ProcessSample.now(requests: report.counts.ended, quiet: quiet)
        report.sample(sample, serverResidentKiB: serverResidentKiB())
        return sample
    }

    /// The mock server's resident memory, read from `/proc`.
    private func serverResidentKiB() -> Int {
        server.residentKiB
    }

    /// One request: its kind, its cancellation and its checks all follow from the seed and `id`.
    private func request(_ id: Int) async {
        var random = SplitMix64(seed: plan.seed ^ (UInt64(id) &* 0xd6e8_feb8_6659_fd93))
        let roll = random.next() % 100
        let cancelAfter: Duration? =
            plan.cancelEvery > 0 && random.next() % UInt64(plan.cancelEvery) == 0
            ? .microseconds(Int64(random.next() % 30_000)) : nil
        let city = Self.cities[Int(random.next() % UInt64(Self.cities.count))]
        switch roll {
        case 0..<35:
            await send(id, kind: "forecast", key: city, cancelAfter: cancelAfter, client.forecast(city: city)) {
                forecast in forecast.days.count == 3 ? nil : "a forecast for \(city) with \(forecast.days.count) days"
            }
        case 35..<55:
            let limit = 1 + Int(random.next() % 20)
            await send(id, kind: "cities", key: "limit \(limit)", cancelAfter: cancelAfter, client.cities(limit: limit))
            {
                page in page.items.count == limit ? nil : "a page of \(page.items.count) cities, asked for \(limit)"
            }
        case 55..<70:
            let handle = client.request(SysTimeForm()).decodeEnvelope(ServerTime.self)
            await send(id, kind: "time", key: "-", cancelAfter: cancelAfter, handle) { time in
                time.time > 0 ? nil : "a server time of \(time.time)"
            }
        case 70..<80:
            let handle = client.request(SysVersionForm()).decodeEnvelope([Release].self)
            await send(id, kind: "version", key: "1.0.0", cancelAfter: cancelAfter, handle) { releases in
                releases.isEmpty ? "no release newer than 1.0.0" : nil
            }
        default:
            // A tenth of the orders (at the fault rate) lose their answer after the server applied
            // them: the case an idempotency key exists for.
            let loses = random.nextUnitInterval() < plan.faultRate
            let form = OrderForm(scope: "soak-\(plan.seed)-\(id)", resets: loses ? 1 : 0)
            let handle = client.request(form).decode(OrderAnswer.self)
            await send(id, kind: "order", key: form.scope, cancelAfter: cancelAfter, handle) { answer in
                answer.applied == 1 && answer.sameKey
                    ? nil : "order \(form.scope) answered applied \(answer.applied), sameKey \(answer.sameKey)"
            }
        }
    }

    /// Runs `handle` to its end, counting retries and how it ended, and checking its value.
    private func send<Value: Sendable>(
        _ id: Int, kind: String, key: String, cancelAfter: Duration?, _ handle: RequestHandle<Value>,
        check: @escaping @Sendable (Value) -> String?
    ) async {
        let report = report
        await report.run(id, kind: kind, key: key) {
            handle.observe { event in
                if case .retry = event { report.retried() }
            }
            if let cancelAfter {
                report.cancelRequested()
                Task {
                    try? await Task.sleep(for: cancelAfter)
                    handle.cancel()
                }
            }
            handle.completion { result in
                switch result {
                case .success(let value):
                    if let wrong = check(value) { report.wrongAnswer("\(kind) \(id): \(wrong)") }
                    report.end(id, outcome: "\(kind): success")
                case .failure(let error):
                    let name = Self.name(of: error)
                    if name.hasPrefix("untyped") { report.untypedError("\(kind) \(id) (key \(key)): \(error)") }
                    report.end(id, outcome: "\(kind): \(name)")
                }
            }
        }
    }

    /// The kind of a failure: the library's typed error and its category, or `untyped`.
    static func name(of error: any Error) -> String {
        switch error {
        case let error as TransportError: "TransportError.\(error.category)"
        case let error as MappingError: "MappingError.\(error.category)"
        case let error as BusinessError: "BusinessError.\(error.code)"
        case let error as FormError: "FormError.\(error.category)"
        case let error as RequestFailure: name(of: error.underlying)
        default: "untyped \(type(of: error))"
        }
    }

    // MARK: - The server's view

    /// Reads the server's fault counters and idempotency ledger, and checks the ledger: no
    /// order applied twice, no key in two orders.
    func checkServer() async {
        do {
            let faults = try await json(FaultState.self, "/faults")
            var byKind: [String: Int] = [:]
            var requests = 0
            for counters in faults.counters.values {
                requests += counters.requests
                byKind["drop before a byte", default: 0] += counters.drops
                byKind["503 with Retry-After", default: 0] +=
                    counters.unavailable - (counters.unavailableWithoutRetryAfter ?? 0)
                byKind["503 without Retry-After", default: 0] += counters.unavailableWithoutRetryAfter ?? 0
                byKind["reset mid-body", default: 0] += counters.resets ?? 0
                byKind["stall mid-body", default: 0] += counters.stalls ?? 0
            }
            let ledger = try await json(LedgerSummary.self, "/idempotent/ledger")
            var problems: [String] = []
            for scope in ledger.appliedMoreThanOnce.prefix(20) {
                problems.append("the server applied order \(scope) more than once")
            }
            for key in ledger.keysInSeveralScopes.prefix(20) {
                problems.append("the key \(key) was sent with two different orders")
            }
            report.server(faults: byKind, requests: requests, ledger: ledger, problems: problems)
        } catch {
            report.server(
                faults: [:], requests: 0, ledger: LedgerSummary(),
                problems: ["could not read the server's counters: \(error)"])
        }
    }

    /// GETs `path` from the server, without faults or retries, and decodes it.
    func json<T: Decodable>(_ type: T.Type, _ path: String) async throws -> T {
        let response = try await transport.data(for: TransportRequest(method: .get, url: baseURL + path))
        return try JSONDecoder().decode(T.self, from: response.body)
    }
}

// MARK: - Forms and models

/// `GET /sysTime`: the server's clock, in the envelope.
struct SysTimeForm: RequestFormable {
    var path: String { "/sysTime" }
}

/// `{"time": ms}`.
struct ServerTime: Decodable, Sendable {
    var time: Int64
}

/// `POST /sysVersion`: the releases newer than 1.0.0 for Linux. A POST without a key: retried
/// only when it cannot have reached the server.
struct SysVersionForm: RequestFormable {
    var path: String { "/sysVersion" }
    var method: HTTPRequest.Method { .post }
    var headers: [String: String] { ["platform": "linux"] }
    var jsonBody: (any Encodable & Sendable)? { ["appVersion": "1.0.0"] }
}

/// A release, as `/sysVersion` lists it.
struct Release: Decodable, Sendable {
    var version: String
}

/// `POST /idempotent?scope=S&resets=N` with a generated `Idempotency-Key`: an order the server
/// applies once per key, whose first `N` answers are lost after it was applied.
struct OrderForm: RequestFormable {
    var scope: String
    var resets: Int
    var path: String { "/idempotent" }
    var method: HTTPRequest.Method { .post }
    var encoding: ParameterEncoding { .urlQuery }
    var parameters: Parameters { ["scope": scope, "resets": resets] }
    var jsonBody: (any Encodable & Sendable)? { ["item": "umbrella"] }
    var idempotencyKey: IdempotencyKey? { .generated }
}

/// What `/idempotent` answers.
struct OrderAnswer: Decodable, Sendable {
    var applied: Int
    var attempts: Int
    var sameKey: Bool
}

/// The part of `GET /faults` the soak reads.
struct FaultState: Decodable {
    struct Counters: Decodable {
        var requests: Int
        var drops: Int
        var unavailable: Int
        var unavailableWithoutRetryAfter: Int?
        var resets: Int?
        var stalls: Int?
    }

    var counters: [String: Counters]
}

/// SplitMix64 (Steele, Lea and Flood, 2014): every random choice of the soak, fixed by its seed.
struct SplitMix64: Sendable {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    /// The next 64 pseudo-random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xbf58_476d_1ce4_e5b9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94d0_49bb_1331_11eb
        return mixed ^ (mixed >> 31)
    }

    /// A number in `0 ..< 1`.
    mutating func nextUnitInterval() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }
}
