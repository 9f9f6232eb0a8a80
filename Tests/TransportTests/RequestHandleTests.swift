import Foundation
import HTTPTypes
import Synchronization
import TestSupport
import Testing
import Transport

@Suite struct RequestHandleTests {
    static func handle(
        _ value: Int, after delay: Duration = .milliseconds(20), startImmediately: Bool = true
    ) -> DataRequest<Int> {
        DataRequest(startImmediately: startImmediately) { _ in
            try await Task.sleep(for: delay)
            return .init(value: value, response: nil)
        }
    }

    /// A handle whose operation says when it has started, then sleeps for `delay` and returns 1.
    static func signallingHandle(after delay: Duration) -> (DataRequest<Int>, AsyncStream<Void>) {
        let started = AsyncStream<Void>.makeStream()
        let request = DataRequest<Int> { _ in
            started.continuation.yield()
            try await Task.sleep(for: delay)
            return .init(value: 1, response: nil)
        }
        return (request, started.stream)
    }

    @Test func runsEveryHandlerOnceInTheOrderAdded() async throws {
        let log = LockedRecorder<String>()
        let request = Self.handle(7)
            .success { log.append("success1 \($0)") }
            .failure { log.append("failure \($0.message)") }
            .completion { _ in log.append("completion") }
            .success { log.append("success2 \($0)") }
        #expect(try await request.value == 7)
        request.success { log.append("late \($0)") }
        #expect(log.all == ["success1 7", "completion", "success2 7", "late 7"])
    }

    @Test func deliversFailuresWithAMessage() async throws {
        let log = LockedRecorder<String>()
        let request = DataRequest<Int> { _ in
            throw TransportError(.connectionRefused, message: "Nothing listens on 127.0.0.1:1.")
        }
        request.failure { log.append($0.message) }.success { _ in log.append("success") }
        let result = await request.result
        #expect(throws: TransportError.self) { try result.get() }
        #expect(log.all == ["Nothing listens on 127.0.0.1:1."])
    }

    @Test func waitsForStartWhenDeferred() async throws {
        let started = LockedRecorder<String>()
        let request = DataRequest<Int>(startImmediately: false) { _ in
            started.append("started")
            return .init(value: 1, response: nil)
        }
        try await Task.sleep(for: .milliseconds(50))
        #expect(started.all.isEmpty)
        request.start()
        #expect(try await request.value == 1)
        #expect(started.all == ["started"])
    }

    @Test func cancellingBeforeStartFailsAtOnce() async throws {
        let request = Self.handle(1, startImmediately: false)
        request.cancel()
        let error = try #require(await request.result.failure as? TransportError)
        #expect(error.category == .cancelled)
    }

    @Test func cancellingWhileRunningStopsTheOperation() async throws {
        // An operation that says how its wait ended: slept through, or cancelled.
        let ended = LockedRecorder<String>()
        let started = AsyncStream<Void>.makeStream()
        let request = DataRequest<Int> { _ in
            started.continuation.yield()
            do {
                try await Task.sleep(for: .seconds(60))
                ended.append("slept")
            } catch {
                ended.append("cancelled")
                throw error
            }
            return .init(value: 1, response: nil)
        }
        for await _ in started.stream { break }

        request.cancel()

        let error = try #require(await request.result.failure as? TransportError)
        #expect(error.category == .cancelled)
        // The operation itself was stopped, not left to sleep on behind a failed handle.
        try await waitUntil { !ended.all.isEmpty }
        #expect(ended.all == ["cancelled"])
    }

    @Test func cancellingTheAwaitingTaskCancelsTheRequest() async throws {
        let (request, started) = Self.signallingHandle(after: .seconds(10))
        let waiter = Task { try await request.value }
        for await _ in started { break }
        waiter.cancel()
        _ = await waiter.result
        #expect(await request.result.failure != nil)
    }

    @Test func mapsValuesAndForwardsCancellation() async throws {
        let source = Self.handle(20)
        let doubled = source.map { value, _ in value * 2 }
        #expect(try await doubled.value == 40)

        let slow = Self.handle(1, after: .seconds(10))
        let mapped = slow.map { value, _ in value + 1 }
        mapped.cancel()
        #expect(await slow.result.failure != nil)
    }

    @Test func startingEitherHandleOfADeferredPairStartsBoth() async throws {
        let source = Self.handle(3, startImmediately: false)
        let derived = source.map { value, _ in value * 3 }
        source.start()
        #expect(try await derived.value == 9)

        let other = Self.handle(4, startImmediately: false)
        let otherDerived = other.map { value, _ in value + 1 }
        otherDerived.start()
        #expect(try await other.value == 4)
        #expect(try await otherDerived.value == 5)
    }

    @Test func runsTheHandlersOfADerivedHandleNobodyKeeps() async throws {
        let log = LockedRecorder<String>()
        let source = Self.handle(2)
        _ = source.map { value, _ in value * 10 }.success { log.append("derived \($0)") }
        _ = await source.result
        #expect(log.all == ["derived 20"])
    }

    @Test func freesADeferredPairNobodyStarts() async throws {
        weak var weakSource: DataRequest<Int>?
        weak var weakDerived: DataRequest<Int>?
        do {
            let source = Self.handle(1, startImmediately: false)
            let derived = source.map { value, _ in value }.map { value, _ in value }
            weakSource = source
            weakDerived = derived
        }
        #expect(weakSource == nil)
        #expect(weakDerived == nil)
    }

    @Test func derivedHandlesFailWithTheSourcesErrorAndTheTransformsError() async throws {
        let failing = DataRequest<Int> { _ in throw TransportError(.connectionRefused, message: "refused") }
        let derived = failing.map { value, _ in value }
        let result = await derived.result
        #expect((result.failure as? TransportError)?.category == .connectionRefused)

        struct Invalid: Error {}
        let transformed = Self.handle(1).map { (_, _) throws -> Int in throw Invalid() }
        #expect(await transformed.result.failure is Invalid)
    }

    @Test func forwardsTheSourcesEventsToSubscribersOfTheDerivedHandle() async throws {
        let gate = AsyncStream<Void>.makeStream()
        let source = DataRequest<Int> { events in
            for await _ in gate.stream { break }
            events.send(.retry(RetryEvent(attempt: 2, reason: "503")))
            return .init(value: 1, response: nil)
        }
        let derived = source.map { value, _ in value }
        let events = derived.events
        gate.continuation.yield()
        var seen: [String] = []
        for await event in events {
            switch event {
            case .retry(let retry): seen.append("retry \(retry.attempt)")
            case .completed(let succeeded): seen.append("completed \(succeeded)")
            case .transfer: seen.append("transfer")
            case .count(let count): seen.append("count \(count.completed)/\(count.total)")
            }
        }
        #expect(seen == ["retry 2", "completed true"])
    }

    @Test func publishesEventsAndEndsWithCompletion() async throws {
        // The operation sends its event only once the test has subscribed, so the event cannot
        // go out before there is anyone to see it.
        let gate = AsyncStream<Void>.makeStream()
        let request = DataRequest<Int> { events in
            for await _ in gate.stream { break }
            events.send(.retry(RetryEvent(attempt: 2, reason: "503")))
            return .init(value: 1, response: nil)
        }
        let events = request.events
        gate.continuation.yield()
        var seen: [String] = []
        for await event in events {
            switch event {
            case .retry(let retry): seen.append("retry \(retry.attempt)")
            case .completed(let succeeded): seen.append("completed \(succeeded)")
            case .transfer: seen.append("transfer")
            case .count(let count): seen.append("count \(count.completed)/\(count.total)")
            }
        }
        #expect(seen == ["retry 2", "completed true"])
        var late: [String] = []
        for await event in request.events { if case .completed = event { late.append("completed") } }
        #expect(late == ["completed"])
    }

    @Test func reportsTheResponseBehindTheValue() async throws {
        let request = DataRequest<String> { _ in
            .init(value: "ok", response: .init(head: HTTPResponse(status: .created), url: "http://x/", metrics: nil))
        }
        #expect(await request.response?.head.status == .created)
    }
}
