import Foundation
import HTTPTypes
import MockBackend
import TestSupport
import Testing
import Transport
import TransportCurl

/// Tasks that prefer the engine's thread as their executor (`CurlTransport.taskExecutor`).
@Suite struct LoopExecutorTests {
    @Test func concurrentRequestsOnTheEnginesThreadAllCompleteThere() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                // Given 64 child tasks that prefer the engine's thread, each sending requests
                let results = try await withTaskExecutorPreference(transport.taskExecutor) {
                    try await withThrowingTaskGroup(of: (Int, Int, String?).self) { group in
                        for index in 0..<64 {
                            group.addTask {
                                let size = 100 + index
                                let request = try TransportRequest(method: .get, url: server.url("/bytes/\(size)"))
                                let response = try await transport.data(for: request)
                                // The code after the await runs where the response resumed it.
                                return (size, response.body.count, currentThreadName())
                            }
                        }
                        return try await group.reduce(into: []) { $0.append($1) }
                    }
                }

                // Then every response is whole, and each task went on on the engine's thread
                #expect(results.count == 64)
                for (size, received, thread) in results {
                    #expect(received == size)
                    #expect(thread == "parley-curl")
                }
            }
        }
    }

    @Test func aStreamedBodyArrivesWholeOnTheEnginesThread() async throws {
        try await MockServer.withRunning { server in
            var configuration = CurlTransport.Configuration()
            configuration.streamBufferSize = 64 * 1024
            try await withTransport(configuration) { transport in
                // Given a body many times the stream buffer, read by a task on the engine's thread
                let size = 3 * 1024 * 1024
                let received = try await withTaskExecutorPreference(transport.taskExecutor) {
                    let response = try await transport.send(
                        TransportRequest(method: .get, url: server.url("/bytes/\(size)")))
                    var body = Data()
                    for try await chunk in response.body { body.append(chunk) }
                    return body
                }

                // Then backpressure (pausing and resuming from the same thread) loses nothing
                #expect(received == pattern(0..<size))
            }
        }
    }

    @Test(.timeLimit(.minutes(1))) func cancellingATaskOnTheEnginesThreadStopsItsRequest() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                // Given a request the server holds for ten minutes, awaited on the engine's thread
                let request = try TransportRequest(method: .get, url: server.url("/delay/600000"))
                let task = Task(executorPreference: transport.taskExecutor) {
                    try await transport.data(for: request)
                }
                try await waitUntil { server.receivedRequests().contains { $0.path == "/delay/600000" } }

                // When the task is cancelled
                task.cancel()

                // Then it fails as cancelled, and the engine goes on serving others
                let error = try #require(await task.result.failure as? TransportError)
                #expect(error.category == .cancelled)
                let next = try await transport.data(for: TransportRequest(method: .get, url: server.url("/bytes/5")))
                #expect(next.body.count == 5)
            }
        }
    }

    @Test(.timeLimit(.minutes(1))) func aTaskOnTheEnginesThreadOutlivesItsShutdown() async throws {
        try await MockServer.withRunning { server in
            let transport = try CurlTransport()
            // Given a task on the engine's thread that shuts the engine down, then sends again
            let outcome = await withTaskExecutorPreference(transport.taskExecutor) {
                () async -> Result<DataResponse, any Error> in
                await transport.shutdown()
                // The loop has stopped: this part runs on the global executor instead.
                return await Result {
                    try await transport.data(for: TransportRequest(method: .get, url: server.url("/bytes/5")))
                }
            }

            // Then the task runs to its end (no hang) and the late request fails as shut down
            let error = try #require(outcome.failure as? TransportError)
            #expect(error.category == .shutDown)
        }
    }
}

/// The name the system shows for the calling thread (the engine names its loop thread).
private func currentThreadName() -> String? {
    (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?
        .trimmingCharacters(in: .whitespacesAndNewlines)
}

extension Result where Failure == any Error {
    /// The result of an async throwing body.
    fileprivate init(_ body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
