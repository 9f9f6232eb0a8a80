import Coordination
import Foundation
import HTTPTypes
import MockBackend
import TestSupport
import Testing
import Transport

/// Batches against the mock server: a limit, a count, every outcome in order, or fail-fast.
@Suite struct RequestBatchTests {
    /// Records the handles a batch's members make, and how many it made.
    final class Made: Sendable {
        private let handles = PThreadMutex<[Int: DataRequest<String>]>([:])

        func record(_ index: Int, _ handle: DataRequest<String>) -> DataRequest<String> {
            handles.withLock { $0[index] = handle }
            return handle
        }

        var count: Int { handles.withLock { $0.count } }
        var all: [Int: DataRequest<String>] { handles.withLock { $0 } }
    }

    @Test func runsTwentyMembersThreeAtATimeAndCountsThemDone() async throws {
        try await withServerAndTransport { server, counting in
            let made = Made()
            let batch = RequestBatch.all(0..<20, maximumConcurrent: 3) { index in
                made.record(
                    index, fetch(server.url("/delay/\(100 + (index % 4) * 50)?member=\(index)"), through: counting))
            }
            let counts = LockedRecorder<CountProgress>()
            batch.observe { if case .count(let count) = $0 { counts.append(count) } }
            // Members are made only when a slot is free.
            try await waitUntil { server.receivedRequests().count == 3 }
            #expect(made.count == 3)

            let outcomes = try await batch.value
            #expect(outcomes.count == 20)
            #expect(outcomes.allSatisfy { (try? $0.get()) == "ok" })
            #expect(counting.mostInFlight == 3)
            // Every outcome is in the order of the members, whatever order they finished in.
            let served = server.receivedRequests().map(\.path)
            #expect(Set(served) == Set((0..<20).map { "/delay/\(100 + ($0 % 4) * 50)?member=\($0)" }))
            for index in 0..<20 {
                #expect(try await made.all[index]?.value == "ok")
            }
            // The count: "0 of 20" at the start, then one more done each time (the first may
            // have gone out before the observer was added).
            let completed = counts.all.map(\.completed)
            #expect(completed == Array((completed.first ?? 0)...20))
            #expect(counts.all.last == CountProgress(completed: 20, failed: 0, total: 20))
        }
    }

    @Test func keepsEveryOutcomeInOrderFailuresIncluded() async throws {
        try await withServerAndTransport { server, counting in
            let paths = ["/delay/300", "/status/500", "/delay/100", "/status/404", "/echo"]
            let batch = RequestBatch.all(paths, maximumConcurrent: 2) { path in
                fetch(server.url(path), through: counting)
            }
            let counts = LockedRecorder<CountProgress>()
            batch.observe { if case .count(let count) = $0 { counts.append(count) } }
            let outcomes = try await batch.value
            #expect(outcomes.map { (try? $0.get()) != nil } == [true, false, true, false, true])
            #expect(outcomes[1].failure as? StatusError == StatusError(status: 500))
            #expect(outcomes[3].failure as? StatusError == StatusError(status: 404))
            #expect(counts.all.last == CountProgress(completed: 5, failed: 2, total: 5))
            #expect(server.receivedRequests().count == 5)
        }
    }

    @Test(.timeLimit(.minutes(1))) func failFastCancelsTheMembersInFlightAndStartsNoOther() async throws {
        try await withServerAndTransport { server, counting in
            let made = Made()
            // The slow members answer after ten minutes: the test's time limit fails it long
            // before, should anybody wait for them.
            let paths = ["/delay/600000", "/delay/600000", "/status/503"] + Array(repeating: "/delay/600000", count: 7)
            let batch = RequestBatch.failFast(Array(paths.enumerated()), maximumConcurrent: 3) { member in
                made.record(member.offset, fetch(server.url(member.element), through: counting))
            }
            let error = await #expect(throws: StatusError.self) { try await batch.value }
            #expect(error == StatusError(status: 503), "the batch fails with the first failure itself")
            #expect(made.count == 3, "the members not started never started")
            for index in [0, 1] {
                let result = try #require(await made.all[index]?.result)
                #expect((result.failure as? TransportError)?.category == .cancelled)
            }
            try await waitUntil { counting.inFlight == 0 }
            // The two slow members may be cancelled before they reach the server; no later one
            // ever does.
            #expect(server.receivedRequests().count <= 3)
            #expect(server.receivedRequests().contains { $0.path == "/status/503" })
        }
    }

    @Test func failFastSucceedsWithEveryValueInOrder() async throws {
        try await withServerAndTransport { server, counting in
            let batch = RequestBatch.failFast(
                (0..<6).map { index in
                    { @Sendable in fetch(server.url("/echo?n=\(index)"), through: counting) }
                }, maximumConcurrent: 2)
            let values = try await batch.value
            let numbers = try values.map { value in
                let document = try JSONSerialization.jsonObject(with: Data(value.utf8)) as? [String: Any]
                return (document?["query"] as? [String: [String]])?["n"]?.first
            }
            #expect(numbers == (0..<6).map { "\($0)" })
        }
    }

    @Test func cancellingTheBatchCancelsEveryMember() async throws {
        try await withServerAndTransport { server, counting in
            let made = Made()
            let batch = RequestBatch.all(0..<6, maximumConcurrent: 3) { index in
                made.record(index, fetch(server.url("/delay/10000?member=\(index)"), through: counting))
            }
            try await waitUntil { server.receivedRequests().count == 3 }
            batch.cancel()
            let error = await #expect(throws: TransportError.self) { try await batch.value }
            #expect(error?.category == .cancelled)
            #expect(made.count == 3)
            for (_, handle) in made.all {
                #expect((await handle.result.failure as? TransportError)?.category == .cancelled)
            }
            try await waitUntil { counting.inFlight == 0 }
            #expect(server.receivedRequests().count == 3)
        }
    }

    @Test func handlesMadeWithoutStartingWaitForTheirTurn() async throws {
        try await withServerAndTransport { server, counting in
            let handles = (0..<4).map { index in
                fetch(server.url("/delay/300?member=\(index)"), through: counting, startImmediately: false)
            }
            let batch = RequestBatch.all(handles, maximumConcurrent: 2)
            try await waitUntil { server.receivedRequests().count == 2 }
            #expect(Set(server.receivedRequests().map(\.path)) == ["/delay/300?member=0", "/delay/300?member=1"])
            let outcomes = try await batch.value
            #expect(outcomes.allSatisfy { (try? $0.get()) == "ok" })
            #expect(counting.mostInFlight == 2)
            for handle in handles { #expect(try await handle.value == "ok") }
        }
    }

    @Test func cancellingABatchThatNeverStartedCancelsItsHandles() async throws {
        let handles = (0..<3).map { index in
            DataRequest<Int>(startImmediately: false) { _ in .init(value: index, response: nil) }
        }
        let batch = RequestBatch.all(handles, maximumConcurrent: 2, startImmediately: false)
        batch.cancel()
        #expect((await batch.result.failure as? TransportError)?.category == .cancelled)
        for handle in handles {
            #expect((await handle.result.failure as? TransportError)?.category == .cancelled)
        }
    }

    @Test func reloadingRunsTheBatchAgain() async throws {
        try await withServerAndTransport { server, counting in
            let batch = RequestBatch.all(0..<3, maximumConcurrent: 3) { index in
                fetch(server.url("/echo?member=\(index)"), through: counting)
            }
            _ = try await batch.value
            batch.reload()
            let outcomes = try await batch.value
            #expect(outcomes.count == 3)
            #expect(server.receivedRequests().count == 6)
        }
    }

    @Test func anEmptyBatchSucceedsWithNoOutcomes() async throws {
        let batch = RequestBatch.all(
            [@Sendable () -> DataRequest<String>](), maximumConcurrent: 3, startImmediately: false)
        let events = batch.events
        batch.start()
        let outcomes = try await batch.value
        #expect(outcomes.isEmpty)
        var counts: [CountProgress] = []
        for await event in events { if case .count(let count) = event { counts.append(count) } }
        #expect(counts == [CountProgress(completed: 0, total: 0)])
        #expect(try await RequestBatch.failFast([DataRequest<String>]()).value.isEmpty)
    }

    @Test func aLimitBelowOneFailsTheBatchAndCancelsItsHandles() async throws {
        let handle = DataRequest<String>(startImmediately: false) { _ in .init(value: "never", response: nil) }
        let batch = RequestBatch.all([handle], maximumConcurrent: 0)
        let error = await #expect(throws: CoordinationError.self) { try await batch.value }
        #expect(error?.category == .invalidLimit)
        #expect(error?.message.contains("RequestBatch was given a limit of 0") == true)
        #expect((await handle.result.failure as? TransportError)?.category == .cancelled)

        let failFast = RequestBatch.failFast(0..<3, maximumConcurrent: -1) { index in
            DataRequest<Int>(finished: .success(index))
        }
        #expect(await failFast.result.failure is CoordinationError)
    }
}
