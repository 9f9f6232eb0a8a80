import Foundation
import HTTPTypes
import TestSupport
import Testing
import Transport

@Suite struct RequestHandleReloadTests {
    /// Counts the runs of an operation, numbered from 1.
    final class Runs: Sendable {
        private let count = PThreadMutex(0)

        /// How many runs have started.
        var started: Int { count.withLock { $0 } }

        /// Numbers a run that starts.
        func next() -> Int {
            count.withLock { count in
                count += 1
                return count
            }
        }
    }

    /// A gate that holds each run until the test lets it through. (Not an `AsyncStream`: a
    /// cancelled consumer would end it, and the runs after would no longer wait.)
    final class Gate: Sendable {
        private let permits = PThreadMutex(0)

        /// Lets one run through.
        func open() { permits.withLock { $0 += 1 } }

        /// Waits until a run is let through; throws when the run is cancelled.
        func pass() async throws {
            while true {
                let passed = permits.withLock { permits in
                    guard permits > 0 else { return false }
                    permits -= 1
                    return true
                }
                if passed { return }
                try await Task.sleep(for: .milliseconds(1))
            }
        }
    }

    struct Refused: Error {}

    /// A handle whose run `n` waits for `gate` (when there is one, or `delay`), reports a retry
    /// event with attempt `n`, then fails with ``Refused`` when `failing` holds `n`, and
    /// returns `n` (with a response of status 200 + `n`) otherwise.
    static func scripted(
        failing: Set<Int> = [], gate: Gate? = nil, delay: Duration = .milliseconds(5), startImmediately: Bool = true
    ) -> (DataRequest<Int>, Runs) {
        let runs = Runs()
        let request = DataRequest<Int>(startImmediately: startImmediately) { events in
            let run = runs.next()
            if let gate { try await gate.pass() } else { try await Task.sleep(for: delay) }
            events.send(.retry(RetryEvent(attempt: run, reason: "run \(run)")))
            if failing.contains(run) { throw Refused() }
            let response = ResponseInfo(
                head: HTTPResponse(status: .init(code: 200 + run)), url: "http://x/", metrics: nil)
            return .init(value: run, response: response)
        }
        return (request, runs)
    }

    /// Records a handle's handlers as `success n`, `failure` and `completion ok|failed`.
    static func record<Value: Sendable>(_ request: RequestHandle<Value>, into log: LockedRecorder<String>) {
        request
            .success { log.append("success \($0)") }
            .failure { _ in log.append("failure") }
            .completion { log.append("completion \($0.failure == nil ? "ok" : "failed")") }
    }

    // MARK: - Runs

    @Test func reloadRunsAFailedOperationAgainAndEveryHandlerOncePerRun() async throws {
        let log = LockedRecorder<String>()
        let (request, runs) = Self.scripted(failing: [1])
        Self.record(request, into: log)
        #expect(await request.result.failure is Refused)
        #expect(log.all == ["failure", "completion failed"])

        request.reload()
        #expect(try await request.value == 2)
        #expect(runs.started == 2)
        #expect(log.all == ["failure", "completion failed", "success 2", "completion ok"])
    }

    @Test func reloadRunsASucceededOperationAgain() async throws {
        let log = LockedRecorder<String>()
        let (request, runs) = Self.scripted(failing: [2])
        Self.record(request, into: log)
        #expect(try await request.value == 1)
        request.reload()
        #expect(await request.result.failure is Refused)
        request.reload()
        #expect(try await request.value == 3)
        #expect(runs.started == 3)
        #expect(
            log.all == [
                "success 1", "completion ok", "failure", "completion failed", "success 3", "completion ok",
            ])
    }

    @Test func aHandlerAddedWhileFinishedRunsAtOnceAndForLaterRuns() async throws {
        let log = LockedRecorder<String>()
        let (request, _) = Self.scripted()
        #expect(try await request.value == 1)
        request.success { log.append("late \($0)") }
        #expect(log.all == ["late 1"])
        request.reload()
        #expect(try await request.value == 2)
        #expect(log.all == ["late 1", "late 2"])
    }

    @Test func aHandlerAddedDuringARunRunsWhenThatRunEnds() async throws {
        let log = LockedRecorder<String>()
        let gate = Gate()
        let (request, runs) = Self.scripted(gate: gate)
        gate.open()
        #expect(try await request.value == 1)
        request.reload()
        try await waitUntil { runs.started == 2 }
        request.success { log.append("added during run \($0)") }
        #expect(log.all.isEmpty)
        gate.open()
        #expect(try await request.value == 2)
        #expect(log.all == ["added during run 2"])
    }

    @Test func handlersRunInTheOrderAddedOneAtATime() async throws {
        let running = PThreadMutex(0)
        let overlapped = PThreadMutex(false)
        let log = LockedRecorder<Int>()
        let (request, _) = Self.scripted()
        for index in 0..<8 {
            request.completion { _ in
                let now = running.withLock { count in
                    count += 1
                    return count
                }
                if now > 1 { overlapped.withLock { $0 = true } }
                log.append(index)
                running.withLock { $0 -= 1 }
            }
        }
        _ = await request.result
        request.reload()
        _ = await request.result
        #expect(log.all == Array(0..<8) + Array(0..<8))
        #expect(!overlapped.withLock { $0 })
    }

    // MARK: - Awaiting

    @Test func awaitingReturnsTheCurrentOutcomeOrWaitsForTheRunInProgress() async throws {
        let gate = Gate()
        let (request, _) = Self.scripted(failing: [1], gate: gate)
        gate.open()
        #expect(await request.result.failure is Refused)
        // Finished: the current outcome, at once and as often as asked.
        #expect(await request.result.failure is Refused)
        #expect(await request.response == nil)

        request.reload()
        let waiter = Task { try await request.value }
        gate.open()
        #expect(try await waiter.value == 2)
        #expect(try await request.value == 2)
        #expect(await request.response?.head.status.code == 202)
    }

    @Test func anAwaitDoesNotStayRegisteredForLaterRuns() async throws {
        let log = LockedRecorder<String>()
        let (request, _) = Self.scripted()
        // Were an await left registered, the next run would resume its continuation a
        // second time; each await gets its own run's outcome.
        for run in 1...5 {
            #expect(try await request.value == run)
            request.completion { _ in log.append("added after run \(run)") }
            request.reload()
        }
        _ = try await request.value
        #expect(log.all.filter { $0 == "added after run 1" }.count == 6)
        #expect(log.all.filter { $0 == "added after run 5" }.count == 2)
    }

    @Test func cancellingTheAwaitingTaskCancelsTheRunInProgress() async throws {
        let gate = Gate()
        let (request, runs) = Self.scripted(gate: gate)
        gate.open()
        #expect(try await request.value == 1)
        request.reload()
        try await waitUntil { runs.started == 2 }
        let waiter = Task { try await request.value }
        // Lets the waiter register before it is cancelled; a cancel before that still
        // cancels the run, through the cancellation handler.
        try await Task.sleep(for: .milliseconds(20))
        waiter.cancel()
        let error = try #require(await waiter.result.failure as? TransportError)
        #expect(error.category == .cancelled)
        #expect((await request.result.failure as? TransportError)?.category == .cancelled)
    }

    // MARK: - Hooks and events

    @Test func startHooksRunForEveryRun() async throws {
        let log = LockedRecorder<String>()
        let (request, _) = Self.scripted(startImmediately: false)
        request.onStart { log.append("before start") }
        request.start()
        request.onStart { log.append("after start") }
        #expect(log.all == ["before start", "after start"])
        _ = try await request.value
        request.reload()
        _ = try await request.value
        #expect(log.all == ["before start", "after start", "before start", "after start"])
    }

    @Test func observersReceiveTheEventsOfLaterRuns() async throws {
        let gate = Gate()
        let seen = LockedRecorder<Int>()
        let lateSeen = LockedRecorder<Int>()
        let (request, _) = Self.scripted(gate: gate)
        request.observe { event in if case .retry(let retry) = event { seen.append(retry.attempt) } }
        gate.open()
        _ = try await request.value
        // Registered while finished: it gets the next run's events.
        request.observe { event in if case .retry(let retry) = event { lateSeen.append(retry.attempt) } }
        request.reload()
        gate.open()
        _ = try await request.value
        #expect(seen.all == [1, 2])
        #expect(lateSeen.all == [2])
    }

    @Test func aSubscriptionToEventsEndsWithItsRunsCompletion() async throws {
        let gate = Gate()
        let (request, _) = Self.scripted(gate: gate)
        gate.open()
        _ = try await request.value
        var finishedSeen: [String] = []
        for await event in request.events { finishedSeen.append(Self.describe(event)) }
        #expect(finishedSeen == ["completed true"])

        request.reload()
        let events = request.events
        gate.open()
        var seen: [String] = []
        for await event in events { seen.append(Self.describe(event)) }
        #expect(seen == ["retry 2", "completed true"])
    }

    @Test func cancelHooksRunOnEachCancelledRun() async throws {
        let gate = Gate()
        let cancels = LockedRecorder<String>()
        let (request, runs) = Self.scripted(gate: gate)
        request.onCancel { cancels.append("cancelled") }
        request.cancel()
        request.cancel()
        #expect((await request.result.failure as? TransportError)?.category == .cancelled)
        #expect(cancels.all == ["cancelled"])
        request.cancel()
        #expect(cancels.all == ["cancelled"])

        request.reload()
        try await waitUntil { runs.started == 2 }
        request.cancel()
        #expect((await request.result.failure as? TransportError)?.category == .cancelled)
        #expect(cancels.all == ["cancelled", "cancelled"])
    }

    // MARK: - Cancelling

    @Test func cancellingAReloadFailsThatRunAndTheHandleReloadsAgain() async throws {
        let gate = Gate()
        let log = LockedRecorder<String>()
        let (request, runs) = Self.scripted(gate: gate)
        Self.record(request, into: log)
        gate.open()
        #expect(try await request.value == 1)

        request.reload()
        try await waitUntil { runs.started == 2 }
        request.cancel()
        // The gate stays closed, so only the cancel can end the second run.
        let error = try #require(await request.result.failure as? TransportError)
        #expect(error.category == .cancelled)
        #expect(await request.response == nil)

        request.reload()
        gate.open()
        #expect(try await request.value == 3)
        #expect(
            log.all == [
                "success 1", "completion ok", "failure", "completion failed", "success 3", "completion ok",
            ])
    }

    @Test func reloadingARunningHandleDoesNothing() async throws {
        let gate = Gate()
        let log = LockedRecorder<String>()
        let (request, runs) = Self.scripted(gate: gate)
        Self.record(request, into: log)
        try await waitUntil { runs.started == 1 }
        request.reload()
        request.reload()
        gate.open()
        #expect(try await request.value == 1)
        try await Task.sleep(for: .milliseconds(20))
        #expect(runs.started == 1)
        #expect(log.all == ["success 1", "completion ok"])
    }

    @Test func reloadingAFinishedHandleWithoutAnOperationDoesNothing() async throws {
        let log = LockedRecorder<String>()
        let starts = LockedRecorder<String>()
        let request = DataRequest<Int>(finished: .success(4))
        Self.record(request, into: log)
        request.onStart { starts.append("start") }
        request.reload()
        #expect(try await request.value == 4)
        #expect(log.all == ["success 4", "completion ok"])
        #expect(starts.all == ["start"])
    }

    @Test func reloadingADeferredHandleStartsIt() async throws {
        let log = LockedRecorder<String>()
        let (request, runs) = Self.scripted(startImmediately: false)
        Self.record(request, into: log)
        try await Task.sleep(for: .milliseconds(20))
        #expect(runs.started == 0)
        request.reload()
        #expect(try await request.value == 1)
        #expect(runs.started == 1)
        #expect(log.all == ["success 1", "completion ok"])
    }

    @Test func theResponseIsTheLatestRuns() async throws {
        let (request, _) = Self.scripted(failing: [2])
        #expect(await request.response?.head.status.code == 201)
        request.reload()
        #expect(await request.response == nil)
        request.reload()
        #expect(await request.response?.head.status.code == 203)
    }

    /// A handler that reloads its handle (a "try again" policy): the new run starts after
    /// every handler has had the outcome before, so feedback taken down by a later handler
    /// is put back up by the new run rather than before it.
    @Test func aHandlerCanReloadItsHandle() async throws {
        let log = LockedRecorder<String>()
        let (request, runs) = Self.scripted(failing: [1], startImmediately: false)
        request.onStart { log.append("begin") }
        request.failure { [weak request] _ in request?.reload() }
        request.completion { log.append("end \($0.failure == nil ? "ok" : "failed")") }
        request.start()
        try await waitUntil { log.all.count == 4 }
        #expect(log.all == ["begin", "end failed", "begin", "end ok"])
        #expect(runs.started == 2)
        #expect(try await request.value == 2)
    }

    // MARK: - Derived handles

    @Test func aDerivedHandleRunsAgainWhenItsSourceReloads() async throws {
        let log = LockedRecorder<String>()
        let starts = LockedRecorder<String>()
        let transforms = LockedRecorder<Int>()
        let (source, _) = Self.scripted(failing: [1], startImmediately: false)
        let derived = source.map { value, _ in
            transforms.append(value)
            return value * 10
        }
        derived.onStart { starts.append("derived start") }
        Self.record(derived, into: log)
        source.start()
        #expect(await derived.result.failure is Refused)
        #expect(log.all == ["failure", "completion failed"])

        source.reload()
        // The derived handle follows the new run at once: awaiting it waits for that run.
        #expect(try await derived.value == 20)
        #expect(transforms.all == [2])
        #expect(starts.all == ["derived start", "derived start"])
        #expect(log.all == ["failure", "completion failed", "success 20", "completion ok"])
    }

    @Test func reloadingADerivedHandleReloadsItsSourceThroughTwoMaps() async throws {
        let sourceLog = LockedRecorder<String>()
        let log = LockedRecorder<String>()
        let (source, runs) = Self.scripted(failing: [1])
        let tens = source.map { value, _ in value * 10 }
        let text = tens.map { value, _ in "#\(value)" }
        Self.record(source, into: sourceLog)
        Self.record(text, into: log)
        #expect(await text.result.failure is Refused)

        text.reload()
        #expect(try await text.value == "#20")
        #expect(try await tens.value == 20)
        #expect(try await source.value == 2)
        #expect(runs.started == 2)
        #expect(sourceLog.all == ["failure", "completion failed", "success 2", "completion ok"])
        #expect(log.all == ["failure", "completion failed", "success #20", "completion ok"])

        tens.reload()
        #expect(try await text.value == "#30")
        #expect(runs.started == 3)
    }

    @Test func cancellingADerivedHandleDuringAReloadCancelsTheSourcesRun() async throws {
        let gate = Gate()
        let (source, runs) = Self.scripted(gate: gate)
        let derived = source.map { value, _ in value + 100 }
        gate.open()
        #expect(try await derived.value == 101)

        derived.reload()
        try await waitUntil { runs.started == 2 }
        derived.cancel()
        #expect((await derived.result.failure as? TransportError)?.category == .cancelled)
        #expect((await source.result.failure as? TransportError)?.category == .cancelled)

        derived.reload()
        gate.open()
        #expect(try await derived.value == 103)
    }

    /// Kept only by its source, strongly during a run: a derived handle nobody keeps still
    /// finishes the run it was made in, and is let go afterwards rather than kept forever.
    @Test func aDerivedHandleNobodyKeepsFinishesItsRunAndIsLetGo() async throws {
        let gate = Gate()
        let log = LockedRecorder<String>()
        let (source, runs) = Self.scripted(gate: gate)
        try await waitUntil { runs.started == 1 }
        _ = source.map { value, _ in value * 10 }.success { log.append("derived \($0)") }
        let kept = source.map { value, _ in value * 100 }.success { log.append("kept \($0)") }
        gate.open()
        _ = try await source.value
        #expect(log.all == ["derived 10", "kept 100"])
        source.reload()
        gate.open()
        #expect(try await kept.value == 200)
        #expect(log.all == ["derived 10", "kept 100", "kept 200"])
    }

    @Test func aDerivedHandleReceivesTheEventsOfItsSourcesLaterRuns() async throws {
        let gate = Gate()
        let seen = LockedRecorder<Int>()
        let (source, _) = Self.scripted(gate: gate)
        let derived = source.map { value, _ in value }
        derived.observe { event in if case .retry(let retry) = event { seen.append(retry.attempt) } }
        gate.open()
        _ = try await derived.value
        derived.reload()
        gate.open()
        _ = try await derived.value
        #expect(seen.all == [1, 2])
    }

    /// A handler of the source that reloads it before the derived handle has had the outcome:
    /// the derived handle still gets each outcome once, in order.
    @Test func aReloadFromASourceHandlerReachesTheDerivedHandleInOrder() async throws {
        let log = LockedRecorder<String>()
        let (source, runs) = Self.scripted(failing: [1], startImmediately: false)
        source.failure { [weak source] _ in source?.reload() }
        let derived = source.map { value, _ in value * 10 }
        derived.onStart { log.append("derived start") }
        derived.completion { log.append("derived \((try? $0.get()).map(String.init) ?? "failed")") }
        source.start()
        try await waitUntil { log.all.count == 4 }
        #expect(log.all == ["derived start", "derived failed", "derived start", "derived 20"])
        #expect(runs.started == 2)
        #expect(try await derived.value == 20)
    }

    // MARK: - Races

    @Test(.timeLimit(.minutes(1)))
    func reloadRacingCancelFinishAndRegistrationStaysConsistent() async throws {
        for _ in 0..<50 {
            let (request, runs) = Self.scripted(delay: .microseconds(50))
            let counted = PThreadMutex(0)
            let derivedCounted = PThreadMutex(0)
            request.completion { _ in counted.withLock { $0 += 1 } }
            let derived = request.map { value, _ in value }
            derived.completion { _ in derivedCounted.withLock { $0 += 1 } }
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        for step in 0..<20 {
                            switch (worker + step) % 4 {
                            case 0: request.reload()
                            case 1: request.cancel()
                            case 2: derived.reload()
                            default: request.completion { _ in }
                            }
                            await Task.yield()
                        }
                    }
                }
            }
            _ = await request.result
            _ = await derived.result
            // Every run ended once, and the first handlers ran once for each.
            #expect(counted.withLock { $0 } == runs.started)
            #expect(derivedCounted.withLock { $0 } == runs.started)
        }
    }

    /// Handles derived while their source reloads, from many tasks at once: each gets exactly
    /// the outcome of one run, and none waits for a run that never comes.
    @Test(.timeLimit(.minutes(1)))
    func mappingWhileReloadingCountsEveryRunOnce() async throws {
        for _ in 0..<50 {
            let (request, runs) = Self.scripted(delay: .microseconds(50))
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        for _ in 0..<10 {
                            if worker.isMultiple(of: 2) {
                                request.reload()
                                await Task.yield()
                            } else {
                                let derived = request.map { value, _ in value }
                                let seen = PThreadMutex(0)
                                derived.completion { _ in seen.withLock { $0 += 1 } }
                                let value = try? await derived.value
                                #expect(value.map { (1...runs.started).contains($0) } ?? true)
                                #expect(seen.withLock { $0 } >= 1)
                            }
                        }
                    }
                }
            }
            _ = await request.result
        }
    }

    static func describe(_ event: RequestEvent) -> String {
        switch event {
        case .retry(let retry): "retry \(retry.attempt)"
        case .completed(let succeeded): "completed \(succeeded)"
        case .transfer: "transfer"
        case .count(let count): "count \(count.completed)/\(count.total)"
        }
    }
}
