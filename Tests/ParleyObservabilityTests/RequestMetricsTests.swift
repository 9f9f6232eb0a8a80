#if Observability
    import Caching
    import Foundation
    import HTTPTypes
    import Metrics
    import MetricsTestKit
    import MockBackend
    import ParleyObservability
    import Retry
    import ServerTestSupport
    import TestSupport
    import Testing
    import Transport
    import TransportCurl

    /// The metrics of the two links after a scripted sequence of requests against the mock
    /// server, every counter, meter and timer named and valued.
    @Suite struct RequestMetricsTests {
        @Test func aScriptedSequenceLeavesExactlyTheseMetrics() async throws {
            try await withServerAndTransport { server, curl in
                // Given the links around a cache and a retry link, and a metrics backend
                var policy = RetryPolicy()
                policy.baseDelay = .milliseconds(10)
                policy.budget = nil
                let transport = MiddlewareTransport(
                    curl,
                    middleware: [RequestTelemetry(), HTTPCache(), RetryMiddleware(policy: policy), AttemptTelemetry()])
                let metrics = TestMetrics()
                // A port nothing listens on, below the ephemeral range: no test's server takes it.
                let closed = 9

                // When five requests are sent: one retried twice, one cached then hit, one 404,
                // one refused (and retried three times)
                try await withMetricsFactory(metrics) {
                    let flaky = try await transport.data(for: get(server.url("/flaky/2?key=metrics&retry-after=0")))
                    #expect(flaky.status == .ok)
                    for _ in 0..<2 {
                        let cached = try await transport.data(for: get(server.url("/cache?key=metrics&max-age=60")))
                        #expect(cached.status == .ok)
                    }
                    let missing = try await transport.data(for: get(server.url("/status/404")))
                    #expect(missing.status == .notFound)
                    await #expect(throws: TransportError.self) {
                        try await transport.data(for: get("http://127.0.0.1:\(closed)/"))
                    }
                }

                // Then the counters, meters and timers are exactly these
                let here = "GET 127.0.0.1:\(server.port)"
                let refused = "GET 127.0.0.1:\(closed)"
                #expect(
                    counters(metrics)
                        == [
                            "parley.http.client.cache.lookups \(here) parley.cache.status=hit = 1",
                            "parley.http.client.cache.lookups \(here) parley.cache.status=miss = 3",
                            "parley.http.client.failures \(refused) error.type=connectionRefused = 1",
                            "parley.http.client.requests \(here) parley.http.response.status_class=2xx = 3",
                            "parley.http.client.requests \(here) parley.http.response.status_class=4xx = 1",
                            "parley.http.client.requests \(refused) parley.http.response.status_class=error = 1",
                            "parley.http.client.retries \(here) parley.retry.reason=503 = 2",
                            "parley.http.client.retries \(refused) parley.retry.reason=connectionRefused = 3",
                        ].sorted())
                #expect(
                    meters(metrics)
                        == [
                            "http.client.active_requests \(here) url.scheme=http = [1, 0, 1, 0, 1, 0, 1, 0]",
                            "http.client.active_requests \(refused) url.scheme=http = [1, 0]",
                        ].sorted())
                #expect(
                    timers(metrics)
                        == [
                            "http.client.request.duration \(here) http.response.status_code=200 "
                                + "parley.http.response.status_class=2xx: 2 values",
                            "http.client.request.duration \(here) http.response.status_code=404 "
                                + "parley.http.response.status_class=4xx: 1 values",
                            "http.client.request.duration \(here) http.response.status_code=503 "
                                + "parley.http.response.status_class=5xx: 2 values",
                            "http.client.request.duration \(refused) error.type=connectionRefused: 4 values",
                            "parley.http.client.connect.duration \(here): 5 values",
                            "parley.http.client.dns.duration \(here): 5 values",
                            "parley.http.client.first_byte.duration \(here): 5 values",
                            "parley.http.client.logical_request.duration \(here) parley.http.response.status_class=2xx: 3 values",
                            "parley.http.client.logical_request.duration \(here) parley.http.response.status_class=4xx: 1 values",
                            "parley.http.client.logical_request.duration \(refused) parley.http.response.status_class=error: 1 values",
                            "parley.http.client.tls.duration \(here): 5 values",
                        ].sorted())
            }
        }

        private func get(_ url: String) throws -> TransportRequest {
            try TransportRequest(method: .get, url: url)
        }
    }

    /// `label GET host:port name=value… = total`, one line a counter, sorted.
    private func counters(_ metrics: TestMetrics) -> [String] {
        metrics.counters.map { "\($0.label) \(shown($0.dimensions)) = \($0.totalValue)" }.sorted()
    }

    /// `label GET host:port name=value… = [values]`, one line a meter, sorted.
    private func meters(_ metrics: TestMetrics) -> [String] {
        metrics.meters.map { meter in
            "\(meter.label) \(shown(meter.dimensions)) = [\(meter.values.map { "\(Int($0))" }.joined(separator: ", "))]"
        }.sorted()
    }

    /// `label GET host:port name=value…: N values`, one line a timer, sorted: how many durations
    /// each recorded, never what they were.
    private func timers(_ metrics: TestMetrics) -> [String] {
        metrics.timers.map { "\($0.label) \(shown($0.dimensions)): \($0.values.count) values" }.sorted()
    }

    /// The method, server and port as `GET 127.0.0.1:PORT`, then the other dimensions as
    /// `name=value`, in the order given.
    private func shown(_ dimensions: [(String, String)]) -> String {
        let value = { (name: String) in dimensions.first { $0.0 == name }?.1 ?? "-" }
        let common: Set = ["http.request.method", "server.address", "server.port"]
        let rest = dimensions.filter { !common.contains($0.0) }.map { "\($0.0)=\($0.1)" }
        return (["\(value("http.request.method")) \(value("server.address")):\(value("server.port"))"] + rest)
            .joined(separator: " ")
    }
#endif
