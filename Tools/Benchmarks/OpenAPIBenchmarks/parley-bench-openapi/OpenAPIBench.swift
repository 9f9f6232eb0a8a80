import AsyncHTTPClient
import Foundation
import OpenAPIAsyncHTTPClient
import OpenAPIRuntime
import Transport
import TransportCurl
import WeatherOpenAPI

/// `parley-bench-openapi URL [--concurrency N] [--requests N] [--rounds N]`: the generated weather
/// client's `getForecast` (a GET whose JSON body the generated code decodes), `N` workers issuing
/// requests back to back, on Parley and on swift-openapi-async-http-client in turn, several
/// rounds each, against the mock backend at `URL`. Prints each round, the median throughput of
/// each transport, and Parley's ratio to AsyncHTTPClient's.
///
/// Both transports are configured as an application would: Parley's engine with as many
/// connections per host as workers, AsyncHTTPClient on the shared event loop group with its
/// HTTP/1 pool raised to the same count.
@main
struct OpenAPIBench {
    struct Options {
        var url = ""
        var concurrency = 64
        var requests = 20_000
        var rounds = 3
    }

    static func main() async throws {
        guard let options = parse(Array(CommandLine.arguments.dropFirst())), let serverURL = URL(string: options.url)
        else {
            print("usage: parley-bench-openapi URL [--concurrency 64] [--requests 20000] [--rounds 3]")
            exit(2)
        }

        var configuration = CurlTransport.Configuration()
        configuration.maximumConnectionsPerHost = options.concurrency
        let engine = try CurlTransport(configuration: configuration)
        let parley = Client(serverURL: serverURL, parley: engine)

        var pool = HTTPClient.Configuration()
        pool.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = options.concurrency
        let httpClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: pool)
        let asyncHTTPClient = Client(
            serverURL: serverURL, transport: AsyncHTTPClientTransport(configuration: .init(client: httpClient)))

        print("getForecast, \(options.concurrency) concurrent, \(options.requests) requests a round, \(options.url)")
        var parleyRates: [Double] = []
        var ahcRates: [Double] = []
        // A warm-up round of each, then rounds that alternate, so that both see the same machine.
        _ = try await round(parley, options: options, requests: options.concurrency * 20)
        _ = try await round(asyncHTTPClient, options: options, requests: options.concurrency * 20)
        for index in 1...options.rounds {
            let parleyRate = try await round(parley, options: options, requests: options.requests)
            let ahcRate = try await round(asyncHTTPClient, options: options, requests: options.requests)
            parleyRates.append(parleyRate)
            ahcRates.append(ahcRate)
            print(
                "round \(index): parley \(Int(parleyRate)) req/s, async-http-client \(Int(ahcRate)) req/s, "
                    + "ratio \(String(format: "%.2f", parleyRate / ahcRate))")
        }
        let parleyMedian = median(parleyRates)
        let ahcMedian = median(ahcRates)
        print("median: parley \(Int(parleyMedian)) req/s, async-http-client \(Int(ahcMedian)) req/s")
        print("ratio: \(String(format: "%.2f", parleyMedian / ahcMedian))")

        try await httpClient.shutdown()
        await engine.shutdown()
    }

    /// Runs `requests` calls with `options.concurrency` workers; returns requests per second.
    static func round(_ client: Client, options: Options, requests: Int) async throws -> Double {
        let next = Counter()
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<options.concurrency {
                group.addTask {
                    while next.take() < requests {
                        let forecast = try await client.getForecast(query: .init(city: "Toronto")).ok.body.json
                        guard forecast.code == 200, forecast.data?.threeDayForecast.count == 3 else {
                            throw BenchmarkFailure(message: "unexpected answer: \(forecast)")
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        return Double(requests) / seconds
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    static func parse(_ arguments: [String]) -> Options? {
        var options = Options()
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--concurrency", "--requests", "--rounds":
                guard let text = rest.popFirst(), let value = Int(text), value > 0 else { return nil }
                switch argument {
                case "--concurrency": options.concurrency = value
                case "--requests": options.requests = value
                default: options.rounds = value
                }
            default:
                guard options.url.isEmpty, !argument.hasPrefix("-") else { return nil }
                options.url = argument
            }
        }
        return options.url.isEmpty ? nil : options
    }
}

/// A call that did not answer as the mock backend does.
struct BenchmarkFailure: Error {
    let message: String
}
