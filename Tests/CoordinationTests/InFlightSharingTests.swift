import Coordination
import Foundation
import HTTPTypes
import MockBackend
import TestSupport
import Testing
import Transport

/// Single flight against the mock server: identical GETs in flight share one transfer.
@Suite struct InFlightSharingTests {
    /// `count` tasks that each fetch `url` through `transport`, returning the body or the error.
    func callers(
        _ count: Int, _ url: String, through transport: any HTTPTransport,
        headers: KeyValuePairs<String, String> = [:]
    ) -> [Task<String, any Error>] {
        (0..<count).map { _ in
            Task {
                let response = try await transport.data(
                    for: try TransportRequest(method: .get, url: url, headers: headers))
                return String(decoding: response.body, as: UTF8.self)
            }
        }
    }

    @Test func aHundredIdenticalGetsReachTheServerOnceAndAllGetTheBody() async throws {
        try await withServerAndTransport { server, counting in
            let sharing = InFlightSharing(base: counting)
            let tasks = callers(100, server.url("/delay/300"), through: sharing)
            for task in tasks {
                let value = try await task.value
                #expect(value == "ok")
            }
            #expect(receivedPaths(server) == ["/delay/300"])
            #expect(counting.started == 1)
            #expect(sharing.transfersInFlight == 0 && sharing.waitingCallers == 0)
        }
    }

    @Test func anIdenticalRequestAfterTheTransferFinishedStartsANewOne() async throws {
        try await withServerAndTransport { server, counting in
            let sharing = InFlightSharing(base: counting)
            let request = try TransportRequest(method: .get, url: server.url("/echo"))
            let first = try await sharing.data(for: request)
            let second = try await sharing.data(for: request)
            #expect(first.status == .ok && second.status == .ok)
            #expect(receivedPaths(server) == ["/echo", "/echo"])
            #expect(sharing.transfersInFlight == 0 && sharing.waitingCallers == 0)
        }
    }

    @Test func cancellingNinetyNineCallersLeavesTheOneThatStartedTheTransferSucceeding() async throws {
        try await withServerAndTransport { server, counting in
            let sharing = InFlightSharing(base: counting)
            let url = server.url("/delay/3000")
            // The first caller starts the transfer; the other 99 join it.
            let first = callers(1, url, through: sharing)[0]
            try await waitUntil { server.receivedRequests().count == 1 }
            let others = callers(99, url, through: sharing)
            try await waitUntil { sharing.waitingCallers == 100 }
            for task in others { task.cancel() }
            for task in others {
                let error = await #expect(throws: TransportError.self) { try await task.value }
                #expect(error?.category == .cancelled)
            }
            #expect(try await first.value == "ok")
            #expect(receivedPaths(server) == ["/delay/3000"], "the transfer went on, once")
            #expect(counting.failures.isEmpty)
        }
    }

    // The transfer runs in a task of its own: the caller that started it may go.
    @Test func cancellingTheCallerThatStartedTheTransferLeavesTheOtherNinetyNineSucceeding() async throws {
        try await withServerAndTransport { server, counting in
            let sharing = InFlightSharing(base: counting)
            let url = server.url("/delay/3000")
            let first = callers(1, url, through: sharing)[0]
            try await waitUntil { server.receivedRequests().count == 1 }
            let others = callers(99, url, through: sharing)
            try await waitUntil { sharing.waitingCallers == 100 }
            first.cancel()
            let error = await #expect(throws: TransportError.self) { try await first.value }
            #expect(error?.category == .cancelled)
            #expect(sharing.waitingCallers == 99 && sharing.transfersInFlight == 1, "the transfer went on")
            for task in others {
                let value = try await task.value
                #expect(value == "ok")
            }
            #expect(receivedPaths(server) == ["/delay/3000"], "one request on the wire")
            #expect(counting.started == 1)
            #expect(counting.failures.isEmpty)
        }
    }

    @Test func cancellingNinetyNineCallersWithTheOneThatStartedItLeavesTheLastSucceeding() async throws {
        try await withServerAndTransport { server, counting in
            let sharing = InFlightSharing(base: counting)
            let url = server.url("/delay/3000")
            let first = callers(1, url, through: sharing)[0]
            try await waitUntil { server.receivedRequests().count == 1 }
            let others = callers(99, url, through: sharing)
            try await waitUntil { sharing.waitingCallers == 100 }
            // The caller that started the transfer and 98 others go; one caller stays.
            first.cancel()
            for task in others.dropLast() { task.cancel() }
            for task in [first] + others.dropLast() {
                let error = await #expect(throws: TransportError.self) { try await task.value }
                #expect(error?.category == .cancelled)
            }
            #expect(try await others[98].value == "ok")
            // The transfer went on for the last caller: the server saw the request once.
            #expect(receivedPaths(server) == ["/delay/3000"])
            #expect(counting.started == 1)
            #expect(counting.failures.isEmpty)
        }
    }

    @Test(.timeLimit(.minutes(1))) func cancellingEveryCallerStopsTheTransfer() async throws {
        try await withServerAndTransport { server, counting in
            let sharing = InFlightSharing(base: counting)
            // Ten minutes: the test's time limit fails it long before, should anybody wait.
            let url = server.url("/delay/600000")
            let tasks = callers(10, url, through: sharing)
            try await waitUntil { server.receivedRequests().count == 1 && sharing.waitingCallers == 10 }
            for task in tasks { task.cancel() }
            for task in tasks {
                let error = await #expect(throws: TransportError.self) { try await task.value }
                #expect(error?.category == .cancelled)
            }
            // The one transfer that reached the transport was cancelled, and nothing is left.
            try await waitUntil { counting.inFlight == 0 }
            #expect(counting.failures == [.cancelled])
            #expect(sharing.transfersInFlight == 0 && sharing.waitingCallers == 0)
            // The next identical request starts a new transfer.
            let again = callers(1, url, through: sharing)[0]
            try await waitUntil { server.receivedRequests().count == 2 && sharing.transfersInFlight == 1 }
            again.cancel()
            _ = await again.result
            try await waitUntil { counting.inFlight == 0 }
            #expect(receivedPaths(server) == ["/delay/600000", "/delay/600000"])
        }
    }

    @Test func requestsThatDifferInTheirURLOrAHeaderAreNotShared() async throws {
        try await withServerAndTransport { server, counting in
            let transport = InFlightSharing(base: counting)
            let tasks =
                callers(3, server.url("/delay/300?a=1"), through: transport)
                + callers(3, server.url("/delay/300?a=2"), through: transport)
                + callers(3, server.url("/delay/300?a=1"), through: transport, headers: ["X-Variant": "b"])
                + callers(3, server.url("/delay/300?a=1"), through: transport, headers: ["x-variant": "b"])
            for task in tasks {
                let value = try await task.value
                #expect(value == "ok")
            }
            let received = server.receivedRequests()
            #expect(received.count == 3, "one per URL and header set: \(received.map(\.path))")
            #expect(received.filter { $0.values(forHeader: "X-Variant") == ["b"] }.count == 1)
        }
    }

    @Test func postsAreNeverShared() async throws {
        try await withServerAndTransport { server, counting in
            let transport = InFlightSharing(base: counting)
            let url = server.url("/delay/200")
            let tasks = (0..<5).map { _ in
                Task { try await transport.data(for: try TransportRequest(method: .post, url: url)).status }
            }
            for task in tasks {
                let value = try await task.value
                #expect(value == .ok)
            }
            #expect(server.receivedRequests().filter { $0.method == .post }.count == 5)
        }
    }

    @Test func headsAreSharedAndGetsWithABodyAreNot() async throws {
        try await withServerAndTransport { server, counting in
            let transport = InFlightSharing(base: counting)
            let url = server.url("/delay/300")
            let heads = (0..<5).map { _ in
                Task { try await transport.data(for: try TransportRequest(method: .head, url: url)).status }
            }
            let withBodies = (0..<3).map { _ in
                Task {
                    try await transport.data(for: try TransportRequest(method: .get, url: url, body: .string("q")))
                        .status
                }
            }
            for task in heads + withBodies {
                let value = try await task.value
                #expect(value == .ok)
            }
            let received = server.receivedRequests()
            #expect(received.filter { $0.method == .head }.count == 1)
            #expect(received.filter { $0.method == .get }.count == 3)
        }
    }

    @Test func aStreamedResponseIsNotShared() async throws {
        try await withServerAndTransport { server, counting in
            let transport = InFlightSharing(base: counting)
            let url = server.url("/delay/300")
            let tasks = (0..<4).map { _ in
                Task {
                    let response = try await transport.send(try TransportRequest(method: .get, url: url))
                    #expect(response.body.collectedData == nil, "each caller streams a body of its own")
                    return String(decoding: try await response.body.collect(upTo: 1 << 20), as: UTF8.self)
                }
            }
            for task in tasks {
                let value = try await task.value
                #expect(value == "ok")
            }
            #expect(server.receivedRequests().count == 4)
        }
    }

    @Test func everyCallerReceivesTheSharedTransfersEvents() async throws {
        try await withServerAndTransport { server, counting in
            let transport = InFlightSharing(base: counting)
            let url = server.url("/delay/300")
            let recorders = (0..<5).map { _ in LockedRecorder<TransferEvent>() }
            let tasks = recorders.map { recorder in
                Task {
                    var request = try TransportRequest(method: .get, url: url)
                    request.options.eventHandler = recorder.handler
                    return try await transport.data(for: request).status
                }
            }
            for task in tasks {
                let value = try await task.value
                #expect(value == .ok)
            }
            #expect(server.receivedRequests().count == 1)
            for recorder in recorders {
                #expect(recorder.all.contains { if case .metrics = $0 { true } else { false } })
            }
        }
    }

    @Test func aFailureOfTheSharedTransferIsEveryCallersFailure() async throws {
        try await withServerAndTransport { server, counting in
            let transport = InFlightSharing(base: counting)
            var request = try TransportRequest(method: .get, url: server.url("/delay/10000"))
            request.options.deadline = .seconds(1)
            let shared = request
            let tasks = (0..<5).map { _ in Task { try await transport.data(for: shared) } }
            for task in tasks {
                let error = await #expect(throws: TransportError.self) { try await task.value }
                #expect(error?.category == .deadlineExceeded)
            }
            // One transfer at most: on a machine loaded enough, the deadline may pass before
            // the request is even sent, and then the server sees none.
            #expect(server.receivedRequests().count <= 1)
        }
    }
}
