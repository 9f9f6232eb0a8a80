import Forms
import Foundation
import HTTPTypes
import Logging
import MockBackend
import TestSupport
import Testing
import Transport
import TransportCurl
import TransportTesting

final class EventCounter: Sendable {
    private let state = PThreadMutex(0)
    func count(_ event: RequestEvent) { if case .completed = event { state.withLock { $0 += 1 } } }
    var completions: Int { state.withLock { $0 } }
}

@Suite struct RequestableTests {
    /// A form that overrides what the client decides, for its own requests only.
    struct Export: RequestFormable {
        var vetoed = false
        var path: String { "/export" }
        func configure(_ client: inout ClientConfiguration) {
            client.isLoggingEnabled = false
            client.transferOptions.maximumBodySize = 512 << 20
            client.headers["Accept"] = "text/csv"
            if vetoed { client.plugins.append(PluginTests.Veto()) }
        }
    }

    @Test func aFormOverridesTheClientConfigurationForItsOwnRequests() async throws {
        let store = LogCapture()
        var (stub, configuration) = stubbed()
        configuration.isLoggingEnabled = true
        configuration.logger = store.logger(level: .info)
        let screen = Screen(clientConfiguration: configuration)

        _ = try await screen.request(Export()).value
        #expect(store.messages.isEmpty)
        let export = try #require(stub.requests.last)
        #expect(export.options.maximumBodySize == 512 << 20)
        #expect(export.head.headerFields[.accept] == "text/csv")

        _ = try await screen.request(WeatherForm.forecast(city: "Oslo")).value
        #expect(store.messages.contains { $0.contains("→ GET https://api.example.com/v1/weather") })
        let forecast = try #require(stub.requests.last)
        #expect(forecast.options.maximumBodySize == TransferOptions().maximumBodySize)
        #expect(forecast.head.headerFields[.accept] == "application/json")

        let vetoed = await screen.request(Export(vetoed: true)).result
        #expect((vetoed.failure as? FormError)?.category == .vetoed)
        #expect(stub.requests.count == 2)
    }

    @Test func leavesTheOptionsNobodySetToTheEngine() async throws {
        var (stub, configuration) = stubbed()
        configuration.transferOptions.maximumBodySize = 2 << 20
        var engineDefaults = TransferOptions()
        engineDefaults.stallTimeout = .seconds(2)
        engineDefaults.deadline = .seconds(60)
        engineDefaults.maximumBodySize = 1 << 20

        _ = try await Screen(clientConfiguration: configuration).request(WeatherForm.forecast(city: "Oslo")).value
        let sent = try #require(stub.requests.last).options.resolved(over: engineDefaults)
        #expect(sent.stallTimeout == .seconds(2))
        #expect(sent.deadline == .seconds(60))
        #expect(sent.maximumBodySize == 2 << 20)

        configuration.timeout = .seconds(5)
        _ = try await Screen(clientConfiguration: configuration).request(WeatherForm.forecast(city: "Oslo")).value
        #expect(try #require(stub.requests.last).options.resolved(over: engineDefaults).deadline == .seconds(5))
    }

    @Test func failsClearlyWithoutAConfiguration() async throws {
        let result = await Screen(clientConfiguration: nil).request(WeatherForm.forecast(city: "Rome")).result
        let error = try #require(result.failure as? FormError)
        #expect(error.category == .notConfigured)
        #expect(error.message.contains("ClientSystem.bootstrap"))
    }

    @Test func defersSendingUntilStartWhenAsked() async throws {
        let (stub, configuration) = stubbed()
        let request = Screen(clientConfiguration: configuration).request(
            WeatherForm.forecast(city: "Rome"), startImmediately: false)
        try await Task.sleep(for: .milliseconds(50))
        #expect(stub.requests.isEmpty)
        request.start()
        _ = try await request.value
        #expect(stub.requests.count == 1)
    }

    @Test func sendsThroughTheRealEngineAgainstTheMockServer() async throws {
        try await MockServer.withRunning { server in
            let transport = try CurlTransport()
            var configuration = ClientConfiguration(transport: transport, baseURL: server.baseURL)
            configuration.headers = ["X-App": "demo"]
            struct Echo: RequestFormable {
                var path: String { "/echo" }
                var method: HTTPRequest.Method { .post }
                var parameters: Parameters { ["city": "Toronto"] }
            }
            let events = EventCounter()
            let request = Screen(clientConfiguration: configuration).request(Echo())
            let watcher = Task { for await event in request.events { events.count(event) } }
            let response = try await request.value
            await watcher.value
            let json = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
            #expect(json["method"] as? String == "POST")
            #expect(json["body"] as? String == #"{"city":"Toronto"}"#)
            #expect((json["headers"] as? [String: [String]])?["x-app"] == ["demo"])
            #expect(await request.response?.head.status == .ok)
            #expect(events.completions == 1)
            await transport.shutdown()
        }
    }

    @Test func usesTheSystemsConfigurationByDefault() async throws {
        struct Default: Requestable {}
        let (stub, configuration) = stubbed()
        try await ClientSystem.withConfiguration(configuration) {
            _ = try await Default().request(WeatherForm.forecast(city: "Lima")).value
        }
        #expect(stub.requests.first?.url.contains("city=Lima") == true)
        // Outside the scope, the task sees what the process installed (nothing, in this process).
        #expect(ClientSystem.configuration == nil)
    }
}
