import Coordination
import Foundation
import HTTPTypes
import MockBackend
import TestSupport
import Testing
import Transport

/// The request queue against the mock server: at most N transfers in flight, the rest in order.
@Suite struct ConcurrencyLimitTests {
    @Test func twentyRequestsWithALimitOfThreeNeverHaveMoreThanThreeInFlight() async throws {
        try await withServerAndTransport { server, counting in
            let limit = try ConcurrencyLimit(maximumConcurrent: 3)
            let transport = MiddlewareTransport(counting, middleware: [limit])
            let url = server.url("/delay/200")
            let tasks = (0..<20).map { _ in
                Task { try await transport.data(for: try TransportRequest(method: .get, url: url)).status }
            }
            // While they run, the server never holds more than three unanswered requests: each
            // arrives only once one before it was answered.
            var sampled = 0
            while counting.started < 20 {
                #expect(limit.inFlight <= 3)
                sampled = max(sampled, limit.inFlight)
                try await Task.sleep(for: .milliseconds(5))
            }
            for task in tasks {
                let value = try await task.value
                #expect(value == .ok)
            }
            #expect(counting.mostInFlight == 3, "the limit is used, and never exceeded")
            #expect(sampled == 3)
            #expect(server.receivedRequests().count == 20)
            #expect(limit.inFlight == 0 && limit.waiting == 0)
        }
    }

    // Fails when the queue hands a freed slot to its newest waiter instead of its oldest.
    @Test func waitingRequestsGoInTheOrderTheyWereSent() async throws {
        try await withServerAndTransport { server, counting in
            let limit = try ConcurrencyLimit(maximumConcurrent: 1)
            let transport = MiddlewareTransport(counting, middleware: [limit])
            // Held until the test lets it go, so that the waiters queue behind it whatever the load.
            let blocker = Task {
                try await transport.data(for: try TransportRequest(method: .get, url: server.url("/delay/60000")))
            }
            try await waitUntil { limit.inFlight == 1 && server.receivedRequests().count == 1 }
            var waiting: [Task<DataResponse, any Error>] = []
            for index in 0..<5 {
                waiting.append(
                    Task {
                        try await transport.data(
                            for: try TransportRequest(method: .get, url: server.url("/echo?n=\(index)")))
                    })
                try await waitUntil { limit.waiting == index + 1 }
            }
            blocker.cancel()
            _ = await blocker.result
            for task in waiting { _ = try await task.value }
            #expect(receivedPaths(server) == ["/delay/60000"] + (0..<5).map { "/echo?n=\($0)" })
        }
    }

    // Without the cancellation handler of the queue, the cancelled request waits for the
    // slot, which the blocker holds until the test lets it go: the test would never end.
    @Test func aWaitingRequestThatIsCancelledLeavesTheQueueAtOnce() async throws {
        try await withServerAndTransport { server, counting in
            let limit = try ConcurrencyLimit(maximumConcurrent: 1)
            let transport = MiddlewareTransport(counting, middleware: [limit])
            let blocker = Task {
                try await transport.data(for: try TransportRequest(method: .get, url: server.url("/delay/60000")))
            }
            try await waitUntil { limit.inFlight == 1 && server.receivedRequests().count == 1 }
            let waiter = Task {
                try await transport.data(for: try TransportRequest(method: .get, url: server.url("/echo?waiter")))
            }
            let behind = Task {
                try await transport.data(for: try TransportRequest(method: .get, url: server.url("/echo?behind")))
            }
            try await waitUntil { limit.waiting == 2 }
            waiter.cancel()
            let error = await #expect(throws: TransportError.self) { try await waiter.value }
            #expect(error?.category == .cancelled)
            #expect(limit.inFlight == 1, "it left while the slot was still taken")
            #expect(limit.waiting == 1)
            blocker.cancel()
            _ = await blocker.result
            _ = try await behind.value
            #expect(receivedPaths(server) == ["/delay/60000", "/echo?behind"], "the cancelled request never went out")
        }
    }

    @Test func aStreamedResponseHoldsItsSlotUntilItsBodyEnds() async throws {
        try await withServerAndTransport { server, counting in
            let limit = try ConcurrencyLimit(maximumConcurrent: 1)
            let transport = MiddlewareTransport(counting, middleware: [limit])
            let response = try await transport.send(
                try TransportRequest(method: .get, url: server.url("/stream-bytes/100000?chunk=1000")))
            #expect(limit.inFlight == 1, "the body is still streaming")
            let body = try await response.body.collect(upTo: 1 << 20)
            #expect(body.count == 100_000)
            #expect(limit.inFlight == 0)

            // A body dropped unread gives its slot back too.
            do {
                _ = try await transport.send(
                    try TransportRequest(method: .get, url: server.url("/stream-bytes/100000")))
            }
            try await waitUntil { limit.inFlight == 0 }
            let next = try await transport.data(for: try TransportRequest(method: .get, url: server.url("/echo")))
            #expect(next.status == .ok)
        }
    }

    @Test(arguments: [0, -3])
    func aLimitBelowOneIsRefused(limit: Int) {
        let error = #expect(throws: CoordinationError.self) { try ConcurrencyLimit(maximumConcurrent: limit) }
        #expect(error?.category == .invalidLimit)
        #expect(error?.message.contains("Pass 1 or more") == true)
    }
}
