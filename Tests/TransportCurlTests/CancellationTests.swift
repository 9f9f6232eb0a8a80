import Foundation
import HTTPTypes
import Logging
import MockBackend
import TestSupport
import Testing
import Transport
import TransportCurl

@Suite struct CancellationTests {
    @Test(.timeLimit(.minutes(1))) func cancellingTheTaskStopsACollectedRequestAtOnce() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                // Given a request the server answers only after ten minutes (the test's time
                // limit fails it long before, should the cancel not end the transfer)
                let request = try TransportRequest(method: .get, url: server.url("/delay/600000"))
                let task = Task { try await transport.data(for: request) }
                try await waitUntil { server.receivedRequests().contains { $0.path == "/delay/600000" } }

                // When its task is cancelled while the server holds the request
                task.cancel()
                let result = await task.result

                // Then it fails as cancelled, without waiting for the server
                let error = try #require(result.failure as? TransportError)
                #expect(error.category == .cancelled)
                // And the transport goes on working
                let next = try await transport.data(for: TransportRequest(method: .get, url: server.url("/bytes/5")))
                #expect(next.body.count == 5)
            }
        }
    }

    @Test func aTaskCancelledBeforeSendingNeverConnects() async throws {
        try await ScriptedSocketServer.withRunning(.holdOpen) { server in
            try await withTransport { transport in
                let request = try TransportRequest(method: .get, url: server.baseURL + "/")
                let task = Task {
                    withUnsafeCurrentTask { $0?.cancel() }
                    return try await transport.data(for: request)
                }
                let error = try #require(await task.result.failure as? TransportError)
                #expect(error.category == .cancelled)
                #expect(error.mayHaveReachedServer == false)
                try await Task.sleep(for: .milliseconds(100))
                #expect(server.acceptedConnections == 0)
            }
        }
    }

    @Test func cancellingAStreamedBodyStopsTheTransfer() async throws {
        try await MockServer.withRunning { server in
            try await withTransport(.with { $0.maximumConnectionsPerHost = 1 }) { transport in
                let response = try await transport.send(
                    TransportRequest(method: .get, url: server.url("/bytes/\(64 << 20)")))
                var iterator = response.body.makeAsyncIterator()
                _ = try await iterator.next()

                response.body.cancel()

                let error = await #expect(throws: TransportError.self) { _ = try await iterator.next() }
                #expect(error?.category == .cancelled)
                // The single connection slot is free again.
                let next = try await transport.data(for: TransportRequest(method: .get, url: server.url("/bytes/5")))
                #expect(next.body.count == 5)
            }
        }
    }

    @Test func cancellingTheConsumingTaskStopsAStreamedBody() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let response = try await transport.send(
                    TransportRequest(method: .get, url: server.url("/stall?after=10")))
                // The consumer says when it holds the ten bytes the server sends before stalling, so
                // it is waiting for more when it is cancelled.
                let firstBytes = AsyncStream<Void>.makeStream()
                let consumer = Task {
                    var total = 0
                    for try await chunk in response.body {
                        total += chunk.count
                        if total >= 10 { firstBytes.continuation.yield() }
                    }
                    return total
                }
                for await _ in firstBytes.stream { break }
                consumer.cancel()
                let error = try #require(await consumer.result.failure as? TransportError)
                #expect(error.category == .cancelled)
            }
        }
    }

    @Test func shuttingDownFailsRunningAndLaterRequests() async throws {
        try await MockServer.withRunning { server in
            let transport = try CurlTransport()
            let running = Task {
                try await transport.data(for: TransportRequest(method: .get, url: server.url("/delay/5000")))
            }
            try await waitUntil { server.receivedRequests().contains { $0.path == "/delay/5000" } }

            await transport.shutdown()

            let error = try #require(await running.result.failure as? TransportError)
            #expect(error.category == .shutDown)
            let later = await #expect(throws: TransportError.self) {
                try await transport.data(for: TransportRequest(method: .get, url: server.url("/bytes/1")))
            }
            #expect(later?.category == .shutDown)
        }
    }
}
