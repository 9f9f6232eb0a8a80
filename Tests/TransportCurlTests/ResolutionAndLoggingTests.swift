import Foundation
import HTTPTypes
import Logging
import MockBackend
import TestSupport
import Testing
import Transport
import TransportCurl

@Suite struct ResolutionAndLoggingTests {
    @Test func reportsAHostThatCannotBeResolved() async throws {
        // A 64-character label is invalid DNS, so the resolver fails without sending a query.
        let host = String(repeating: "a", count: 64) + ".invalid"
        try await withTransport { transport in
            let error = await #expect(throws: TransportError.self) {
                try await transport.data(
                    for: TransportRequest(method: .post, url: "http://\(host)/", body: .string("x")))
            }
            #expect(error?.category == .dnsFailure)
            #expect(error?.mayHaveReachedServer == false)
        }
    }

    @Test func logsRequestsWithCredentialsRedacted() async throws {
        try await MockServer.withRunning { server in
            let store = LogCapture()
            try await withTransport(.with { $0.logger = store.logger(level: .trace) }) { transport in
                let request = try TransportRequest(
                    method: .get, url: server.url("/cookies/set?session=abc123"),
                    headers: ["Authorization": "Bearer top-secret", "Cookie": "id=cookie-secret", "X-Plain": "visible"])
                _ = try await transport.data(for: request)
            }
            let log = store.messages.joined(separator: "\n")
            #expect(log.contains("→ GET"))
            #expect(log.contains("← 200"))
            #expect(log.contains("visible"))
            #expect(log.contains("<redacted>"))
            #expect(!log.contains("top-secret"))
            #expect(!log.contains("cookie-secret"))
            let setCookieLines = log.split(separator: "\n").filter { $0.lowercased().hasPrefix("set-cookie") }
            #expect(!setCookieLines.isEmpty)
            #expect(setCookieLines.allSatisfy { $0.hasSuffix("<redacted>") })
        }
    }
}
