import Caching
import Coordination
import Forms
import Foundation
import HTTPTypes
import Logging
import MockBackend
import Retry
import TestSupport
import Testing
import Transport
import TransportCurl

/// Ten thousand requests of every kind leave nothing of Parley's alive: no handle, no core, no
/// transfer, no libcurl easy handle (checked out or pooled) and no stream buffer, once the
/// transport has shut down.
///
/// The counts are ``LiveCounts``: one atomic per kind, up in `init`, down in `deinit` (for
/// easy handles, at `curl_easy_cleanup`, and as they enter and leave the engine's pool).
/// They are global to the process, and other suites send requests at the same time, so the
/// work runs in a process of its own: the test starts this test binary again, filtered to
/// this suite, with `PARLEY_LEAK_CHILD=1`, and that child runs the workload alone.
///
/// Checked to fail, naming the count: with `CurlTransfer.detach()` not releasing the
/// transfer's retained pointer, it reported "transfers (CurlTransfer): 8074 alive after the
/// transport shut down" (every transfer that reached libcurl) and "response stream buffers
/// (ResponseStreamBuffer): 1000 alive" (those the leaked transfers held).
@Suite struct LeakTests {
    static let childVariable = "PARLEY_LEAK_CHILD"

    struct Client: Requestable {
        let clientConfiguration: ClientConfiguration?
    }

    /// A GET of `path` with `parameters`, through forms.
    struct Get: RequestFormable {
        var path: String
        var parameters: Parameters = [:]
    }

    @Test func tenThousandRequestsLeaveNothingAlive() async throws {
        if ProcessInfo.processInfo.environment[Self.childVariable] == "1" {
            try await Self.runWorkloadAndCheck()
            return
        }
        let testBinary = try #require(
            URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path as String?)
        let child = try await ChildProcess.launch(
            testBinary,
            arguments: ["--testing-library", "swift-testing", "--filter", "LeakTests"],
            environment: [Self.childVariable: "1"])
        #expect(child.status == 0, "the workload's process failed:\n\(child.output)")
        #expect(child.output.contains("LeakTests"), "the child ran no test:\n\(child.output)")
    }

    /// Sends the requests against an in-process mock server, shuts the transport down, and
    /// waits for every count to reach zero; a count that does not is named.
    static func runWorkloadAndCheck() async throws {
        for count in LiveCounts.all {
            #expect(count.value == 0, "\(count.name): \(count.value) alive before the workload")
        }
        try await MockServer.withRunning { server in
            let curl = try CurlTransport()
            do {
                try await sendRequests(server: server, curl: curl)
            } catch {
                await curl.shutdown()
                throw error
            }
            await curl.shutdown()
        }
        do {
            try await waitUntil { LiveCounts.all.allSatisfy { $0.value == 0 } }
        } catch {
            for count in LiveCounts.all where count.value != 0 {
                Issue.record("\(count.name): \(count.value) alive after the transport shut down")
            }
            throw error
        }
    }

    /// 100 rounds of 100 requests sent at once, ten of each kind: plain forms requests,
    /// cache hits, retries, cancellations, shared flights, and straight on `CurlTransport`
    /// collected, streamed (read in part or in full) and uploaded from a stream.
    static func sendRequests(server: MockServer, curl: CurlTransport) async throws {
        var configuration = ClientConfiguration(transport: curl, baseURL: server.baseURL)
        configuration.retry.baseDelay = .milliseconds(1)
        configuration.retry.budget = nil
        // A thousand retries would each log a line.
        configuration.logger = Logger(label: "parley.leaks", factory: { _ in SwiftLogNoOpLogHandler() })
        let plain = Client(clientConfiguration: configuration)
        var cachedConfiguration = configuration
        cachedConfiguration.middleware = [HTTPCache()]
        let cached = Client(clientConfiguration: cachedConfiguration)
        var sharedConfiguration = configuration
        sharedConfiguration.transport = InFlightSharing(base: curl)
        let shared = Client(clientConfiguration: sharedConfiguration)

        for round in 0..<100 {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<100 {
                    let number = round * 100 + index
                    group.addTask {
                        switch index % 10 {
                        case 0, 1:
                            let response = try await plain.request(Get(path: "/echo", parameters: ["n": number])).value
                            #expect(response.status == .ok)
                        case 2:
                            // The same ten keys all along: after the first round, hits.
                            let form = Get(path: "/cache", parameters: ["key": "hot-\(index % 3)", "max-age": 600])
                            let response = try await cached.request(form).value
                            #expect(response.status == .ok)
                        case 3:
                            // A 503 first, then 200 on the retry.
                            let form = Get(path: "/flaky/1", parameters: ["key": "k\(number)", "retry-after": 0])
                            let response = try await plain.request(form).value
                            #expect(response.status == .ok)
                        case 4:
                            // Cancelled before, while or after it is sent.
                            let handle = plain.request(Get(path: "/delay/2000"))
                            if number % 2 == 0 { await Task.yield() }
                            handle.cancel()
                            _ = await handle.result
                        case 5:
                            // Ten callers of one URL at once: one transfer, shared.
                            let form = Get(path: "/delay/5", parameters: ["round": round])
                            let response = try await shared.request(form).value
                            #expect(response.status == .ok)
                        case 6:
                            let request = try TransportRequest(method: .get, url: server.url("/bytes/2048"))
                            let response = try await curl.data(for: request)
                            #expect(response.body.count == 2048)
                        case 7:
                            // Streamed: read to the end, or one chunk and cancelled.
                            let request = try TransportRequest(
                                method: .get, url: server.url("/stream-bytes/65536?chunk=4096"))
                            let response = try await curl.send(request)
                            if number % 2 == 0 {
                                _ = try await response.body.collect(upTo: 1 << 20)
                            } else {
                                var iterator = response.body.makeAsyncIterator()
                                _ = try await iterator.next()
                                response.body.cancel()
                            }
                        case 8:
                            // An upload from a stream, through the engine's upload buffer.
                            let chunks = [Data(count: 8192), Data(count: 8192)]
                            let body = RequestBody.stream(length: 16384) { chunks.async }
                            let request = try TransportRequest(
                                method: .post, url: server.url("/upload"), body: body)
                            let response = try await curl.data(for: request)
                            #expect(response.status == .ok)
                        default:
                            // A straight request whose task is cancelled.
                            let task = Task {
                                try await curl.data(for: TransportRequest(method: .get, url: server.url("/delay/2000")))
                            }
                            task.cancel()
                            _ = await task.result
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }
}

extension Array where Element: Sendable {
    /// The elements as an asynchronous sequence.
    fileprivate var async: AsyncStream<Element> {
        AsyncStream { continuation in
            for element in self { continuation.yield(element) }
            continuation.finish()
        }
    }
}
