import Foundation
import HTTPTypes
import MockBackend
import Testing
import Transport
import TransportCurl

/// A request is validated once: the validating initialiser records what it checked and the
/// engine trusts that record, while a request that skipped validation is still refused.
@Suite struct ValidationOnceTests {
    @Test func theInitialiserRecordsWhatItCheckedAndCheckedChangesKeepIt() throws {
        var request = try TransportRequest(method: .get, url: "HTTPS://api.example.com/a?b=1#fragment")
        #expect(request.validatedURL == "https://api.example.com/a?b=1")
        #expect(request.validatedURL == (try RequestValidation.validate(request.head)))

        try request.setHeader("Accept", "application/json")
        try request.addHeader("X-Trace", "1")
        #expect(request.validatedURL == "https://api.example.com/a?b=1")

        // A change the request cannot check leaves the check to the engine.
        request.head.headerFields[.cacheControl] = "no-cache"
        #expect(request.validatedURL == nil)
        #expect(request.url == "https://api.example.com/a?b=1")

        #expect(TransportRequest(head: request.head).validatedURL == nil)
    }

    @Test func theEngineRefusesARequestChangedAfterValidation() async throws {
        try await MockServer.withRunning { server in
            let transport = try CurlTransport()
            var request = try TransportRequest(method: .get, url: server.url("/echo"))
            // swift-http-types keeps the space: not allowed in a request target.
            request.head.path = "/echo with space"

            let error = await #expect(throws: TransportError.self) { try await transport.data(for: request) }
            #expect(error?.category == .invalidURL)
            #expect(error?.mayHaveReachedServer == false)

            // A raw head never passed the initialiser's checks: the engine makes them.
            let raw = HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:1", path: "/a\tb")
            let rawError = await #expect(throws: TransportError.self) {
                try await transport.data(for: TransportRequest(head: raw))
            }
            #expect(rawError?.category == .invalidURL)
            await transport.shutdown()
        }
    }
}
