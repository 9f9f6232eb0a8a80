// parley-bench-cache: what Parley's HTTP cache saves and what it costs.
//
// Against one URL on a loopback server (Tools/Benchmarks/cache-cost.sh starts a private nginx):
//
// - sequential: the latency of a GET through `CurlTransport` alone, and of a hit through an
//   `HTTPCache` (memory and disk storage), one request at a time;
// - concurrent misses: `--concurrency` workers sending GETs that all miss (each to its own
//   query string), through `CurlTransport` alone and through a cache that stores every answer
//   (a forced lifetime, so nginx's headers do not matter), in memory and on disk.
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
            emit(
                try await measure("hit, \(name), one at a time", requests: sequentialRequests, concurrency: 1) { _ in
                    try await transport.data(for: try TransportRequest(method: .get, url: url))
                }.row)
        }
        emit(
            try await measure("misses, no cache, \(concurrency) at once", requests: concurrentRequests) { index in
                try await curl.data(for: try TransportRequest(method: .get, url: "\(url)?plain=\(index)"))
            }.row)
        for (name, storage) in try storages(root, suffix: "misses") {
            let transport = MiddlewareTransport(curl, middleware: [HTTPCache(storage: storage, options: options)])
            emit(
                try await measure("misses, \(name) (each stored), \(concurrency) at once", requests: concurrentRequests)
                { index in
                    try await transport.data(for: try TransportRequest(method: .get, url: "\(url)?\(name)=\(index)"))
                }.row)
        }
        await curl.shutdown()
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
                + "\(Int(cpuMicrosecondsPerRequest.rounded())) |"
        }
    }

    /// Runs `requests` calls of `body` on `concurrency` workers, each worker taking the next
    /// index until none is left.
    func measure(
        _ name: String, requests: Int, concurrency: Int? = nil,
        _ body: @escaping @Sendable (Int) async throws -> DataResponse
    ) async throws -> Result {
        let workers = concurrency ?? self.concurrency
        if let only, name != "warm-up", !name.contains(only) {
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
        let total = clock.now - start
        let cpu = processCPUSeconds() - cpuStart
        let seconds = Double(total.components.seconds) + Double(total.components.attoseconds) / 1e18
        let sorted = latencies.sorted()
        return Result(
            name: name, requestsPerSecond: Double(requests) / seconds, median: percentile(50, ofSorted: sorted),
            p99: percentile(99, ofSorted: sorted), cpuMicrosecondsPerRequest: cpu / Double(requests) * 1e6)
    }
}

/// Hands out 0, 1, 2, … to the workers of a measurement.
final class Ticket: Sendable {
    private let counter = Atomic<Int>(0)

    func take() -> Int { counter.add(1, ordering: .relaxed).oldValue }
}
