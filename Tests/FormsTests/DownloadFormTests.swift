import Downloads
import Forms
import Foundation
import HTTPTypes
import MockBackend
import Retry
import Synchronization
import TestSupport
import Testing
import Transport
import TransportCurl
import TransportTesting

// Download forms through `Requestable`: against the mock server's `/bytes` route on the real
// engine, and against a stub where only the forms layer is under test.

/// A download of `/bytes/{count}` with the given query switches.
struct PatternDownload: DownloadFormable {
    let count: Int
    let destination: URL
    var query: Parameters = [:]
    var expectedSHA256: String?
    var method: HTTPRequest.Method = .get
    var encoding: ParameterEncoding = .automatic
    var timeout: Duration?

    var path: String { "/bytes/\(count)" }
    var parameters: Parameters { query }
    var downloadOptions: FileDownload.Options { .quick }
}

/// The same download, continuing from a partial left at its destination.
struct ResumedPatternDownload: DownloadResumeFormable {
    let count: Int
    let destination: URL
    var query: Parameters = [:]

    var path: String { "/bytes/\(count)" }
    var parameters: Parameters { query }
    var downloadOptions: FileDownload.Options { .quick }
}

extension FileDownload.Options {
    /// Quick retries under a budget of their own, and no flushing: the tests stop transfers,
    /// not power.
    static var quick: FileDownload.Options {
        var options = FileDownload.Options()
        options.retry.baseDelay = .milliseconds(10)
        options.retry.budget = nil
        options.synchronizesToDisk = false
        return options
    }
}

/// Records each hook a download runs, in order.
struct DownloadRecordingPlugin: Plugin {
    let log: LockedRecorder<String>
    var veto: String?

    func willSend(_ request: TransportRequest, form: any Formable) async -> PluginDecision {
        log.append("willSend")
        return veto.map { .veto(reason: $0) } ?? .proceed
    }
    func prepare(_ request: inout TransportRequest, form: any Formable) async throws {
        log.append("prepare")
        try request.setHeader("X-Prepared", "yes")
    }
    func afterDownload(_ result: Result<FileDownload.Summary, any Error>, form: any Formable) async {
        switch result {
        case .success(let summary): log.append("afterDownload \(summary.byteCount)")
        case .failure(let error): log.append("afterDownload failure \(RequestFailure(error).message)")
        }
    }
}

/// What the events of a handle, collected until its completion, say.
extension LockedRecorder<RequestEvent> {
    var progress: [TransferProgress] {
        all.compactMap { if case .transfer(.downloadProgress(let progress)) = $0 { progress } else { nil } }
    }
    var retries: [Int] {
        all.compactMap { if case .retry(let retry) = $0 { retry.attempt } else { nil } }
    }
}

private func withDownloadClient(
    _ body: (MockServer, Screen, URL) async throws -> Void
) async throws {
    try await withTemporaryFolder { path in
        let folder = URL(fileURLWithPath: path)
        try await MockServer.withRunning { server in
            let transport = try CurlTransport()
            var configuration = ClientConfiguration(transport: transport, baseURL: server.baseURL)
            configuration.headers = ["X-App": "demo"]
            configuration.commonParameters = { ["app_version": "2.1.0"] }
            do {
                try await body(server, Screen(clientConfiguration: configuration), folder)
            } catch {
                await transport.shutdown()
                throw error
            }
            await transport.shutdown()
        }
    }
}

private func size(of url: URL) -> Int {
    (try? url.resourceValues(forKeys: [.fileSizeKey]))?.fileSize ?? -1
}

private func partial(of destination: URL) -> URL {
    URL(fileURLWithPath: destination.path + ".partial")
}

@Suite struct DownloadFormTests {
    // MARK: - On the real engine

    @Test func downloadsToTheDestinationWithProgressAndTheResponse() async throws {
        try await withDownloadClient { server, screen, folder in
            let destination = folder.appendingPathComponent("report.bin")
            let log = LockedRecorder<RequestEvent>()
            let request = screen.download(
                PatternDownload(count: 300_000, destination: destination, query: ["v": 2]), startImmediately: false)
            // Subscribed before the start, so that no event can come first.
            let events = request.events
            let watcher = Task { for await event in events { log.append(event) } }
            request.start()
            let summary = try await request.value
            await watcher.value

            #expect(summary.destination == destination.path)
            #expect(summary.byteCount == 300_000)
            #expect(summary.resumedFrom == 0)
            #expect(try Data(contentsOf: destination) == Data(BytePattern.bytes(0..<300_000)))
            #expect(!FileManager.default.fileExists(atPath: partial(of: destination).path))

            let final = try #require(log.progress.last)
            #expect(final.isFinal && final.completed == 300_000 && final.total == 300_000)
            if case .completed(let succeeded) = log.all.last {
                #expect(succeeded)
            } else {
                Issue.record("no completion")
            }

            let response = try #require(await request.response)
            #expect(response.head.status == .ok)
            #expect(response.url.hasSuffix("/bytes/300000?app_version=2.1.0&v=2"))
            #expect(response.metrics?.bytesReceived == 300_000)

            let sent = try #require(server.receivedRequests().last)
            #expect(sent.method == .get)
            #expect(sent.path == "/bytes/300000?app_version=2.1.0&v=2")
            #expect(sent.values(forHeader: "X-App") == ["demo"])
        }
    }

    @Test func cancellingKeepsThePartialAndAResumingDownloadContinuesFromIt() async throws {
        try await withDownloadClient { server, screen, folder in
            let destination = folder.appendingPathComponent("big.bin")
            let count = 2 << 20
            let slow: Parameters = ["chunk-delay": 20]
            let first = screen.download(PatternDownload(count: count, destination: destination, query: slow))
            for await event in first.events {
                if case .transfer(.downloadProgress(let progress)) = event, progress.completed >= 128 << 10 {
                    first.cancel()
                }
            }
            let failure = try #require(await first.result.failure as? TransportError)
            #expect(failure.category == .cancelled)
            #expect(failure.message.contains("kept in \(partial(of: destination).path)"))
            let kept = size(of: partial(of: destination))
            #expect(kept >= 128 << 10 && kept < count)
            #expect(!FileManager.default.fileExists(atPath: destination.path))

            // The same URL: the sidecar names it, and a partial of another URL is never continued.
            let second = screen.download(ResumedPatternDownload(count: count, destination: destination, query: slow))
            let summary = try await second.value
            #expect(summary.resumedFrom >= Int64(kept))
            #expect(summary.byteCount == Int64(count))
            #expect(try Data(contentsOf: destination) == Data(BytePattern.bytes(0..<count)))
            #expect(await second.response?.head.status == .partialContent)
            let resumed = try #require(server.receivedRequests().last)
            #expect(resumed.values(forHeader: "Range") == ["bytes=\(summary.resumedFrom)-"])
            #expect(resumed.values(forHeader: "If-Range") == [#""pattern-\#(count)""#])
        }
    }

    @Test func aPlainDownloadDiscardsAnEarlierPartial() async throws {
        try await withDownloadClient { server, screen, folder in
            let destination = folder.appendingPathComponent("fresh.bin")
            let count = 2 << 20
            let first = screen.download(
                PatternDownload(count: count, destination: destination, query: ["chunk-delay": 20]))
            for await event in first.events {
                if case .transfer(.downloadProgress(let progress)) = event, progress.completed > 0 { first.cancel() }
            }
            _ = await first.result
            #expect(size(of: partial(of: destination)) > 0)

            // The same URL, whose partial a resuming download would continue.
            let again = PatternDownload(count: count, destination: destination, query: ["chunk-delay": 20])
            let summary = try await screen.download(again).value
            #expect(summary.resumedFrom == 0)
            #expect(try Data(contentsOf: destination) == Data(BytePattern.bytes(0..<count)))
            #expect(server.receivedRequests().last?.values(forHeader: "Range") == [])
        }
    }

    @Test func aResumingDownloadWithoutAPartialDownloadsTheWholeFile() async throws {
        try await withDownloadClient { _, screen, folder in
            let destination = folder.appendingPathComponent("whole.bin")
            let summary = try await screen.download(ResumedPatternDownload(count: 70_000, destination: destination))
                .value
            #expect(summary.resumedFrom == 0)
            #expect(try Data(contentsOf: destination) == Data(BytePattern.bytes(0..<70_000)))
        }
    }

    @Test func reportsRetriesAsEventsAndResumesAfterADrop() async throws {
        try await withDownloadClient { _, screen, folder in
            let destination = folder.appendingPathComponent("flaky.bin")
            let log = LockedRecorder<RequestEvent>()
            let query: Parameters = ["drop-after": 100_000, "key": "forms-retry-\(UUID())"]
            let request = screen.download(
                PatternDownload(count: 500_000, destination: destination, query: query), startImmediately: false)
            let events = request.events
            let watcher = Task { for await event in events { log.append(event) } }
            request.start()
            let summary = try await request.value
            await watcher.value
            #expect(log.retries == [2])
            #expect(summary.requestCount == 2)
            #expect(try Data(contentsOf: destination) == Data(BytePattern.bytes(0..<500_000)))
        }
    }

    @Test func verifiesTheFormsChecksum() async throws {
        try await withDownloadClient { _, screen, folder in
            let destination = folder.appendingPathComponent("checked.bin")
            let digest = SHA256Hasher.hexDigest(of: Data(BytePattern.bytes(0..<50_000)))
            let good = PatternDownload(count: 50_000, destination: destination, expectedSHA256: digest)
            #expect(try await screen.download(good).value.sha256 == digest)

            let other = folder.appendingPathComponent("mismatch.bin")
            let bad = PatternDownload(
                count: 50_000, destination: other, expectedSHA256: String(repeating: "0", count: 64))
            let failure = try #require(await screen.download(bad).result.failure as? TransportError)
            #expect(failure.category == .checksumMismatch)
            #expect(!FileManager.default.fileExists(atPath: other.path))
        }
    }

    // MARK: - The forms layer alone

    @Test func runsThePluginHooksOfADownload() async throws {
        let (stub, base) = stubbed(.init(body: Data("file".utf8)))
        try await withTemporaryFolder { path in
            let folder = URL(fileURLWithPath: path)
            let log = LockedRecorder<String>()
            var configuration = base
            configuration.plugins = [DownloadRecordingPlugin(log: log)]
            let destination = folder.appendingPathComponent("a.txt")
            let summary = try await Screen(clientConfiguration: configuration)
                .download(PatternDownload(count: 4, destination: destination)).value
            #expect(summary.byteCount == 4)
            #expect(try String(contentsOf: destination, encoding: .utf8) == "file")
            #expect(log.all == ["willSend", "prepare", "afterDownload 4"])
            #expect(stub.requests.first?.head.headerFields[HTTPField.Name("X-Prepared")!] == "yes")
            #expect(stub.requests.first?.head.headerFields[.authorization] == "Bearer token-1")

            let vetoLog = LockedRecorder<String>()
            configuration.plugins = [DownloadRecordingPlugin(log: vetoLog, veto: "offline")]
            let vetoed = Screen(clientConfiguration: configuration)
                .download(PatternDownload(count: 4, destination: folder.appendingPathComponent("b.txt")))
            let error = try #require(await vetoed.result.failure as? FormError)
            #expect(error.category == .vetoed)
            #expect(error.message.contains("DownloadRecordingPlugin") && error.message.contains("offline"))
            #expect(vetoLog.all == ["willSend", "afterDownload failure \(error.message)"])
            #expect(stub.requests.count == 1)
        }
    }

    @Test func aTaskOfADownloadFormRunsInTheManagerWithThePluginsAndTheClientsHeaders() async throws {
        let (stub, base) = stubbed(.init(body: Data("file".utf8)))
        try await withTemporaryFolder { path in
            let folder = URL(fileURLWithPath: path)
            let log = LockedRecorder<String>()
            var configuration = base
            configuration.plugins = [DownloadRecordingPlugin(log: log)]
            let screen = Screen(clientConfiguration: configuration)
            let destination = folder.appendingPathComponent("a.txt")

            // Without a manager: a task that has failed already, saying how to install one
            let orphan = screen.task(for: PatternDownload(count: 4, destination: destination))
            let missing = try #require(await orphan.result.failure as? TransportError)
            #expect(missing.category == .noDownloadManager)
            #expect(missing.message.contains("DownloadSystem.bootstrap"))
            #expect(orphan.currentState.description == "failed")

            // In the scope's manager: queued, and nothing sent, until its download
            let manager = DownloadManager(transport: stub)
            let task = await DownloadSystem.withManager(manager) {
                screen.task(for: PatternDownload(count: 4, destination: destination))
            }
            let states = LockedRecorder<String>()
            task.state { states.append($0.description) }
            #expect(await manager.state(of: task.id) == .queued)
            #expect(stub.requests.isEmpty && log.all.isEmpty)

            task.download()
            let summary = try await task.value
            #expect(summary.byteCount == 4)
            #expect(try String(contentsOf: destination, encoding: .utf8) == "file")
            #expect(log.all == ["willSend", "prepare", "afterDownload 4"])
            #expect(stub.requests.first?.head.headerFields[HTTPField.Name("X-Prepared")!] == "yes")
            #expect(stub.requests.first?.head.headerFields[.authorization] == "Bearer token-1")
            try await waitUntil { states.all.last == "completed" }
            #expect(states.all == ["queued", "running", "completed"])
        }
    }

    @Test func refusesDownloadsThatAreNotPlainGETs() async throws {
        let (stub, configuration) = stubbed()
        let screen = Screen(clientConfiguration: configuration)
        let destination = URL(fileURLWithPath: "/tmp/parley-never-written")

        var post = PatternDownload(count: 1, destination: destination)
        post.method = .post
        let postError = try #require(await screen.download(post).result.failure as? FormError)
        #expect(postError.category == .invalidForm)
        #expect(postError.message.contains("must be GET"))

        var withBody = PatternDownload(count: 1, destination: destination, query: ["a": 1])
        withBody.encoding = .json
        let bodyError = try #require(await screen.download(withBody).result.failure as? FormError)
        #expect(bodyError.category == .invalidForm)
        #expect(bodyError.message.contains(".urlQuery"))

        let remote = PatternDownload(count: 1, destination: try #require(URL(string: "https://example.com/x")))
        let remoteError = try #require(await screen.download(remote).result.failure as? FormError)
        #expect(remoteError.category == .invalidForm)
        #expect(stub.requests.isEmpty)
    }

    @Test func usesOnlyTheFormsTimeoutAndDefersWhenAsked() async throws {
        let (stub, base) = stubbed(.init(body: Data("x".utf8)))
        var configuration = base
        configuration.timeout = .seconds(2)
        try await withTemporaryFolder { path in
            let folder = URL(fileURLWithPath: path)
            let screen = Screen(clientConfiguration: configuration)

            let deferred = screen.download(
                PatternDownload(count: 1, destination: folder.appendingPathComponent("a")), startImmediately: false)
            try await Task.sleep(for: .milliseconds(50))
            #expect(stub.requests.isEmpty)
            deferred.start()
            _ = try await deferred.value
            #expect(stub.requests.first?.options.deadline == nil)

            var bounded = PatternDownload(count: 1, destination: folder.appendingPathComponent("b"))
            bounded.timeout = .seconds(600)
            _ = try await screen.download(bounded).value
            #expect(stub.requests.last?.options.deadline == .seconds(600))
        }
    }

    @Test func leavesTheDeadlineToTheEngineWhenTheFormSetsNone() async throws {
        let (stub, base) = stubbed(.init(body: Data("x".utf8)))
        var configuration = base
        configuration.timeout = .seconds(2)
        try await withTemporaryFolder { path in
            let folder = URL(fileURLWithPath: path)
            var engineDefaults = TransferOptions()
            engineDefaults.deadline = .seconds(3600)

            let screen = Screen(clientConfiguration: configuration)
            _ = try await screen.download(PatternDownload(count: 1, destination: folder.appendingPathComponent("a")))
                .value
            #expect(try #require(stub.requests.last).options.resolved(over: engineDefaults).deadline == .seconds(3600))
        }
    }

    @Test func failsClearlyWithoutAConfiguration() async throws {
        struct Unconfigured: Requestable {
            var clientConfiguration: ClientConfiguration? { nil }
        }
        let request = Unconfigured().download(
            PatternDownload(count: 1, destination: URL(fileURLWithPath: "/tmp/parley-never-written")))
        let error = try #require(await request.result.failure as? FormError)
        #expect(error.category == .notConfigured)
    }
}
