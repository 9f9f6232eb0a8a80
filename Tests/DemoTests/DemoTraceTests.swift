import Foundation
import MockBackend
import TestSupport
import Testing

/// `parley-demo --trace`: the span tree on standard error, and the trace context the backend
/// receives with each attempt.
@Suite(.serialized) struct DemoTraceTests {
    @Test func printsTheCommandsSpansAndSendsEachAttemptsTraceparent() async throws {
        try await MockServer.withRunning { server in
            // Given a backend whose forecast fails twice with 503, asking for no wait
            server.faults.script(
                "/weather", [.unavailable(retryAfter: .zero), .unavailable(retryAfter: .zero), .ok])

            // When a person asks for a forecast with --trace
            let run = try await runDemo(["--server", server.baseURL, "--trace", "weather", "forecast", "Toronto"])

            // Then the command succeeds, and its tree has the logical request under the command
            // and the three attempts under the request, each retry an event of the request
            #expect(run.status == 0, "\(run.standardError)")
            let tree = try #require(run.standardError.range(of: "trace:\n")).upperBound
            let lines = run.standardError[tree...].split(separator: "\n").map(String.init)
            try #require(lines.count >= 5, "\(run.standardError)")
            #expect(lines[0].hasPrefix("  parley-demo weather forecast [internal] "))
            #expect(lines[0].hasSuffix("exit.status=0"))
            #expect(lines[1].hasPrefix("    HTTP GET [internal] "), "\(lines[1])")
            #expect(lines[1].hasSuffix("parley.request.attempts=3"), "\(lines[1])")
            let retries = lines.filter { $0.hasPrefix("      · retry ") }
            #expect(retries.count == 2, "\(run.standardError)")
            #expect(retries.allSatisfy { $0.contains("parley.retry.reason=503") }, "\(retries)")
            let attempts = lines.filter { $0.hasPrefix("      GET [client] ") }
            try #require(attempts.count == 3, "\(run.standardError)")
            for (index, (attempt, status)) in zip(attempts, [503, 503, 200]).enumerated() {
                #expect(attempt.contains("http.response.status_code=\(status)"), "\(attempt)")
                #expect(attempt.hasSuffix("✗") == (status == 503), "\(attempt)")
                // The second and third attempts are resends of the request.
                #expect(attempt.contains("http.request.resend_count=\(index)") == (index > 0), "\(attempt)")
            }

            // And each attempt sent a W3C traceparent of one trace, a span of its own
            let sent = server.receivedRequests().filter { $0.path.hasPrefix("/weather?") }
                .flatMap { $0.values(forHeader: "traceparent") }
            #expect(sent.count == 3)
            let parts = sent.map { $0.split(separator: "-").map(String.init) }
            #expect(parts.allSatisfy { $0.count == 4 && $0[0] == "00" && $0[1].count == 32 && $0[2].count == 16 })
            #expect(Set(parts.map { $0[1] }).count == 1, "\(sent)")
            #expect(Set(parts.map { $0[2] }).count == 3, "\(sent)")
        }
    }
}
