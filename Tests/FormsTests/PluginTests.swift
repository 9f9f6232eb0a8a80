import Forms
import Foundation
import HTTPTypes
import Logging
import MockBackend
import Synchronization
import TestSupport
import Testing
import Transport
import TransportCurl
import TransportTesting

@Suite struct PluginTests {
    struct Recorder: Plugin {
        let journal: LockedRecorder<String>
        func willSend(_ request: TransportRequest, form: any Formable) async -> PluginDecision {
            journal.append("willSend \(form.path)")
            return .proceed
        }
        func prepare(_ request: inout TransportRequest, form: any Formable) async throws {
            journal.append("prepare")
            try request.setHeader("X-Signed", "yes")
        }
        func process(_ response: DataResponse, form: any Formable) async throws -> DataResponse {
            journal.append("process")
            var rewritten = response
            rewritten.body = Data(#"{"code":200,"data":"#.utf8) + response.body + Data("}".utf8)
            return rewritten
        }
        func didReceive(_ response: DataResponse, form: any Formable) async {
            journal.append("didReceive \(response.body.count)")
        }
        func afterCompletion(_ result: Result<DataResponse, any Error>, form: any Formable) async {
            journal.append("afterCompletion \((try? result.get()) != nil)")
        }
    }

    struct Veto: Plugin {
        var name: String { "OfflineGuard" }
        func willSend(_ request: TransportRequest, form: any Formable) async -> PluginDecision {
            .veto(reason: "the device is offline")
        }
    }

    @Test func runsEveryHookInOrderAndMayRewriteTheResponse() async throws {
        let journal = LockedRecorder<String>()
        var (stub, configuration) = stubbed(.init(body: Data("[1]".utf8)))
        configuration.plugins = [Recorder(journal: journal)]
        let response = try await Screen(clientConfiguration: configuration).request(WeatherForm.forecast(city: "Rome"))
            .value
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"code":200,"data":[1]}"#)
        #expect(stub.requests.first?.head.headerFields[HTTPField.Name("X-Signed")!] == "yes")
        #expect(journal.all == ["willSend /weather", "prepare", "process", "didReceive 23", "afterCompletion true"])
        _ = stub
    }

    @Test func afterCompletionSeesARequestThatCouldNotBeBuiltOrWasVetoed() async throws {
        struct Unencodable: RequestFormable {
            struct Opaque: Sendable {}
            var path: String { "/x" }
            var parameters: Parameters { ["thing": Opaque()] }
        }
        let journal = LockedRecorder<String>()
        var (stub, configuration) = stubbed()
        configuration.plugins = [Recorder(journal: journal)]
        _ = await Screen(clientConfiguration: configuration).request(Unencodable()).result
        #expect(journal.all == ["afterCompletion false"])

        configuration.plugins = [Recorder(journal: journal), Veto()]
        _ = await Screen(clientConfiguration: configuration).request(WeatherForm.forecast(city: "Rome")).result
        // Once per plugin, the recorder's once: a veto is reported exactly once.
        #expect(journal.all == ["afterCompletion false", "willSend /weather", "afterCompletion false"])
        #expect(stub.requests.isEmpty)
    }

    @Test func aVetoStopsTheRequestAndNamesThePlugin() async throws {
        var (stub, configuration) = stubbed()
        configuration.plugins = [Veto()]
        let result = await Screen(clientConfiguration: configuration).request(WeatherForm.forecast(city: "Rome")).result
        let error = try #require(result.failure as? FormError)
        #expect(error.category == .vetoed)
        #expect(error.message.contains("OfflineGuard"))
        #expect(error.message.contains("offline"))
        #expect(stub.requests.isEmpty)
        _ = stub
    }

    @Test func theLoggingPluginLogsWithCredentialsRedacted() async throws {
        let store = LogCapture()
        var (_, configuration) = stubbed()
        configuration.isLoggingEnabled = true
        configuration.logger = store.logger(level: .debug)
        _ = try await Screen(clientConfiguration: configuration).request(WeatherForm.forecast(city: "Rome")).value
        let log = store.messages.joined(separator: "\n")
        #expect(log.contains("→ GET https://api.example.com/v1/weather"))
        #expect(log.contains("← 200"))
        #expect(log.contains("Authorization: <redacted>"))
        #expect(!log.contains("token-1"))

        // A credential in the query (a common parameter, say) is redacted in the log too.
        configuration.commonParameters = { ["access_token": "query-secret"] }
        _ = try await Screen(clientConfiguration: configuration).request(WeatherForm.forecast(city: "Rome")).value
        let withQuery = store.messages.joined(separator: "\n")
        #expect(withQuery.contains("access_token=<redacted>"))
        #expect(!withQuery.contains("query-secret"))
    }
}
