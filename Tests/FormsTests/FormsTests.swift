import Forms
import Foundation
import HTTPTypes
import Logging
import MockBackend
import Synchronization
import Testing
import Transport
import TransportCurl
import TransportTesting

// A feature module written like the design's sketch, against a stub and a real server.

enum WeatherForm: RequestFormable {
    case forecast(city: String)
    case report(city: String, temperature: Int)
    case search(tags: [String], filter: [String: any Sendable])

    var path: String {
        switch self {
        case .forecast, .search: "/weather"
        case .report: "/reports"
        }
    }
    var method: HTTPRequest.Method {
        if case .report = self { return .post }
        return .get
    }
    var parameters: Parameters {
        switch self {
        case .forecast(let city): ["city": city]
        case .report(let city, let temperature): ["city": city, "temperature": temperature]
        case .search(let tags, let filter): ["tag": tags, "filter": filter]
        }
    }
    var headers: [String: String] {
        if case .report = self { return ["X-Report": "1"] }
        return [:]
    }
}

struct FormEncodedLogin: RequestFormable {
    let user: String
    var path: String { "/login" }
    var method: HTTPRequest.Method { .post }
    var encoding: ParameterEncoding { .formURLEncoded }
    var parameters: Parameters { ["user": user, "remember": true] }
}

struct Profile: Codable, Sendable, Equatable {
    let name: String
    let age: Int
}

struct UpdateProfile: RequestFormable {
    let profile: Profile
    var path: String { "profile" }
    var method: HTTPRequest.Method { .put }
    var jsonBody: (any Encodable & Sendable)? { profile }
    var parameters: Parameters { ["v": 2] }
}

struct Screen: Requestable {
    let clientConfiguration: ClientConfiguration?
}

func stubbed(_ reply: StubTransport.Reply = .init(body: Data("{}".utf8))) -> (StubTransport, ClientConfiguration) {
    let stub = StubTransport(always: reply)
    var configuration = ClientConfiguration(transport: stub, baseURL: "https://api.example.com/v1/")
    configuration.headers = ["Accept": "application/json", "X-Client": "parley"]
    configuration.dynamicHeaders = { ["Authorization": "Bearer token-1"] }
    configuration.commonParameters = { ["app_version": "2.1.0"] }
    return (stub, configuration)
}

/// A team's own base protocol: its defaults are set once, in one extension.
protocol TeamForm: RequestFormable {}

extension TeamForm {
    var baseURL: String? { "https://team.example.com" }
    var headers: [String: String] { ["X-Team": "weather", "Accept": "application/json"] }
}

/// A class form of the team that overrides one default.
final class ProfileLookup: TeamForm {
    let id: Int
    init(id: Int) { self.id = id }
    var path: String { "/profiles/\(id)" }
    var headers: [String: String] { ["X-Team": "profiles"] }
}

/// A struct form of the team that keeps every default.
struct TeamStatus: TeamForm {
    var path: String { "/status" }
}

@Suite struct FormEncodingTests {
    @Test func classFormsAndTeamDefaultsFromOneExtensionWork() async throws {
        let (stub, configuration) = stubbed()
        let screen = Screen(clientConfiguration: configuration)
        _ = try await screen.request(TeamStatus()).value
        _ = try await screen.request(ProfileLookup(id: 7)).value
        let status = try #require(stub.requests.first)
        #expect(status.url == "https://team.example.com/status?app_version=2.1.0")
        #expect(status.head.headerFields[HTTPField.Name("X-Team")!] == "weather")
        let profile = try #require(stub.requests.last)
        #expect(profile.url == "https://team.example.com/profiles/7?app_version=2.1.0")
        #expect(profile.head.headerFields[HTTPField.Name("X-Team")!] == "profiles")
        // The client's own Accept stays where the form's headers do not name it.
        #expect(profile.head.headerFields[.accept] == "application/json")
    }

    @Test func encodesGETParametersInTheQueryWithClientDefaults() async throws {
        let (stub, configuration) = stubbed()
        _ = try await Screen(clientConfiguration: configuration).request(WeatherForm.forecast(city: "São Paulo")).value
        let sent = try #require(stub.requests.first)
        #expect(sent.url == "https://api.example.com/v1/weather?app_version=2.1.0&city=S%C3%A3o%20Paulo")
        #expect(sent.head.method == .get)
        #expect(sent.head.headerFields[.accept] == "application/json")
        #expect(sent.head.headerFields[.authorization] == "Bearer token-1")
        #expect(sent.body == nil)
    }

    @Test func encodesArraysAndNestedDictionariesByTheDocumentedConvention() async throws {
        let (stub, configuration) = stubbed()
        let form = WeatherForm.search(tags: ["rain", "wind"], filter: ["min": 5, "unit": "c"])
        _ = try await Screen(clientConfiguration: configuration).request(form).value
        let query = try #require(stub.requests.first?.url.split(separator: "?").last)
        #expect(query == "app_version=2.1.0&filter%5Bmin%5D=5&filter%5Bunit%5D=c&tag%5B%5D=rain&tag%5B%5D=wind")
    }

    @Test func encodesPOSTParametersAsJSONAndAddsPerFormHeaders() async throws {
        let (stub, configuration) = stubbed()
        _ = try await Screen(clientConfiguration: configuration).request(
            WeatherForm.report(city: "Oslo", temperature: -3)
        ).value
        let sent = try #require(stub.requests.first)
        #expect(sent.head.method == .post)
        #expect(sent.head.headerFields[.contentType] == "application/json")
        #expect(sent.head.headerFields[HTTPField.Name("X-Report")!] == "1")
        let body = try #require(sent.body)
        let json = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(json["city"] as? String == "Oslo")
        #expect(json["temperature"] as? Int == -3)
        #expect(json["app_version"] as? String == "2.1.0")
    }

    @Test func encodesFormURLEncodedBodies() async throws {
        let (stub, configuration) = stubbed()
        _ = try await Screen(clientConfiguration: configuration).request(FormEncodedLogin(user: "ada lovelace")).value
        let sent = try #require(stub.requests.first)
        #expect(sent.head.headerFields[.contentType] == "application/x-www-form-urlencoded; charset=utf-8")
        #expect(sent.body == Data("app_version=2.1.0&remember=true&user=ada%20lovelace".utf8))
    }

    @Test func encodesAnEncodableBodyAsJSONAndParametersInTheQuery() async throws {
        let (stub, configuration) = stubbed()
        _ = try await Screen(clientConfiguration: configuration).request(
            UpdateProfile(profile: Profile(name: "Ada", age: 36))
        ).value
        let sent = try #require(stub.requests.first)
        #expect(sent.url == "https://api.example.com/v1/profile?app_version=2.1.0&v=2")
        let body = try #require(sent.body)
        #expect(try JSONDecoder().decode(Profile.self, from: body) == Profile(name: "Ada", age: 36))
    }

    @Test func refusesParametersThatCannotBeEncoded() async throws {
        struct Opaque: Sendable {}
        struct Bad: RequestFormable {
            var path: String { "/x" }
            var parameters: Parameters { ["thing": Opaque()] }
        }
        let (_, configuration) = stubbed()
        let result = await Screen(clientConfiguration: configuration).request(Bad()).result
        let error = try #require(result.failureValue as? FormError)
        #expect(error.category == .invalidParameters)
        #expect(error.message.contains("thing"))
    }
}

@Suite struct UploadFormTests {
    struct Avatar: UploadDataFormable {
        var path: String { "/avatar" }
        var data: Data { Data("PNG...".utf8) }
        var contentType: String { "image/png" }
    }

    struct Backup: UploadFileFormable {
        let fileURL: URL
        var path: String { "/backup" }
        var method: HTTPRequest.Method { .put }
    }

    struct Live: UploadStreamFormable {
        var path: String { "/live" }
        var stream: RequestBody {
            .stream(length: 6) {
                AsyncStream<Data> { continuation in
                    continuation.yield(Data("abc".utf8))
                    continuation.yield(Data("def".utf8))
                    continuation.finish()
                }
            }
        }
    }

    struct Photo: UploadMultipartFormable {
        var path: String { "/photos" }
        var parameters: Parameters { ["album": "holidays"] }
        var multipart: MultipartFormData {
            var form = MultipartFormData()
            try? form.addField(name: "caption", value: "Lake")
            return form
        }
    }

    @Test func uploadsEveryKindOfBody() async throws {
        let (stub, configuration) = stubbed()
        let screen = Screen(clientConfiguration: configuration)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("parley-forms-\(UUID()).bin")
        try Data("file contents".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }

        _ = try await screen.upload(Avatar()).value
        _ = try await screen.upload(Backup(fileURL: file)).value
        _ = try await screen.upload(Live()).value
        _ = try await screen.upload(Photo()).value

        let sent = stub.requests
        #expect(sent.map(\.head.method) == [.post, .put, .post, .post])
        #expect(sent[0].body == Data("PNG...".utf8))
        #expect(sent[0].head.headerFields[.contentType] == "image/png")
        #expect(sent[1].body == Data("file contents".utf8))
        #expect(sent[2].body == Data("abcdef".utf8))
        #expect(sent[3].head.headerFields[.contentType]?.hasPrefix("multipart/form-data; boundary=") == true)
        #expect(String(decoding: sent[3].body ?? Data(), as: UTF8.self).contains("name=\"caption\""))
        #expect(sent[3].url.hasSuffix("/photos?album=holidays&app_version=2.1.0"))
    }
}

@Suite struct PluginTests {
    final class Journal: Sendable {
        private let entries = Mutex<[String]>([])
        func add(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    struct Recorder: Plugin {
        let journal: Journal
        func willSend(_ request: TransportRequest, form: any Formable) async -> PluginDecision {
            journal.add("willSend \(form.path)")
            return .proceed
        }
        func prepare(_ request: inout TransportRequest, form: any Formable) async throws {
            journal.add("prepare")
            try request.setHeader("X-Signed", "yes")
        }
        func process(_ response: DataResponse, form: any Formable) async throws -> DataResponse {
            journal.add("process")
            var rewritten = response
            rewritten.body = Data(#"{"code":200,"data":"#.utf8) + response.body + Data("}".utf8)
            return rewritten
        }
        func didReceive(_ response: DataResponse, form: any Formable) async {
            journal.add("didReceive \(response.body.count)")
        }
        func afterCompletion(_ result: Result<DataResponse, any Error>, form: any Formable) async {
            journal.add("afterCompletion \((try? result.get()) != nil)")
        }
    }

    struct Veto: Plugin {
        var name: String { "OfflineGuard" }
        func willSend(_ request: TransportRequest, form: any Formable) async -> PluginDecision {
            .veto(reason: "the device is offline")
        }
    }

    @Test func runsEveryHookInOrderAndMayRewriteTheResponse() async throws {
        let journal = Journal()
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
        let journal = Journal()
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
        let error = try #require(result.failureValue as? FormError)
        #expect(error.category == .vetoed)
        #expect(error.message.contains("OfflineGuard"))
        #expect(error.message.contains("offline"))
        #expect(stub.requests.isEmpty)
        _ = stub
    }

    @Test func theLoggingPluginLogsWithCredentialsRedacted() async throws {
        let store = LogStore()
        var (_, configuration) = stubbed()
        configuration.isLoggingEnabled = true
        configuration.logger = Logger(label: "test") { _ in StoreHandler(store: store) }
        configuration.logger.logLevel = .debug
        _ = try await Screen(clientConfiguration: configuration).request(WeatherForm.forecast(city: "Rome")).value
        let log = store.all.joined(separator: "\n")
        #expect(log.contains("→ GET https://api.example.com/v1/weather"))
        #expect(log.contains("← 200"))
        #expect(log.contains("Authorization: <redacted>"))
        #expect(!log.contains("token-1"))

        // A credential in the query (a common parameter, say) is redacted in the log too.
        configuration.commonParameters = { ["access_token": "query-secret"] }
        _ = try await Screen(clientConfiguration: configuration).request(WeatherForm.forecast(city: "Rome")).value
        let withQuery = store.all.joined(separator: "\n")
        #expect(withQuery.contains("access_token=<redacted>"))
        #expect(!withQuery.contains("query-secret"))
    }
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
        let store = LogStore()
        var (stub, configuration) = stubbed()
        configuration.isLoggingEnabled = true
        configuration.logger = Logger(label: "test") { _ in StoreHandler(store: store) }
        let screen = Screen(clientConfiguration: configuration)

        _ = try await screen.request(Export()).value
        #expect(store.all.isEmpty)
        let export = try #require(stub.requests.last)
        #expect(export.options.maximumBodySize == 512 << 20)
        #expect(export.head.headerFields[.accept] == "text/csv")

        _ = try await screen.request(WeatherForm.forecast(city: "Oslo")).value
        #expect(store.all.contains { $0.contains("→ GET https://api.example.com/v1/weather") })
        let forecast = try #require(stub.requests.last)
        #expect(forecast.options.maximumBodySize == TransferOptions().maximumBodySize)
        #expect(forecast.head.headerFields[.accept] == "application/json")

        let vetoed = await screen.request(Export(vetoed: true)).result
        #expect((vetoed.failureValue as? FormError)?.category == .vetoed)
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
        let error = try #require(result.failureValue as? FormError)
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

    @Test func usesTheBootstrappedConfigurationByDefault() async throws {
        struct Default: Requestable {}
        let (stub, configuration) = stubbed()
        ClientSystem.bootstrap(configuration)
        _ = try await Default().request(WeatherForm.forecast(city: "Lima")).value
        #expect(stub.requests.first?.url.contains("city=Lima") == true)
    }
}

final class EventCounter: Sendable {
    private let state = Mutex(0)
    func count(_ event: RequestEvent) { if case .completed = event { state.withLock { $0 += 1 } } }
    var completions: Int { state.withLock { $0 } }
}

final class LogStore: Sendable {
    private let lines = Mutex<[String]>([])
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

struct StoreHandler: LogHandler {
    let store: LogStore
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) { store.append("\(event.message)") }
}

extension Result {
    var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
