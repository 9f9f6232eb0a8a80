import Forms
import Foundation
import HTTPTypes
import MockBackend
import Retry
import ServerTestSupport
import Synchronization
import TestSupport
import Testing
import Transport
import TransportCurl
import TransportTesting

/// `Requestable.data(for:)`: the request a handle would send, awaited in the calling task.
@Suite struct AwaitedRequestTests {
    @Test func sendsWhatAHandleSendsAndReturnsTheResponse() async throws {
        // Given a client with headers, common parameters and a base URL
        let (stub, configuration) = stubbed(.init(body: Data(#"{"code":200}"#.utf8)))
        let screen = Screen(clientConfiguration: configuration)

        // When the same form is sent through a handle and awaited directly
        _ = try await screen.request(WeatherForm.forecast(city: "Oslo")).value
        let response = try await screen.data(for: WeatherForm.forecast(city: "Oslo"))

        // Then both requests are the same, and the response is the body the server sent
        #expect(response.body == Data(#"{"code":200}"#.utf8))
        let requests = stub.requests
        #expect(requests.count == 2)
        #expect(requests[0].url == requests[1].url)
        #expect(requests[0].head.headerFields == requests[1].head.headerFields)
        #expect(requests[1].head.headerFields[.authorization] == "Bearer token-1")
    }

    @Test func failsClearlyWithoutAConfiguration() async throws {
        let error = await #expect(throws: FormError.self) {
            try await Screen(clientConfiguration: nil).data(for: WeatherForm.forecast(city: "Rome"))
        }
        #expect(error?.category == .notConfigured)
    }

    @Test func runsThePluginsAndTheClientsRetries() async throws {
        try await withServerAndTransport { server, transport in
            // Given a client with a plugin, and a route that fails twice with 503 before it answers
            var configuration = ClientConfiguration(transport: transport, baseURL: server.baseURL)
            configuration.retry.baseDelay = .milliseconds(10)
            let prepared = LockedRecorder<String>()
            configuration.plugins = [Preparer(prepared: prepared)]

            // When the form is awaited directly
            let response = try await Screen(clientConfiguration: configuration).data(for: Flaky(key: "direct"))

            // Then the plugin prepared it once and the retries made it succeed
            #expect(response.status == .ok)
            #expect(prepared.all == ["/flaky/2"])
            #expect(server.requestCount(for: "/flaky/2") == 3)
        }
    }

    @Test(.timeLimit(.minutes(1))) func cancellingTheCallingTaskCancelsTheRequest() async throws {
        try await withServerAndTransport { server, transport in
            // Given a request the server holds for ten minutes, awaited in a task
            let screen = Screen(clientConfiguration: ClientConfiguration(transport: transport, baseURL: server.baseURL))
            let task = Task { try await screen.data(for: Held()) }
            try await waitUntil { server.receivedRequests().contains { $0.path == "/delay/600000" } }

            // When the task is cancelled
            task.cancel()

            // Then the call fails as cancelled, at once
            let error = try #require(await task.result.failure as? TransportError)
            #expect(error.category == .cancelled)
        }
    }

    /// A route that answers 503 twice (per key), then 200.
    struct Flaky: RequestFormable {
        let key: String
        var path: String { "/flaky/2" }
        var parameters: Parameters { ["key": key, "retry-after": 0] }
    }

    /// A route the server holds for ten minutes.
    struct Held: RequestFormable {
        var path: String { "/delay/600000" }
    }

    /// Records the path of each request it prepares.
    struct Preparer: Plugin {
        let prepared: LockedRecorder<String>
        func prepare(_ request: inout TransportRequest, form: any Formable) async throws {
            prepared.append(request.head.path?.split(separator: "?").first.map(String.init) ?? "")
        }
    }
}
