#if Observability
    import Downloads
    import Foundation
    import HTTPTypes
    import InMemoryTracing
    import MockBackend
    import ParleyObservability
    import Retry
    import ServerTestSupport
    import TestSupport
    import Testing
    import Tracing
    import Transport
    import TransportCurl

    /// The spans of the two links against the mock server: a span per logical request, a child per
    /// attempt, errors with their category, and the trace context the server receives.
    @Suite struct RequestTracingTests {
        /// The links around a retry link with real, short waits and no budget.
        func observed(_ curl: CurlTransport) -> MiddlewareTransport {
            var policy = RetryPolicy()
            policy.baseDelay = .milliseconds(10)
            policy.budget = nil
            return MiddlewareTransport(
                curl, middleware: [RequestTelemetry(), RetryMiddleware(policy: policy), AttemptTelemetry()])
        }

        @Test func aRequestRetriedTwiceIsOneSpanWithAChildPerAttempt() async throws {
            try await withServerAndTransport { server, curl in
                // Given a route that fails twice with 503 and asks for no wait
                let tracer = InMemoryTracer()
                let request = try TransportRequest(method: .get, url: server.url("/flaky/2?key=tree&retry-after=0"))

                // When the request is sent through the links
                let response = try await withTracer(tracer) { try await observed(curl).data(for: request) }

                // Then the request span holds three attempts, the first two failed with 503, and
                // the two retries are events on it
                #expect(response.status == .ok)
                let common =
                    "http.request.method=GET server.address=127.0.0.1 server.port=PORT url.full=http://127.0.0.1:PORT"
                    + "/flaky/2?key=tree&retry-after=0 url.scheme=http"
                #expect(
                    spanTree(tracer.finishedSpans, port: server.port)
                        == """
                        HTTP GET [internal] http.response.status_code=200 \(common) parley.request.attempts=3
                          event retry parley.retry.attempt=2 parley.retry.delay_ms=0 parley.retry.reason=503
                          event retry parley.retry.attempt=3 parley.retry.delay_ms=0 parley.retry.reason=503
                          GET [client] error.type=503 http.response.status_code=503 \(common) network.protocol.version=1.1 !error
                          GET [client] error.type=503 http.request.resend_count=1 http.response.status_code=503 \(common) network.protocol.version=1.1 !error
                          GET [client] http.request.resend_count=2 http.response.status_code=200 \(common) network.protocol.version=1.1
                        """.sortedAttributes)
            }
        }

        @Test func aCancelledRequestEndsBothSpansWithTheCancelledCategory() async throws {
            try await withServerAndTransport { server, curl in
                // Given a request the server answers only after a minute
                let tracer = InMemoryTracer()
                let request = try TransportRequest(method: .get, url: server.url("/delay/60000"))
                let transport = observed(curl)

                // When its task is cancelled once the server has it
                let task = Task { try await withTracer(tracer) { try await transport.data(for: request) } }
                try await waitUntil { server.requestCount(for: "/delay/60000") == 1 }
                task.cancel()
                let outcome = await task.result

                // Then both spans end in error, typed `cancelled`, and nothing is retried
                #expect((outcome.failure as? TransportError)?.category == .cancelled)
                let common =
                    "http.request.method=GET server.address=127.0.0.1 server.port=PORT "
                    + "url.full=http://127.0.0.1:PORT/delay/60000 url.scheme=http"
                #expect(
                    spanTree(tracer.finishedSpans, port: server.port)
                        == """
                        HTTP GET [internal] error.type=cancelled \(common) parley.request.attempts=1 !error
                          recorded TransportError.cancelled
                          GET [client] error.type=cancelled \(common) !error
                            recorded TransportError.cancelled
                        """.sortedAttributes)
            }
        }

        @Test func aResumedDownloadIsASecondRequestForTheRestOfTheFile() async throws {
            try await withServerAndTransport { server, curl in
                try await withTemporaryFolder { folder in
                    // Given a file whose first answer breaks after 1 MB, once
                    let tracer = InMemoryTracer()
                    let count = 3 << 20
                    let path = "/bytes/\(count)?drop-after=1000000&key=resume"
                    let transport = MiddlewareTransport(curl, middleware: [RequestTelemetry(), AttemptTelemetry()])
                    var options = FileDownload.Options()
                    options.retry.baseDelay = .milliseconds(10)
                    options.retry.budget = nil
                    options.synchronizesToDisk = false
                    let download = try FileDownload(
                        url: server.url(path), to: folder + "/out.bin", transport: transport, options: options)

                    // When the download runs in a span of its own
                    let summary = try await withTracer(tracer) {
                        try await tracer.withSpan("download") { _ in try await download.run() }
                    }

                    // Then each of its two requests is a request span: a whole answer that broke
                    // (its span ends with the head), then a 206 for the rest
                    #expect(summary.requestCount == 2)
                    let common =
                        "http.request.method=GET server.address=127.0.0.1 server.port=PORT "
                        + "url.full=http://127.0.0.1:PORT\(path) url.scheme=http"
                    #expect(
                        spanTree(tracer.finishedSpans, port: server.port)
                            == """
                            download [internal]
                              HTTP GET [internal] http.response.status_code=200 \(common) parley.request.attempts=1
                                GET [client] http.response.status_code=200 \(common)
                              HTTP GET [internal] http.response.status_code=206 \(common) parley.request.attempts=1
                                GET [client] http.response.status_code=206 \(common)
                            """.sortedAttributes)
                }
            }
        }

        @Test func theServerReceivesTheAttemptsTraceContext() async throws {
            try await withServerAndTransport { server, curl in
                // Given a W3C tracer
                let tracer = W3CTestTracer()
                let request = try TransportRequest(method: .get, url: server.url("/flaky/1?key=context&retry-after=0"))

                // When a request is sent that needs two attempts
                _ = try await withTracer(tracer) { try await observed(curl).data(for: request) }

                // Then each attempt carried its own span as the parent of the server's work, in
                // the request's trace, with the tracer's state
                let attempts = tracer.base.finishedSpans.filter { $0.kind == .client }
                    .sorted { $0.startInstant.nanosecondsSinceEpoch < $1.startInstant.nanosecondsSinceEpoch }
                let received = server.receivedRequests()
                try #require(attempts.count == 2 && received.count == 2)
                for (attempt, request) in zip(attempts, received) {
                    #expect(request.values(forHeader: "traceparent") == ["00-\(attempt.traceID)-\(attempt.spanID)-01"])
                    #expect(request.values(forHeader: "tracestate") == [W3CTestTracer.traceState])
                }
                #expect(Set(attempts.map(\.traceID)).count == 1)
            }
        }
    }

    extension String {
        /// Each line with the attributes after its name and kind sorted, as ``spanTree(_:port:)``
        /// writes them: the expected trees above are written in reading order.
        var sortedAttributes: String {
            split(separator: "\n", omittingEmptySubsequences: false).map { line -> String in
                guard let close = line.range(of: "] ") else { return String(line) }
                let head = line[..<close.upperBound]
                var words = line[close.upperBound...].split(separator: " ").map(String.init)
                let error = words.last == "!error"
                if error { words.removeLast() }
                return head + words.sorted().joined(separator: " ") + (error ? " !error" : "")
            }.joined(separator: "\n")
        }
    }
#endif
