import Downloads
import Forms
import Foundation
import HTTPTypes
import Mapping
import MockBackend
import Retry
import TestSupport
import Testing
import Transport
import TransportCurl
import TransportTesting

/// A client's retries, keys and reloads, end to end through forms.
@Suite struct RetryFormTests {
    /// A POST that may carry a key.
    struct PlaceOrder: RequestFormable {
        var key: IdempotencyKey?
        var scope: String
        var resets = 1
        var path: String { "/idempotent" }
        var method: HTTPRequest.Method { .post }
        var encoding: ParameterEncoding { .urlQuery }
        var parameters: Parameters { ["scope": scope, "resets": resets] }
        var jsonBody: (any Encodable & Sendable)? { ["item": "umbrella"] }
        var idempotencyKey: IdempotencyKey? { key }
    }

    struct Flaky: RequestFormable {
        let failures: Int
        let key: String
        var path: String { "/flaky/\(failures)" }
        var parameters: Parameters { ["key": key, "retry-after": 0] }
    }

    func client(_ server: MockServer, _ transport: CurlTransport) -> ClientConfiguration {
        var configuration = ClientConfiguration(transport: transport, baseURL: server.baseURL)
        configuration.retry.baseDelay = .milliseconds(20)
        configuration.retry.budget = RetryBudget()
        return configuration
    }

    func withClient<T: Sendable>(_ body: (MockServer, ClientConfiguration) async throws -> T) async throws -> T {
        try await MockServer.withRunning { server in
            let transport = try CurlTransport()
            do {
                let result = try await body(server, client(server, transport))
                await transport.shutdown()
                return result
            } catch {
                await transport.shutdown()
                throw error
            }
        }
    }

    func document(_ response: DataResponse) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: response.body) as? [String: Any] ?? [:]
    }

    @Test func aFormsKeyLetsItsPostBeRetriedAndAppliedOnce() async throws {
        try await withClient { server, configuration in
            let screen = Screen(clientConfiguration: configuration)
            let response = try await screen.request(PlaceOrder(key: .generated, scope: "form")).value
            let answer = try document(response)
            #expect(answer["applied"] as? Int == 1)
            #expect(answer["attempts"] as? Int == 2)
            #expect(answer["sameKey"] as? Bool == true)
        }
    }

    @Test func retriesAreEventsOnTheHandleAndLogLines() async throws {
        try await withClient { server, configuration in
            var configuration = configuration
            let logs = LogCapture()
            configuration.logger = logs.logger()
            let retries = LockedRecorder<RetryEvent>()
            let handle = Screen(clientConfiguration: configuration).request(Flaky(failures: 2, key: "events"))
            handle.observe { if case .retry(let retry) = $0 { retries.append(retry) } }
            let response = try await handle.value
            #expect(response.status == .ok)
            #expect(retries.all.map(\.attempt) == [2, 3])
            #expect(retries.all.allSatisfy { $0.reason.hasPrefix("HTTP 503") && $0.maximumAttempts == 4 })
            #expect(logs.messages.filter { $0.hasPrefix("Retrying GET \(server.baseURL)/flaky/2") }.count == 2)
        }
    }

    @Test func aReloadSendsTheSameKeyAndRunsTheChainAgain() async throws {
        try await withClient { server, configuration in
            var configuration = configuration
            configuration.retry = .never
            let failures = PThreadMutex(0)
            let successes = PThreadMutex(0)
            let handle = Screen(clientConfiguration: configuration)
                .request(PlaceOrder(key: .generated, scope: "reload"))
                .map { response, _ in try document(response)["applied"] as? Int ?? -1 }
                .failure { _ in failures.withLock { $0 += 1 } }
                .success { _ in successes.withLock { $0 += 1 } }
            let first = await handle.result
            #expect((first.failure as? TransportError)?.category == .emptyReply)
            handle.reload()
            #expect(try await handle.value == 1)
            #expect(failures.withLock { $0 } == 1)
            #expect(successes.withLock { $0 } == 1)
            let stats = try await configuration.transport.data(
                for: try TransportRequest(method: .get, url: server.url("/idempotent/stats?scope=reload")))
            let answer = try document(stats)
            #expect(answer["attempts"] as? Int == 2)
            #expect(answer["sameKey"] as? Bool == true)
        }
    }

    /// A screen that offers failed requests to a prompt answering from a script.
    struct ReloadingScreen: Requestable, Reloadable {
        let clientConfiguration: ClientConfiguration?
        let prompt: ScriptedPrompt
        var reloadPrompt: (any ReloadPrompt)? { prompt }
    }

    final class ScriptedPrompt: ReloadPrompt {
        let answers: PThreadMutex<[Bool]>
        let asked = LockedRecorder<ReloadContext>()
        init(_ answers: [Bool]) { self.answers = PThreadMutex(answers) }
        func shouldReload(after failure: ReloadContext) async -> Bool {
            asked.append(failure)
            return answers.withLock { $0.isEmpty ? false : $0.removeFirst() }
        }
    }

    @Test func aReloadableScreenAsksBeforeANetworkFailureStands() async throws {
        try await withClient { server, configuration in
            let prompt = ScriptedPrompt([true])
            let screen = ReloadingScreen(clientConfiguration: configuration, prompt: prompt)
            // No key: the POST is not retried automatically, so the prompt is asked at once,
            // and told that the order may already have been placed.
            let response = try await screen.request(PlaceOrder(key: nil, scope: "prompt")).value
            #expect(response.status == .ok)
            let asked = try #require(prompt.asked.all.first)
            #expect(prompt.asked.all.count == 1)
            #expect(asked.mayHaveBeenApplied)
            #expect(asked.attempts == 1)
            #expect(asked.method == .post)
            #expect(try document(response)["applied"] as? Int == 2, "without a key the server applied it twice")
        }
    }

    @Test func aDeclinedPromptFailsWithTheNetworkError() async throws {
        try await withClient { server, configuration in
            let prompt = ScriptedPrompt([false])
            let screen = ReloadingScreen(clientConfiguration: configuration, prompt: prompt)
            let result = await screen.request(PlaceOrder(key: nil, scope: "declined")).result
            #expect((result.failure as? TransportError)?.message.contains("Not retried") == true)
            #expect(prompt.asked.all.count == 1)
        }
    }

    /// A download whose first request for `key` is dropped after 1000 of 4096 bytes, with no
    /// automatic retry, and optionally a prompt of its own.
    struct DroppedDownload: DownloadFormable {
        let destination: URL
        let key: String
        var ownPrompt: ScriptedPrompt?
        var path: String { "/bytes/4096" }
        var parameters: Parameters { ["drop-after": 1000, "key": key, "drops": 1] }
        var downloadOptions: FileDownload.Options {
            var options = FileDownload.Options.quick
            options.retry.maximumRetries = 0
            options.reloadPrompt = ownPrompt
            return options
        }
    }

    /// A download whose first request for `key` is dropped after 1000 of 4096 bytes, and which
    /// leaves its retry policy to the client.
    struct ClientPolicyDownload: DownloadFormable {
        let destination: URL
        let key: String
        var path: String { "/bytes/4096" }
        var parameters: Parameters { ["drop-after": 1000, "key": key, "drops": 1] }
    }

    @Test(arguments: [0, 2])
    func aDownloadFormWithoutAPolicyOfItsOwnRetriesUnderTheClients(maximumRetries: Int) async throws {
        try await withClient { _, configuration in
            try await withTemporaryFolder { folder in
                var client = configuration
                client.retry.maximumRetries = maximumRetries
                let screen = Screen(clientConfiguration: client)
                let destination = URL(fileURLWithPath: folder + "/file.bin")

                let result = await screen.download(
                    ClientPolicyDownload(destination: destination, key: "client-\(UUID())")
                ).result

                // No retry for the client that allows none (the form's default would allow three);
                // the whole file for the one that allows two.
                if maximumRetries == 0 {
                    #expect(result.failure != nil)
                } else {
                    let summary = try result.get()
                    #expect(summary.byteCount == 4096)
                }
            }
        }
    }

    @Test func aReloadableScreensDownloadAsksItsPromptAndResumes() async throws {
        try await withClient { _, configuration in
            try await withTemporaryFolder { folder in
                let prompt = ScriptedPrompt([true])
                let screen = ReloadingScreen(clientConfiguration: configuration, prompt: prompt)
                let destination = URL(fileURLWithPath: folder + "/file.bin")
                let summary = try await screen.download(
                    DroppedDownload(destination: destination, key: "screen-\(UUID())")
                ).value
                #expect(prompt.asked.all.count == 1)
                #expect(prompt.asked.all.first?.mayHaveBeenApplied == false)
                #expect(summary.byteCount == 4096)
                #expect(summary.requestCount == 2)
                #expect(try Data(contentsOf: destination).count == 4096)
            }
        }
    }

    @Test func aFormsOwnPromptWinsOverTheScreens() async throws {
        try await withClient { _, configuration in
            try await withTemporaryFolder { folder in
                let screensPrompt = ScriptedPrompt([true])
                let formsPrompt = ScriptedPrompt([false])
                let screen = ReloadingScreen(clientConfiguration: configuration, prompt: screensPrompt)
                let form = DroppedDownload(
                    destination: URL(fileURLWithPath: folder + "/file.bin"), key: "form-\(UUID())",
                    ownPrompt: formsPrompt)
                let result = await screen.download(form).result
                #expect(result.failure is TransportError)
                #expect(formsPrompt.asked.all.count == 1)
                #expect(screensPrompt.asked.all.isEmpty)
            }
        }
    }

    @Test func aOneShotUploadIsSentOnceAndTheErrorSaysWhy() async throws {
        struct Stream: UploadStreamFormable {
            let scope: String
            var path: String { "/idempotent" }
            var parameters: Parameters { ["scope": scope, "resets": 1] }
            var stream: RequestBody {
                .stream(
                    length: 5,
                    oneShot: AsyncStream {
                        $0.yield(Data("hello".utf8))
                        $0.finish()
                    })
            }
        }
        try await withClient { server, configuration in
            let result = await Screen(clientConfiguration: configuration).upload(Stream(scope: "one-shot")).result
            #expect((result.failure as? TransportError)?.message.contains("one-shot stream") == true)
        }
    }

    @Test func aMultipartUploadIsGeneratedAgainForItsRetry() async throws {
        struct Report: UploadMultipartFormable {
            var path: String { "/idempotent" }
            var parameters: Parameters { ["scope": "multipart", "resets": 1] }
            var idempotencyKey: IdempotencyKey? { .value("report-1") }
            var multipart: MultipartFormData {
                var form = MultipartFormData()
                try? form.addField(name: "city", value: "Toronto")
                try? form.addData(Data(repeating: 7, count: 100_000), name: "photo", filename: "p.jpg")
                return form
            }
        }
        try await withClient { server, configuration in
            let response = try await Screen(clientConfiguration: configuration).upload(Report()).value
            let answer = try document(response)
            #expect(answer["attempts"] as? Int == 2)
            #expect(answer["applied"] as? Int == 1)
            // Both attempts announced the whole form; the second was read to its end.
            let attempts = server.receivedRequests().filter { $0.path.hasPrefix("/idempotent") }
            let lengths = attempts.compactMap { $0.headerFields[.contentLength].flatMap { Int($0) } }
            #expect(lengths.count == 2 && lengths[0] == lengths[1] && lengths[0] > 100_000)
            #expect(attempts.last?.bodyLength == lengths.last)
        }
    }

    /// A plugin that rewrites every answer's body into a success envelope.
    struct Rewriter: Plugin {
        func process(_ response: DataResponse, form: any Formable) async throws -> DataResponse {
            var rewritten = response
            rewritten.body = Data(#"{"code":200,"message":"rewritten","data":null}"#.utf8)
            return rewritten
        }
    }

    struct City: RequestFormable {
        var path: String { "/city" }
    }

    /// A client whose server answers "busy" in an envelope over HTTP 200 once, then "unknown city".
    func busyThenUnknown() -> (StubTransport, ClientConfiguration) {
        let replies = PThreadMutex(0)
        let stub = StubTransport { _ in
            let reply = replies.withLock { count in
                defer { count += 1 }
                return count
            }
            let body =
                reply == 0
                ? #"{"code":5031,"message":"busy","data":null}"#
                : #"{"code":404,"message":"Unknown city","data":{"city":"Atlantis"}}"#
            return .init(body: Data(body.utf8))
        }
        var configuration = ClientConfiguration(transport: stub, baseURL: "https://api.example.com")
        configuration.retry.baseDelay = .milliseconds(1)
        configuration.retry.budget = RetryBudget()
        configuration.retry.classifier = EnvelopeClassifier(retryableCodes: [5031])
        return (stub, configuration)
    }

    @Test func aClientsClassifierRetriesABusyEnvelopeAndItsReadingReachesTheDecoder() async throws {
        let (stub, configuration) = busyThenUnknown()
        let handle = Screen(clientConfiguration: configuration).request(City())

        // The busy answer was retried, and the answer that stands carries what the classifier read
        let response = try await handle.value
        #expect(stub.requests.count == 2)
        #expect(response.classification?.verdict == .failure)
        #expect(response.classification?.code == "404")

        // And the envelope's failure is the handle's, data included
        let error = await #expect(throws: BusinessError.self) { try await handle.decodeEnvelope(String.self).value }
        #expect(error?.code == 404)
        #expect(error?.data == ["city": "Atlantis"])
    }

    @Test func aBodyAPluginRewroteIsDecodedAsRewritten() async throws {
        var (_, configuration) = busyThenUnknown()
        configuration.plugins = [Rewriter()]
        let head = try await Screen(clientConfiguration: configuration).request(City()).successOnly().value
        #expect(head.message == "rewritten")
    }
}
