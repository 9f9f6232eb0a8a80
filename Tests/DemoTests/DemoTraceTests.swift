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

            // Then the command succeeds and its tree lists the three attempts under the command
            #expect(run.status == 0, "\(run.standardError)")
            let tree = try #require(run.standardError.range(of: "trace:\n")).upperBound
            let lines = run.standardError[tree...].split(separator: "\n").map(String.init)
            try #require(lines.count >= 4, "\(run.standardError)")
            #expect(lines[0].hasPrefix("  parley-demo weather forecast [internal] "))
            #expect(lines[0].hasSuffix("exit.status=0"))
            let attempts = Array(lines[1...3])
            for (attempt, status) in zip(attempts, [503, 503, 200]) {
                #expect(attempt.hasPrefix("    GET [client] "), "\(attempt)")
                #expect(attempt.contains("http.response.status_code=\(status)"), "\(attempt)")
                #expect(attempt.hasSuffix("✗") == (status == 503), "\(attempt)")
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
