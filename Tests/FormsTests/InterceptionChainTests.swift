import Caching
import Coordination
import Forms
import Foundation
import HTTPTypes
import MockBackend
import Retry
import TestSupport
import Testing
import Transport
import TransportCurl

/// The one interception chain of a client, against the mock server: its documented order, the
/// plugins compiled into it, and the collected path through it without conversions.
@Suite struct InterceptionChainTests {
    /// A link that records the request going in and the response coming out.
    struct RecordingLink: TransportMiddleware {
        let name: String
        let journal: LockedRecorder<String>
        func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
            journal.append("→ \(name)")
            let response = try await next(request)
            journal.append("← \(name) \(response.status.code)")
            return response
        }
    }

    /// A link whose first answer is a `503` it makes itself, as a busy server would.
    final class BusyOnce: TransportMiddleware {
        let answered = LockedRecorder<Int>()
        func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
            guard answered.all.isEmpty else { return try await next(request) }
            answered.append(503)
            return TransportResponse(
                head: HTTPResponse(status: .serviceUnavailable), body: ResponseBody(), url: request.url)
        }
    }

    /// Records each credential it applies.
    struct RecordingAuthenticator: Authenticator {
        let journal: LockedRecorder<String>
        func apply(_ credential: String, to request: inout TransportRequest) throws {
            journal.append("authenticate")
            try request.setHeader("Authorization", "Bearer \(credential)")
        }
        func refresh(_ credential: String?) async throws -> String { "renewed" }
    }

    /// Records every hook, under its name.
    struct RecordingPlugin: Plugin {
        let label: String
        let journal: LockedRecorder<String>
        func willSend(_ request: TransportRequest, form: any Formable) async -> PluginDecision {
            journal.append("\(label) willSend")
            return .proceed
        }
        func prepare(_ request: inout TransportRequest, form: any Formable) async throws {
            journal.append("\(label) prepare")
        }
        func process(_ response: DataResponse, form: any Formable) async throws -> DataResponse {
            journal.append("\(label) process")
            return response
        }
        func didReceive(_ response: DataResponse, form: any Formable) async {
            journal.append("\(label) didReceive")
        }
        func afterCompletion(_ result: Result<DataResponse, any Error>, form: any Formable) async {
            journal.append("\(label) afterCompletion")
        }
    }

    /// Records the address of the collected body's bytes that passes through it, and checks that
    /// the response carries the transfer's metrics inside the onion.
    struct BodyAddressLink: TransportMiddleware {
        let addresses: LockedRecorder<Int>
        func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
            let response = try await next(request)
            let body = try #require(response.body.collectedData, "the body is collected inside the onion")
            // The transfer's metrics travel with the response, not on the side.
            #expect(response.metrics != nil)
            addresses.append(Self.address(of: body))
            return response
        }

        static func address(of data: Data) -> Int {
            data.withUnsafeBytes { Int(bitPattern: $0.baseAddress) }
        }
    }

    /// The engine, recording the address of each collected body's bytes it returns.
    struct BodyAddressTransport: HTTPTransport {
        let base: CurlTransport
        let addresses: LockedRecorder<Int>
        func send(_ request: TransportRequest) async throws -> TransportResponse { try await base.send(request) }
        func data(for request: TransportRequest) async throws -> DataResponse {
            let response = try await base.data(for: request)
            addresses.append(BodyAddressLink.address(of: response.body))
            return response
        }
    }

    @Test func runsEveryLinkInTheDocumentedOrder() async throws {
        try await MockServer.withRunning { server in
            let engine = try CurlTransport()
            let journal = LockedRecorder<String>()
            var options = HTTPCache.Options()
            options.forcedLifetime = .seconds(600)
            // Every request carries a credential here, and one user runs the test.
            options.cachesAuthorizedResponses = true
            var client = ClientConfiguration(
                transport: InFlightSharing(
                    base: MiddlewareTransport(
                        engine,
                        middleware: [
                            RecordingLink(name: "transfer", journal: journal),
                            try ConcurrencyLimit(maximumConcurrent: 2),
                            BusyOnce(),
                        ])),
                baseURL: server.baseURL)
            client.plugins = [RecordingPlugin(label: "plugin", journal: journal)]
            client.requestMiddleware = [RecordingLink(name: "logical", journal: journal)]
            client.retry.baseDelay = .milliseconds(1)
            client.retry.budget = RetryBudget()
            client.middleware = [
                RecordingLink(name: "observer", journal: journal),
                AuthenticationMiddleware(RecordingAuthenticator(journal: journal), credential: "first"),
                HTTPCache(options: options),
                RecordingLink(name: "below the cache", journal: journal),
            ]
            let screen = Screen(clientConfiguration: client)

            // A miss whose first attempt the server answers "busy": retried through the links
            // inside the retries, the plugins and the logical request's link seeing it once.
            let first = try await screen.request(WeatherForm.forecast(city: "Rome")).value
            #expect(first.status == .ok)
            let attempt = [
                "→ observer", "authenticate", "→ below the cache", "→ transfer",
            ]
            #expect(
                journal.all == ["plugin willSend", "plugin prepare", "→ logical"]
                    + attempt + ["← transfer 503", "← below the cache 503", "← observer 503"]
                    + attempt + ["← transfer 200", "← below the cache 200", "← observer 200"]
                    + ["← logical 200", "plugin process", "plugin didReceive", "plugin afterCompletion"])

            // A hit: authenticated (the cache sees the credential), answered before sharing, the
            // limit and the network, and no retry.
            let before = journal.all.count
            let second = try await screen.request(WeatherForm.forecast(city: "Rome")).value
            #expect(CacheStatus(second.head) == .hit)
            #expect(
                journal.all.dropFirst(before) == [
                    "plugin willSend", "plugin prepare", "→ logical", "→ observer", "authenticate",
                    "← observer 200", "← logical 200", "plugin process", "plugin didReceive",
                    "plugin afterCompletion",
                ])
            await engine.shutdown()
        }
    }

    @Test func compilesPluginsIntoLinksInTheirOrder() async throws {
        try await MockServer.withRunning { server in
            let engine = try CurlTransport()
            let journal = LockedRecorder<String>()
            var client = ClientConfiguration(transport: engine, baseURL: server.baseURL)
            client.plugins = [
                RecordingPlugin(label: "A", journal: journal), RecordingPlugin(label: "B", journal: journal),
            ]
            client.middleware = [RecordingLink(name: "link", journal: journal)]

            _ = try await Screen(clientConfiguration: client).data(for: WeatherForm.forecast(city: "Rome"))

            #expect(
                journal.all == [
                    "A willSend", "B willSend", "A prepare", "B prepare", "→ link", "← link 200", "A process",
                    "B process", "A didReceive", "B didReceive", "A afterCompletion", "B afterCompletion",
                ])
            await engine.shutdown()
        }
    }

    @Test func theCollectedBodyCrossesTheOnionWithoutACopy() async throws {
        try await MockServer.withRunning { server in
            let curl = try CurlTransport()
            let addresses = LockedRecorder<Int>()
            let link = BodyAddressLink(addresses: addresses)
            let engine = BodyAddressTransport(base: curl, addresses: addresses)

            // A transport in middleware: the engine's bytes, and its metrics, come out as they went in.
            let transport = MiddlewareTransport(engine, middleware: [link, link])
            let response = try await transport.data(for: try TransportRequest(method: .get, url: server.url("/echo")))
            #expect(response.body.count > 16)
            #expect(response.metrics != nil)
            #expect(addresses.all.count == 3)
            #expect(Set(addresses.all) == [BodyAddressLink.address(of: response.body)])

            // A client: the plugins' links, the retries and the middleware hand the same bytes on.
            let before = addresses.all.count
            var client = ClientConfiguration(transport: engine, baseURL: server.baseURL)
            client.middleware = [link]
            client.plugins = [RecordingPlugin(label: "plugin", journal: LockedRecorder())]
            let awaited = try await Screen(clientConfiguration: client).data(for: WeatherForm.forecast(city: "Rome"))
            #expect(awaited.metrics != nil)
            let address = BodyAddressLink.address(of: awaited.body)
            #expect(addresses.all.dropFirst(before) == [address, address])
            await curl.shutdown()
        }
    }
}
