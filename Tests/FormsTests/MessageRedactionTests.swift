import Downloads
import Forms
import Foundation
import HTTPTypes
import Logging
import Mapping
import MockBackend
import Retry
import ServerTestSupport
import TestSupport
import Testing
import Transport
import TransportCurl

/// A credential in a request's URL never reaches a message a person or a log reads, whichever
/// layer makes it: the engine's error mapping against real failures on loopback, Mapping's
/// status policy and body excerpts, Downloads, Retry's events and log lines, and the logging
/// plugin. Each case puts a secret where it would once have leaked and checks that the text
/// holds `<redacted>` instead. Without `LogRedaction.redactedText` at the places messages are
/// made, every one of them fails (checked by making the rule return its input).
@Suite struct MessageRedactionTests {
    static let secret = "s3cr3t-7f1d"

    /// Expects `texts` to hold no trace of the secret, and `<redacted>` somewhere.
    private func expectRedacted(_ texts: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        let joined = texts.joined(separator: "\n")
        #expect(!joined.contains(Self.secret), "\(joined)", sourceLocation: sourceLocation)
        #expect(!joined.contains("pa55"), "\(joined)", sourceLocation: sourceLocation)
        #expect(joined.contains("<redacted>"), "\(joined)", sourceLocation: sourceLocation)
    }

    /// Every way an error is shown.
    private func renderings(of error: any Error) -> [String] {
        var texts = ["\(error)", String(describing: error), RequestFailure(error).message]
        if let error = error as? any ActionableError { texts.append(error.message) }
        return texts
    }

    @Test func aRefusedConnectionDescribesTheURLWithoutItsToken() async throws {
        // Port 9 (discard) is closed on the test machines: the connection is refused. (A port
        // just closed could be taken by another test's server meanwhile.)
        let port = 9
        let transport = try CurlTransport()
        let request = try TransportRequest(method: .get, url: "http://127.0.0.1:\(port)/p?token=\(Self.secret)")
        let error = await #expect(throws: TransportError.self) { try await transport.data(for: request) }
        await transport.shutdown()
        let failure = try #require(error)
        #expect(failure.category == .connectionRefused)
        expectRedacted(renderings(of: failure))
        // Programs still get the URL as it was sent.
        #expect(failure.url?.contains(Self.secret) == true)
        #expect(failure.redactedURL == "http://127.0.0.1:\(port)/p?token=<redacted>")
    }

    @Test func aTimeoutQuotesTheURLWithoutItsToken() async throws {
        try await ScriptedSocketServer.withRunning(.holdOpen) { server in
            let transport = try CurlTransport()
            var request = try TransportRequest(
                method: .get, url: "\(server.baseURL)/slow?city=Oslo&access_token=\(Self.secret)")
            request.options.deadline = .milliseconds(300)
            let error = await #expect(throws: TransportError.self) { try await transport.data(for: request) }
            await transport.shutdown()
            let failure = try #require(error)
            #expect(failure.category == .deadlineExceeded)
            #expect(failure.message.contains("access_token=<redacted>"), "\(failure.message)")
            expectRedacted(renderings(of: failure))
        }
    }

    @Test func aURLWithAPasswordIsRefusedWithoutShowingThePassword() throws {
        // The request is refused as it is made, before any transport sees it.
        let error = #expect(throws: TransportError.self) {
            try TransportRequest(method: .get, url: "http://user:pa55@127.0.0.1:9/")
        }
        let failure = try #require(error)
        #expect(failure.category == .invalidURL)
        #expect(failure.message.contains("http://user:<redacted>@127.0.0.1:9/"), "\(failure.message)")
        expectRedacted(renderings(of: failure))
    }

    @Test func aStatusThePolicyRefusesNamesTheURLWithoutItsToken() async throws {
        try await withServerAndTransport { server, transport in
            let request = try TransportRequest(method: .get, url: server.url("/status/404?api_key=\(Self.secret)"))
            let response = try await transport.data(for: request)
            let error = #expect(throws: MappingError.self) { try ResponseDecoder().validate(response) }
            let failure = try #require(error)
            #expect(failure.category == .unacceptableStatus)
            #expect(failure.url?.contains(Self.secret) == true)
            expectRedacted(renderings(of: failure))
        }
    }

    @Test func aBodyExcerptHidesACookieHeaderTheServerEchoed() async throws {
        let body = "upstream failed; it was sent Cookie: sid=\(Self.secret); theme=dark"
        let response =
            "HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Connection: close\r\n\r\n\(body)"
        try await ScriptedSocketServer.withRunning(.respond(response)) { server in
            let transport = try CurlTransport()
            let answer = try await transport.data(for: try TransportRequest(method: .get, url: server.baseURL + "/"))
            await transport.shutdown()
            let error = #expect(throws: MappingError.self) { try ResponseDecoder().validate(answer) }
            let failure = try #require(error)
            expectRedacted(renderings(of: failure) + [failure.excerpt ?? ""])
        }
    }

    @Test func aFailedDownloadNamesTheURLWithoutItsToken() async throws {
        try await withServerAndTransport { server, transport in
            try await withTemporaryFolder { folder in
                let download = try FileDownload(
                    url: server.url("/status/404?token=\(Self.secret)"), to: folder + "/file.bin",
                    transport: transport, options: .quick)
                let error = await #expect(throws: TransportError.self) { try await download.run() }
                let failure = try #require(error)
                #expect(failure.category == .downloadFailed)
                // The partial file's path may be shown; the URL's token may not.
                expectRedacted(renderings(of: failure))
            }
        }
    }

    @Test func retryEventsAndLogLinesShowNoToken() async throws {
        let port = 9  // closed: every attempt is refused
        let curl = try CurlTransport()
        let logs = LogCapture()
        var policy = RetryPolicy()
        policy.baseDelay = .milliseconds(10)
        policy.maximumRetries = 2
        policy.budget = nil
        let events = LockedRecorder<TransferEvent>()
        let transport = MiddlewareTransport(curl, middleware: [RetryMiddleware(policy: policy, logger: logs.logger())])
        var request = try TransportRequest(method: .get, url: "http://127.0.0.1:\(port)/?token=\(Self.secret)")
        request.options.eventHandler = events.handler
        let error = await #expect(throws: TransportError.self) { try await transport.data(for: request) }
        await curl.shutdown()
        let reasons = events.all.compactMap { event -> String? in
            if case .retry(let retry) = event { return retry.reason }
            return nil
        }
        #expect(reasons.count == 2)
        #expect(logs.messages.count >= 2)
        expectRedacted(logs.messages + renderings(of: try #require(error)))
        #expect(!reasons.joined().contains(Self.secret))
    }

    @Test func aFormsOwnErrorQuotesItsPathWithoutItsToken() async throws {
        // A form without any base URL fails before sending, naming its path.
        let transport = try CurlTransport()
        let configuration = ClientConfiguration(transport: transport, baseURL: "")
        let form = SecretPathForm(path: "/file?token=\(Self.secret)")
        let error = await #expect(throws: FormError.self) {
            _ = try await Screen(clientConfiguration: configuration).request(form).value
        }
        await transport.shutdown()
        expectRedacted(renderings(of: try #require(error)))
    }

    @Test func theLoggingPluginShowsAFailedFormWithoutItsToken() async throws {
        // Port 9 (discard): the connection is refused.
        let transport = try CurlTransport()
        let logs = LogCapture()
        var configuration = ClientConfiguration(transport: transport, baseURL: "http://127.0.0.1:9")
        configuration.isLoggingEnabled = true
        configuration.logger = logs.logger(level: .debug)
        configuration.retry.maximumRetries = 0
        let form = SecretPathForm(path: "/file?token=\(Self.secret)")
        let error = await #expect(throws: (any Error).self) {
            _ = try await Screen(clientConfiguration: configuration).request(form).value
        }
        await transport.shutdown()
        #expect(error != nil)
        let failures = logs.messages.filter { $0.hasPrefix("✕") }
        #expect(failures.count == 1, "\(logs.messages)")
        expectRedacted(logs.messages)
    }
}

/// A form whose path carries its query, as `parley-demo fetch` builds them.
private struct SecretPathForm: RequestFormable {
    var path: String
}
