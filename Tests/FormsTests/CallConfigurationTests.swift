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
import TransportTesting

/// One call changes any setting of its client through `CallOptions.configure`, for requests,
/// uploads, downloads and `data(for:)`, and its plugins can tell.
@Suite struct CallConfigurationTests {
    struct Echo: RequestFormable {
        var path: String { "/echo" }
    }

    /// What the mock server's `/echo` says it received.
    struct Echoed: Decodable, Sendable {
        let method: String
        let headers: [String: [String]]
        func header(_ name: String) -> String? { headers[name.lowercased()]?.first }
    }

    /// Records what the call's configuration says, and where its hooks ran.
    struct Witness: Plugin {
        let seen: LockedRecorder<String>
        func prepare(_ request: inout TransportRequest, form: any Formable) async throws {
            let call = request.userInfo.callConfiguration
            seen.append("call \(call.map { $0.headers["X-Call"] ?? "-" } ?? "none")")
            if let deadline = request.options.deadline { seen.append("deadline \(deadline)") }
            if DispatchQueue.getSpecific(key: CallOptionsTests.QueueExecutor.key) != nil { seen.append("on executor") }
        }
    }

    /// Sets a header on every request it sees.
    struct Stamp: Plugin, TransportMiddleware {
        let field: String
        func prepare(_ request: inout TransportRequest, form: any Formable) async throws {
            try request.setHeader(field, "1")
        }
        func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
            var request = request
            try request.setHeader(field, "1")
            return try await next(request)
        }
    }

    /// Each client setting a call may change.
    enum Setting: String, CaseIterable, Sendable {
        case transport, baseURL, headers, dynamicHeaders, timeout, retry, plugins, middleware
        case requestMiddleware, handlerExecutor, taskExecutor, logging
    }

    /// One setting changed by one call; what changed is observed at the server or by a plugin.
    @Test(arguments: Setting.allCases)
    func aCallChangesOneSettingOfItsClient(_ setting: Setting) async throws {
        try await withServerAndTransport { server, curl in
            // Given a client, with a plugin that watches what each call runs with
            let seen = LockedRecorder<String>()
            var client = ClientConfiguration(transport: curl, baseURL: server.baseURL)
            client.plugins = [Witness(seen: seen)]
            client.retry.baseDelay = .milliseconds(1)
            client.retry.budget = nil
            let capture = LogCapture()
            let executor = CallOptionsTests.QueueExecutor()
            let queue = DispatchQueue(label: "call handlers")
            let key = DispatchSpecificKey<String>()
            queue.setSpecific(key: key, value: "call handlers")
            var path = "/echo"
            switch setting {
            case .transport: client.transport = StubTransport(always: .init(status: .notFound))
            case .baseURL: client.baseURL = "http://127.0.0.1:1"
            case .retry: path = "/flaky/1"
            default: break
            }

            // When one call changes the setting
            let options = CallOptions(configure: { call in
                call.headers["X-Call"] = setting.rawValue
                switch setting {
                case .transport: call.transport = curl
                case .baseURL: call.baseURL = server.baseURL
                case .headers: call.headers["X-Setting"] = "headers"
                case .dynamicHeaders: call.dynamicHeaders = { ["X-Setting": "dynamic"] }
                case .timeout: call.timeout = .seconds(60)
                case .retry: call.retry = .never
                case .plugins: call.plugins.append(Stamp(field: "X-Plugin"))
                case .middleware: call.middleware.append(Stamp(field: "X-Middleware"))
                case .requestMiddleware: call.requestMiddleware.append(Stamp(field: "X-Request-Middleware"))
                case .handlerExecutor: call.handlerExecutor = .queue(queue)
                case .taskExecutor: call.taskExecutor = executor
                case .logging:
                    call.logger = capture.logger()
                    call.isLoggingEnabled = true
                }
            })
            struct Path: RequestFormable {
                let path: String
                var parameters: Parameters { path == "/flaky/1" ? ["key": UUID().uuidString] : [:] }
            }
            let places = LockedRecorder<String?>()
            let handle = Screen(clientConfiguration: client).request(Path(path: path), options: options)
                .success { _ in places.append(DispatchQueue.getSpecific(key: key)) }
            let response = try await handle.value

            // Then the call ran with it, and its plugins saw the call's configuration
            #expect(seen.all.first == "call \(setting.rawValue)")
            let echoed = try? ResponseDecoder().decode(Echoed.self, from: response)
            switch setting {
            case .transport, .baseURL: #expect(echoed?.method == "GET", "the server answered")
            case .headers: #expect(echoed?.header("X-Setting") == "headers")
            case .dynamicHeaders: #expect(echoed?.header("X-Setting") == "dynamic")
            case .timeout: #expect(seen.all.contains("deadline 60.0 seconds"))
            case .retry:
                #expect(response.status.code == 503, "not retried")
                #expect(server.requestCount(for: "/flaky/1") == 1)
            case .plugins: #expect(echoed?.header("X-Plugin") == "1")
            case .middleware: #expect(echoed?.header("X-Middleware") == "1")
            case .requestMiddleware: #expect(echoed?.header("X-Request-Middleware") == "1")
            case .handlerExecutor:
                try await waitUntil { !places.all.isEmpty }
                #expect(places.all == ["call handlers"])
            case .taskExecutor: #expect(seen.all.contains("on executor"))
            case .logging: #expect(capture.messages(at: .info).contains { $0.contains("→ GET") })
            }
            #expect(echoed?.header("X-Call") == setting.rawValue || setting == .retry)
        }
    }

    @Test func withoutAClosureTheCallRunsWithTheClientsConfiguration() async throws {
        let seen = LockedRecorder<String>()
        var (stub, client) = stubbed()
        client.plugins = [Witness(seen: seen)]
        _ = try await Screen(clientConfiguration: client).request(WeatherForm.forecast(city: "Oslo")).value
        #expect(seen.all == ["call none"], "nothing travels with a call that changes nothing")
        #expect(stub.requests.count == 1)
    }

    struct EchoUpload: UploadDataFormable {
        var path: String { "/echo" }
        var method: HTTPRequest.Method { .post }
        var data: Data { Data("payload".utf8) }
    }

    struct EchoDownload: DownloadFormable {
        let destination: URL
        var path: String { "/echo" }
    }

    @Test func uploadsDownloadsAndDirectCallsTakeTheCallsConfiguration() async throws {
        try await withServerAndTransport { server, curl in
            // Given a client whose transport answers nothing, and a call that names the engine
            var client = ClientConfiguration(transport: StubTransport(always: .init(status: .notFound)), baseURL: "")
            client.retry = .never
            let options = CallOptions(configure: { call in
                call.transport = curl
                call.baseURL = server.baseURL
                call.headers["X-Call"] = "yes"
            })
            let screen = Screen(clientConfiguration: client)
            let decoder = ResponseDecoder()

            // When each kind of call is made with it
            let request = try await screen.request(Echo(), options: options).decode(Echoed.self).value
            let upload = try await screen.upload(EchoUpload(), options: options).decode(Echoed.self).value
            let direct = try decoder.decode(Echoed.self, from: try await screen.data(for: Echo(), options: options))
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("call-\(UUID().uuidString).json")
            defer { try? FileManager.default.removeItem(at: file) }
            _ = try await screen.download(EchoDownload(destination: file), options: options).value
            let downloaded = try decoder.decode(Echoed.self, from: try Data(contentsOf: file))

            // Then every one reached the server with the call's header
            #expect(request.header("X-Call") == "yes")
            #expect(upload.method == "POST" && upload.header("X-Call") == "yes")
            #expect(direct.header("X-Call") == "yes")
            #expect(downloaded.header("X-Call") == "yes")
            #expect(server.requestCount(for: "/echo") == 4)
        }
    }
}
