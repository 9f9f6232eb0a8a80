#if ServiceLifecycle
    import Foundation
    import HTTPTypes
    import Logging
    import MockBackend
    import ParleyServiceLifecycle
    import ServiceLifecycle
    import TestSupport
    import Testing
    import Transport
    import TransportCurl

    /// `CurlTransportService` in a `ServiceGroup` beside another service, against the
    /// in-process mock server: a graceful shutdown lets the requests in flight finish, cancels
    /// those still running when the grace period ends, and refuses new ones.
    @Suite struct CurlTransportServiceTests {
        @Test func aGracefulShutdownLetsTheRequestsInFlightFinish() async throws {
            try await MockServer.withRunning { server in
                // Given a group running the transport and a worker, with three slow requests in
                // flight (the server has received them)
                let transport = try CurlTransport()
                let group = Self.group(CurlTransportService(transport, gracePeriod: .seconds(60)))
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    tasks.addTask { try await group.run() }
                    let requests = Task {
                        try await withThrowingTaskGroup(of: Int.self) { requests in
                            for _ in 0..<3 {
                                requests.addTask {
                                    let request = try TransportRequest(method: .get, url: server.url("/delay/1500"))
                                    return try await transport.data(for: request).status.code
                                }
                            }
                            return try await requests.reduce(into: []) { $0.append($1) }
                        }
                    }
                    try await waitUntil { server.requestCount(for: "/delay/1500") == 3 }

                    // When the group shuts down gracefully
                    await group.triggerGracefulShutdown()

                    // Then each request in flight completes with the server's answer, and the
                    // group ends
                    let statuses = try await requests.value
                    #expect(statuses == [200, 200, 200])
                    try await tasks.waitForAll()
                }
            }
        }

        @Test func requestsStillRunningWhenTheGracePeriodEndsAreCancelled() async throws {
            try await MockServer.withRunning { server in
                // Given a group whose transport has a short grace period, and a request the
                // server answers after ten minutes
                let transport = try CurlTransport()
                let group = Self.group(CurlTransportService(transport, gracePeriod: .milliseconds(200)))
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    tasks.addTask { try await group.run() }
                    let slow = Task {
                        try await transport.data(for: TransportRequest(method: .get, url: server.url("/delay/600000")))
                    }
                    try await waitUntil { server.requestCount(for: "/delay/600000") == 1 }

                    // When the group shuts down gracefully
                    await group.triggerGracefulShutdown()

                    // Then the slow request fails as cancelled, saying why, and the group ends
                    let error = try #require(await slow.result.failure as? TransportError)
                    #expect(error.category == .cancelled, "\(error)")
                    #expect(error.message.contains("grace period"), "\(error.message)")
                    try await tasks.waitForAll()
                }
            }
        }

        @Test func aRequestSentAfterTheShutdownBeganIsRefused() async throws {
            try await MockServer.withRunning { server in
                // Given a group shutting down gracefully while a request the server answers
                // after ten minutes holds the drain open
                let transport = try CurlTransport()
                let group = Self.group(CurlTransportService(transport, gracePeriod: .seconds(600)))
                try await withThrowingTaskGroup(of: Void.self) { tasks in
                    tasks.addTask { try await group.run() }
                    let slow = Task {
                        try await transport.data(for: TransportRequest(method: .get, url: server.url("/delay/600000")))
                    }
                    try await waitUntil { server.requestCount(for: "/delay/600000") == 1 }
                    await group.triggerGracefulShutdown()

                    // When a new request is sent once the service has begun to drain (one sent in
                    // the moment the service takes to see the shutdown is still taken)
                    var refusal: TransportError?
                    try await waitUntil {
                        do {
                            _ = try await transport.data(for: TransportRequest(method: .get, url: server.url("/echo")))
                            return false
                        } catch let error as TransportError {
                            refusal = error
                            return true
                        }
                    }

                    // Then it fails as shut down, saying so, without reaching the server, while the
                    // slow request still runs (the loops have not stopped: the refusal is the
                    // drain's, not a stopped engine's)
                    let error = try #require(refusal)
                    #expect(error.category == .shutDown, "\(error)")
                    #expect(error.message.contains("takes no new requests"), "\(error.message)")
                    #expect(error.mayHaveReachedServer == false)
                    // And cancelling the slow request ends the drain and the group
                    slow.cancel()
                    let cancelled = try #require(await slow.result.failure as? TransportError)
                    #expect(cancelled.category == .cancelled, "\(cancelled)")
                    try await tasks.waitForAll()
                }
            }
        }

        @Test func aCancelledGroupStopsTheTransportAtOnce() async throws {
            try await MockServer.withRunning { server in
                // Given a group with a slow request in flight and a long grace period
                let transport = try CurlTransport()
                let group = Self.group(CurlTransportService(transport, gracePeriod: .seconds(600)))
                let running = Task { try await group.run() }
                let slow = Task {
                    try await transport.data(for: TransportRequest(method: .get, url: server.url("/delay/600000")))
                }
                try await waitUntil { server.requestCount(for: "/delay/600000") == 1 }

                // When the group's task is cancelled
                running.cancel()

                // Then the request fails as cancelled without waiting out the grace period
                let error = try #require(await slow.result.failure as? TransportError)
                #expect(error.category == .cancelled, "\(error)")
                _ = await running.result
            }
        }

        /// A group of the transport's service and a worker that runs until the shutdown: the
        /// transport first, so that it stops last.
        static func group(_ transport: CurlTransportService) -> ServiceGroup {
            ServiceGroup(
                services: [transport, Worker()], gracefulShutdownSignals: [],
                logger: Logger(label: "parley.test", factory: { _ in SwiftLogNoOpLogHandler() }))
        }
    }

    /// A service of the application beside the transport: it runs until the graceful shutdown.
    struct Worker: Service {
        func run() async throws {
            try? await gracefulShutdown()
        }
    }
#endif
