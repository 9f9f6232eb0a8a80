import Foundation
import HTTPTypes
import MockBackend
import Retry
import ServerSentEvents
import ServerTestSupport
import TestSupport
import Testing
import Transport
import TransportCurl

/// An event stream against the mock server's `/events`, which drops as scripted, resumes after
/// the `Last-Event-ID` it receives, and records what it sent.
@Suite struct EventStreamTests {
    /// What `/events/stats` reports for a key.
    struct Stats: Decodable {
        let connections: Int
        let open: Int
        let sent: Int
        let lastEventIDs: [String?]
    }

    static func stats(_ server: MockServer, _ transport: CurlTransport, key: String) async throws -> Stats {
        let request = try TransportRequest(method: .get, url: server.url("/events/stats?key=\(key)"))
        return try JSONDecoder().decode(Stats.self, from: try await transport.data(for: request).body)
    }

    static func collect(_ stream: EventStream) async throws -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for try await event in stream { events.append(event) }
        return events
    }

    @Test func reconnectsWithTheLastEventIDAfterTheServersRetry() async throws {
        try await withServerAndTransport { server, transport in
            let clock = RecordingClock()
            let reconnections = LockedRecorder<RetryEvent>()
            let options = EventStream.Options(
                retry: .testing(clock: clock), reconnectionHandler: { retry, _ in reconnections.append(retry) })
            let stream = try EventStream(
                url: server.url("/events?count=5&drop-after=2&retry=1500&key=resume"), transport: transport,
                options: options)

            let events = try await Self.collect(stream)

            #expect(events.map(\.id) == ["1", "2", "3", "4", "5"])
            #expect(events.map(\.data) == (1...5).map { "event \($0)" })
            #expect(events.allSatisfy { $0.type == "tick" })
            #expect(events[0].retry == .milliseconds(1500))
            let stats = try await Self.stats(server, transport, key: "resume")
            // Dropped after 2 and 4, ended after 5, then 204.
            #expect(stats.lastEventIDs == [nil, "2", "4", "5"])
            #expect(clock.waits == Array(repeating: .milliseconds(1500), count: 3))
            #expect(reconnections.all.map(\.delay) == Array(repeating: .milliseconds(1500), count: 3))
        }
    }

    @Test func waitsTheDefaultReconnectionTimeUntilTheServerSetsOne() async throws {
        try await withServerAndTransport { server, transport in
            let clock = RecordingClock()
            let options = EventStream.Options(
                retry: .testing(clock: clock), defaultReconnectionTime: .milliseconds(1234))
            let stream = try EventStream(
                url: server.url("/events?count=2&drop-after=1"), transport: transport, options: options)

            let events = try await Self.collect(stream)

            #expect(events.map(\.id) == ["1", "2"])
            #expect(clock.waits == [.milliseconds(1234), .milliseconds(1234)])
        }
    }

    @Test func aStartingLastEventIDIsSentAndA204StopsReconnecting() async throws {
        try await withServerAndTransport { server, transport in
            let clock = RecordingClock()
            let options = EventStream.Options(retry: .testing(clock: clock), lastEventID: "3")
            let stream = try EventStream(
                url: server.url("/events?count=3&key=done"), transport: transport, options: options)

            let events = try await Self.collect(stream)

            #expect(events.isEmpty)
            let stats = try await Self.stats(server, transport, key: "done")
            #expect(stats.lastEventIDs == ["3"])
            #expect(clock.waits.isEmpty)
        }
    }

    @Test func theBudgetEndsAStreamThatKeepsFailingWithItsError() async throws {
        try await withServerAndTransport { server, transport in
            let clock = RecordingClock()
            let policy = RetryPolicy.testing(
                clock: clock, maximumRetries: 50, budget: RetryBudget(maximumTokens: 4, tokensPerSuccess: 0))
            // Every connection is a stream that ends before its first event.
            let stream = try EventStream(
                url: server.url("/events?count=0&end=close&key=budget"), transport: transport,
                options: EventStream.Options(retry: policy))

            let error = try await #require(throws: TransportError.self) { try await Self.collect(stream) }

            #expect(error.category == .retryBudgetExhausted)
            let stats = try await Self.stats(server, transport, key: "budget")
            // 4 tokens: the first failure leaves 3, the second 2, half of them, which stops it.
            #expect(stats.connections == 2)
            #expect(clock.waits.count == 1)
        }
    }

    @Test func failuresInARowEndTheStreamOnceThePolicysRetriesAreSpent() async throws {
        try await withServerAndTransport { server, transport in
            let stream = try EventStream(
                url: server.url("/events?count=0&end=close&key=spent"), transport: transport,
                options: EventStream.Options(retry: .testing(clock: RecordingClock(), maximumRetries: 2)))

            let error = try await #require(throws: TransportError.self) { try await Self.collect(stream) }

            #expect(error.category == .incompleteBody)
            #expect(error.message.contains("Gave up after 3 attempts in a row"))
            #expect(try await Self.stats(server, transport, key: "spent").connections == 3)
        }
    }

    @Test(arguments: [
        "/events?content-type=application/json&key=type", "/status/404", "/status/401",
    ])
    func anAnswerThatIsNotAnEventStreamStopsWithATypedError(path: String) async throws {
        try await withServerAndTransport { server, transport in
            let clock = RecordingClock()
            let stream = try EventStream(
                url: server.url(path), transport: transport, options: EventStream.Options(retry: .testing(clock: clock))
            )

            let error = try await #require(throws: TransportError.self) { try await Self.collect(stream) }

            #expect(error.category == .eventStreamFailed)
            #expect(clock.waits.isEmpty)
            #expect(server.requestCount(for: String(path.prefix { $0 != "?" })) == 1)
        }
    }

    @Test func cancellingTheConsumingTaskEndsTheStreamAndTheTransfer() async throws {
        try await withServerAndTransport { server, transport in
            let stream = try EventStream(
                url: server.url("/events?count=100000&interval=100&key=cancel"), transport: transport,
                options: EventStream.Options(retry: .testing(clock: RecordingClock())))
            let (firstEvent, arrived) = AsyncStream.makeStream(of: Void.self)
            let consumer = Task {
                var count = 0
                for try await _ in stream {
                    count += 1
                    arrived.yield()
                }
                return count
            }
            for await _ in firstEvent { break }

            consumer.cancel()

            let error = await #expect(throws: TransportError.self) { try await consumer.value }
            #expect(error?.category == .cancelled)
            try await waitUntil { try await Self.stats(server, transport, key: "cancel").open == 0 }
            #expect(try await Self.stats(server, transport, key: "cancel").connections == 1)
        }
    }

    @Test func leavingTheLoopCancelsTheTransfer() async throws {
        try await withServerAndTransport { server, transport in
            let stream = try EventStream(
                url: server.url("/events?count=100000&interval=20&key=leave"), transport: transport,
                options: EventStream.Options(retry: .testing(clock: RecordingClock())))
            for try await event in stream where event.id == "2" { break }

            try await waitUntil { try await Self.stats(server, transport, key: "leave").open == 0 }
            #expect(try await Self.stats(server, transport, key: "leave").connections == 1)
        }
    }

    @Test func aSlowConsumerHoldsTheServerBack() async throws {
        try await withServerAndTransport { server, transport in
            // 100,000 events of about 4 KiB: 400 MiB if nothing held the server back.
            let total = 100_000
            let stream = try EventStream(
                url: server.url("/events?count=\(total)&size=4096&key=slow"), transport: transport,
                options: EventStream.Options(retry: .testing(clock: RecordingClock())))
            var iterator = stream.makeAsyncIterator()
            for _ in 0..<3 {
                _ = try await iterator.next()
            }
            // The consumer stops reading; wait until the server has stopped writing.
            var sent = -1
            try await waitUntil {
                let now = try await Self.stats(server, transport, key: "slow").sent
                defer { sent = now }
                if now == total { return true }
                try await Task.sleep(for: .milliseconds(200))
                return now == sent
            }

            // The engine's 1 MiB buffer, the sockets' and the server's buffers hold some tens of MiB at most.
            #expect(sent < total / 4, "the server wrote \(sent) of \(total) events while the consumer read 3")
            let event = try await iterator.next()
            #expect(event?.id == "4")
        }
    }
}
