// parley-bench-cache: what Parley's HTTP cache saves and what it costs.
//
// Against one URL on a loopback server (Tools/Benchmarks/cache-cost.sh starts a private nginx):
//
// - sequential: the latency of a GET through `CurlTransport` alone, and of a hit through an
//   `HTTPCache` (memory and disk storage), one request at a time;
// - concurrent misses: `--concurrency` workers sending GETs that all miss (each to its own
//   query string), through `CurlTransport` alone, through a `MiddlewareTransport` whose one
//   middleware does nothing (what any middleware costs, the cache's share apart), and through a
//   cache that stores every answer (a forced lifetime, so nginx's headers do not matter): in
//   memory at its default 10 MiB cap, filled beforehand, so that each store evicts an entry as
//   in a long-running process, and in memory and on disk with room for everything. The disk
//   storage writes behind; its measurement ends when the writer has written every entry
//   (`flush()`), so its time and CPU count the writes;
// - the misses one at a time over the engine, without a cache and through a memory cache at its
//   cap and a disk cache: what the cache adds to one request's CPU;
// - the same misses one at a time against an in-process transport that answers at once with a
//   copy of nginx's answer: no network, no event loop, so the CPU per request is the cache's own
//   work plus a small constant, and moves far less with the machine's load.
//
// Each line gives requests per second, the median and 99th percentile latency, and the CPU time
// this process spent per request (all its threads; nginx's is not counted), which a loaded
// machine disturbs far less than the rates.

import ArgumentParser
import BenchmarkSupport
import Caching
import Foundation
import HTTPTypes
import Synchronization
import Transport
import TransportCurl

/// Measures cache hits against loopback requests, and misses with and without a cache.
@main
struct CacheBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley-bench-cache",
        abstract: "Measures Parley's HTTPCache: hits against loopback requests, and concurrent misses."
    )

    @Option(help: "The URL every request targets (a query string is added for misses).")
    var url: String

    @Option(help: "Timed requests per sequential measurement.")
    var sequentialRequests = 2000

    @Option(help: "Timed requests per concurrent measurement.")
    var concurrentRequests = 6400

    @Option(help: "Concurrent workers for the misses.")
    var concurrency = 64

    @Option(help: "Timed requests per in-process measurement.")
    var inProcessRequests = 20000

    @Option(help: "A folder for the disk cache; a new one under the temporary directory by default.")
    var folder: String?

    @Option(help: "Runs only the measurements whose name contains this text (for a profiler).")
    var only: String?

    func run() async throws {
        var configuration = CurlTransport.Configuration()
        configuration.maximumConnectionsPerHost = concurrency
        let curl = try CurlTransport(configuration: configuration)
        let root =
            folder ?? FileManager.default.temporaryDirectory.appendingPathComponent("parley-bench-cache-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: root) }

        var options = HTTPCache.Options()
        options.forcedLifetime = .seconds(3600)
        options.maximumEntrySize = 64 << 20

        // Warm the connection pool.
        _ = try await measure("warm-up", requests: 200, concurrency: concurrency) { index in
            try await curl.data(for: try TransportRequest(method: .get, url: "\(url)?warm=\(index)"))
        }

        print("| Measurement | Requests/s | p50 µs | p99 µs | client CPU µs/request |")
        print("|---|---:|---:|---:|---:|")
        emit(
            try await measure("loopback GET, one at a time", requests: sequentialRequests, concurrency: 1) { _ in
                try await curl.data(for: try TransportRequest(method: .get, url: url))
            }.row)
        for (name, storage) in try storages(root, suffix: "hits") {
            let transport = MiddlewareTransport(curl, middleware: [HTTPCache(storage: storage, options: options)])
            _ = try await transport.data(for: try TransportRequest(method: .get, url: url))
            // The disk storage writes behind: the hits are to come from the file.
            await (storage as? DiskCacheStorage)?.flush()
            emit(
                try await measure("hit, \(name), one at a time", requests: sequentialRequests, concurrency: 1) { _ in
                    try await transport.data(for: try TransportRequest(method: .get, url: url))
                }.row)
        }
        emit(
            try await measure("misses, no cache, \(concurrency) at once", requests: concurrentRequests) { index in
                try await curl.data(for: try TransportRequest(method: .get, url: missURL(line: 11, index)))
            }.row)
        let passThrough = MiddlewareTransport(curl, middleware: [PassThrough()])
        emit(
            try await measure(
                "misses, a middleware that does nothing, \(concurrency) at once", requests: concurrentRequests
            ) { index in
                try await passThrough.data(for: try TransportRequest(method: .get, url: missURL(line: 12, index)))
            }.row)
        // A memory cache that has reached its default cap, as a long-running one does: each
        // store evicts the oldest entry, whose memory the next one reuses.
        let fullName = "misses, memory at its 10 MiB cap (each stored, one evicted), \(concurrency) at once"
        let full = try await filledMemoryCache(over: curl, options: options, url: url, selected: isSelected(fullName))
        emit(
            try await measure(fullName, requests: concurrentRequests) { index in
                try await full.data(for: try TransportRequest(method: .get, url: missURL(line: 13, index)))
            }.row)
        for (number, (name, storage)) in try storages(root, suffix: "misses").enumerated() {
            let transport = MiddlewareTransport(curl, middleware: [HTTPCache(storage: storage, options: options)])
            let measurement = "misses, \(name) (each stored), \(concurrency) at once"
            let result = try await measure(measurement, requests: concurrentRequests) { index in
                try await transport.data(
                    for: try TransportRequest(method: .get, url: missURL(line: 14 + number, index)))
            } finish: {
                await (storage as? DiskCacheStorage)?.flush()
            }
            emit(result.row)
            // A cache that stored nothing would look cheap: every answer must be there.
            let stored = await storage.statistics().entryCount
            guard result.skipped || stored >= concurrentRequests else {
                throw ValidationError("\(measurement): \(stored) entries stored of \(concurrentRequests)")
            }
        }

        // The same misses one at a time over the engine: what the cache adds to a request's
        // CPU, with no concurrency to blur it (the lines `cache-cost.sh --counts` counts).
        let onePlainName = "misses, no cache, one at a time"
        emit(
            try await measure(onePlainName, requests: sequentialRequests, concurrency: 1) { index in
                try await curl.data(for: try TransportRequest(method: .get, url: missURL(line: 16, index)))
            }.row)
        let oneFullName = "misses, memory at its 10 MiB cap (each stored, one evicted), one at a time"
        let oneFull = try await filledMemoryCache(
            over: curl, options: options, url: url, selected: isSelected(oneFullName))
        emit(
            try await measure(oneFullName, requests: sequentialRequests, concurrency: 1) { index in
                try await oneFull.data(for: try TransportRequest(method: .get, url: missURL(line: 17, index)))
            }.row)
        let oneDisk = try DiskCacheStorage(directory: "\(root)/one-disk", maximumBytes: 1 << 30)
        let oneDiskTransport = MiddlewareTransport(curl, middleware: [HTTPCache(storage: oneDisk, options: options)])
        let oneDiskName = "misses, disk (each stored), one at a time"
        emit(
            try await measure(oneDiskName, requests: sequentialRequests, concurrency: 1) { index in
                try await oneDiskTransport.data(for: try TransportRequest(method: .get, url: missURL(line: 18, index)))
            } finish: {
                await oneDisk.flush()
            }.row)

        // The cache's own work, without the network: one request at a time.
        let template = try await curl.data(for: try TransportRequest(method: .get, url: url))
        let canned = CannedTransport(template: template)
        emit(
            try await measure("in-process misses, no cache", requests: inProcessRequests, concurrency: 1) { index in
                try await canned.data(for: try TransportRequest(method: .get, url: missURL(line: 19, index)))
            }.row)
        let cannedPassThrough = MiddlewareTransport(canned, middleware: [PassThrough()])
        emit(
            try await measure(
                "in-process misses, a middleware that does nothing", requests: inProcessRequests, concurrency: 1
            ) { index in
                try await cannedPassThrough.data(
                    for: try TransportRequest(method: .get, url: missURL(line: 20, index)))
            }.row)
        // At the cap (the rows after it grow the process, whose new pages the kernel must zero).
        let inProcessFullName = "in-process misses, memory at its 10 MiB cap (each stored, one evicted)"
        let fullTransport = try await filledMemoryCache(
            over: canned, options: options, url: url, selected: isSelected(inProcessFullName))
        emit(
            try await measure(inProcessFullName, requests: inProcessRequests, concurrency: 1) { index in
                try await fullTransport.data(for: try TransportRequest(method: .get, url: missURL(line: 21, index)))
            }.row)
        for (number, (name, storage)) in try storages(root, suffix: "in-process").enumerated() {
            let transport = MiddlewareTransport(canned, middleware: [HTTPCache(storage: storage, options: options)])
            emit(
                try await measure(
                    "in-process misses, \(name) (each stored)", requests: inProcessRequests, concurrency: 1
                ) { index in
                    try await transport.data(
                        for: try TransportRequest(method: .get, url: missURL(line: 22 + number, index)))
                } finish: {
                    await (storage as? DiskCacheStorage)?.flush()
                }.row)
        }
        await curl.shutdown()
    }

    /// A transport through an `HTTPCache` with a default `MemoryCacheStorage` (10 MiB) filled
    /// to its cap, when the measurement that uses it is `selected`.
    func filledMemoryCache(
        over base: any HTTPTransport, options: HTTPCache.Options, url: String, selected: Bool
    ) async throws -> MiddlewareTransport {
        let storage = MemoryCacheStorage()
        let transport = MiddlewareTransport(base, middleware: [HTTPCache(storage: storage, options: options)])
        var index = 0
        while selected, await storage.statistics().evictions == 0 {
            _ = try await transport.data(for: try TransportRequest(method: .get, url: "\(url)?fill=\(index)"))
            index += 1
        }
        return transport
    }

    /// The URL of the `index`th miss of the measurement numbered `line`: the same query for
    /// every measurement, its number and then the index in nine digits, so that no two
    /// measurements ask for the same URL and every miss asks for one of the same length (what
    /// libcurl and the cache's key do with a URL grows with its length).
    func missURL(line: Int, _ index: Int) -> String {
        let digits = String(index)
        return "\(url)?miss=\(line)" + String(repeating: "0", count: max(0, 9 - digits.count)) + digits
    }

    /// Whether `--only` leaves the measurement `name` in.
    func isSelected(_ name: String) -> Bool {
        only.map { name.contains($0) } ?? true
    }

    /// Prints a table row; a skipped measurement has none.
    func emit(_ row: String) {
        if !row.isEmpty { print(row) }
    }

    /// A memory and a disk storage, each large enough for everything a measurement stores.
    func storages(_ root: String, suffix: String) throws -> [(String, any CacheStorage)] {
        [
            ("memory", MemoryCacheStorage(maximumBytes: 1 << 30)),
            ("disk", try DiskCacheStorage(directory: "\(root)/\(suffix)", maximumBytes: 1 << 30)),
        ]
    }

    struct Result {
        var name: String
        var requestsPerSecond: Double
        var median: Double
        var p99: Double
        var cpuMicrosecondsPerRequest: Double

        var skipped = false

        var row: String {
            guard !skipped else { return "" }
            return
                "| \(name) | \(Int(requestsPerSecond.rounded())) | \(Int(median.rounded())) | \(Int(p99.rounded())) | "
                + "\((cpuMicrosecondsPerRequest * 10).rounded() / 10) |"
        }
    }

    /// Runs `requests` calls of `body` on `concurrency` workers, each worker taking the next
    /// index until none is left, then `finish` (the work the calls left behind), within the time
    /// and CPU measured.
    func measure(
        _ name: String, requests: Int, concurrency: Int? = nil,
        _ body: @escaping @Sendable (Int) async throws -> DataResponse,
        finish: () async -> Void = {}
    ) async throws -> Result {
        let workers = concurrency ?? self.concurrency
        guard name == "warm-up" || isSelected(name) else {
            return Result(
                name: name, requestsPerSecond: 0, median: 0, p99: 0, cpuMicrosecondsPerRequest: 0, skipped: true)
        }
        let next = Ticket()
        let clock = ContinuousClock()
        let cpuStart = processCPUSeconds()
        let start = clock.now
        let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
            for _ in 0..<workers {
                group.addTask {
                    var own: [Double] = []
                    while true {
                        let index = next.take()
                        guard index < requests else { return own }
                        let began = clock.now
                        let response = try await body(index)
                        guard response.status.code == 200 else {
                            throw ValidationError("\(name): HTTP \(response.status.code)")
                        }
                        let elapsed = clock.now - began
                        own.append(
                            Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6)
                    }
                }
            }
            return try await group.reduce(into: [Double]()) { $0 += $1 }
        }
        await finish()
        let total = clock.now - start
        let cpu = processCPUSeconds() - cpuStart
        let seconds = Double(total.components.seconds) + Double(total.components.attoseconds) / 1e18
        let sorted = latencies.sorted()
        return Result(
            name: name, requestsPerSecond: Double(requests) / seconds, median: percentile(50, ofSorted: sorted),
            p99: percentile(99, ofSorted: sorted), cpuMicrosecondsPerRequest: cpu / Double(requests) * 1e6)
    }
}

/// Answers every request at once with a copy of one real answer, for the URL asked: its body in
/// new bytes and its header fields in a new list, as a transfer's would be (the engine makes both
/// for each response), so that a middleware that adds a field to the answer pays what it pays
/// with the engine, not the copy a list shared with the template would cost.
struct CannedTransport: HTTPTransport {
    let template: DataResponse

    func send(_ request: TransportRequest) async throws -> TransportResponse {
        let answer = try await data(for: request)
        return TransportResponse(head: answer.head, body: ResponseBody(answer.body), url: answer.url)
    }

    func data(for request: TransportRequest) async throws -> DataResponse {
        let body = template.body.withUnsafeBytes { Data($0) }
        var head = template.head
        // A list of its own with room for 16 fields, as the engine's head parser makes it:
        // reserving room in a list shared with the template copies it into a new one.
        head.headerFields.reserveCapacity(16)
        return DataResponse(head: head, body: body, url: request.url)
    }
}

/// A middleware that passes every request on untouched: what the chain itself costs.
struct PassThrough: TransportMiddleware {
    func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
        try await next(request)
    }
}

/// Hands out 0, 1, 2, … to the workers of a measurement.
final class Ticket: Sendable {
    private let counter = Atomic<Int>(0)

    func take() -> Int { counter.add(1, ordering: .relaxed).oldValue }
}
