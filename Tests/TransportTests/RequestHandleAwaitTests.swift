import Foundation
import TestSupport
import Testing
import Transport

/// Where a handle's operation runs (in the task that awaits it, or in a task of its own) and
/// what a view of a handle (`map`) shares with it.
///
/// The awaited-run tests give the handle an executor that runs nothing until the test opens
/// it, so that the run's own task cannot begin the operation before the awaiting task claims
/// it; the test opens it once the awaiting task has claimed the run (its operation has begun,
/// or it waits in the executor behind the run's task), and a task-local value that only the
/// awaiting task has proves where the operation ran; an operation that may run there makes its
/// waits cancellable by the handle (`RequestCancellation.runCancellable`). Checked to fail:
/// with `claimForAwait()` always refusing, the awaiting task waits for the outcome, nothing
/// else reaches the executor, and each test fails waiting for the claim; with a cancelled run
/// cancelling the awaiting task as it ends, `cancelStopsAnOperationRunningInTheAwaitingTask`
/// logs `awaiting task cancelled: true`; with awaited runs allowed by default, a handle made
/// without `runsInAwaitingTask` runs its operation in the awaiting task; with the view's
/// cached outcome ignored, the transform counts 4 and 6; with `ownerEnded(_:)` ignored, a view
/// nobody keeps logs `view start` on the reload; with every run launching its task as it
/// begins, the executor gets a second job and the awaited-run tests wait for one; with the
/// last handle's release launching nothing, a handle nobody awaits or keeps never runs.
@Suite struct RequestHandleAwaitTests {
    /// Set by the awaiting task, read by the operation.
    enum Marker {
        @TaskLocal static var name: String?
    }

    struct Refused: Error {}

    // MARK: - Where the operation runs

    @Test func anAwaitedHandleRunsItsOperationInTheAwaitingTask() async throws {
        let executor = HeldExecutor()
        defer { executor.open() }
        let seen = LockedRecorder<String>()
        let request = DataRequest<Int>(taskExecutor: executor, runsInAwaitingTask: true) { _ in
            seen.append(Marker.name ?? "a task of its own")
            return .init(value: 7, response: nil)
        }
        let waiter = Task { try await Marker.$name.withValue("the awaiting task") { try await request.value } }
        // Nothing asked for the outcome before the await: no task of the run's own was made,
        // and the awaiting task waits in the closed executor to run the operation.
        try await waitUntil { executor.waiting == 1 }
        executor.open()
        #expect(try await waiter.value == 7)
        try await waitUntil { executor.waiting == 0 }
        #expect(seen.all == ["the awaiting task"])
    }

    @Test func aHandleAwaitedBeforeAnythingAsksForItsOutcomeMakesNoTask() async throws {
        let executor = HeldExecutor()
        defer { executor.open() }
        let request = DataRequest<Int>(taskExecutor: executor, runsInAwaitingTask: true) { _ in
            .init(value: 8, response: nil)
        }
        // The awaiting task prefers the executor already: its first job is the one job it
        // enqueues, and a task of the run's own would be a second.
        let waiter = Task(executorPreference: executor) { try await request.value }
        try await waitUntil { executor.waiting == 1 }
        executor.open()
        #expect(try await waiter.value == 8)
        try await waitUntil { executor.waiting == 0 }
        #expect(executor.enqueued == 1)
    }

    @Test func aHandleNobodyAwaitsOrKeepsStillRuns() async throws {
        let values = LockedRecorder<Int>()
        do {
            // Fire and forget: no await, no handler, the handle let go at once.
            _ = DataRequest<Int>(runsInAwaitingTask: true) { _ in
                values.append(9)
                return .init(value: 9, response: nil)
            }
        }
        try await waitUntil { values.all == [9] }
    }

    @Test func aHandleNobodyAwaitsRunsInATaskOfItsOwn() async throws {
        let seen = LockedRecorder<String>()
        let values = LockedRecorder<Int>()
        let request = DataRequest<Int> { _ in
            seen.append(Marker.name ?? "a task of its own")
            return .init(value: 3, response: nil)
        }
        Marker.$name.withValue("the caller") {
            request.success { values.append($0) }
        }
        try await waitUntil { values.all == [3] }
        #expect(seen.all == ["a task of its own"])
    }

    @Test func anAwaitedHandleWhoseOperationMayNotRunThereRunsInATaskOfItsOwn() async throws {
        let seen = LockedRecorder<String>()
        let request = DataRequest<Int> { _ in
            seen.append(Marker.name ?? "a task of its own")
            return .init(value: 4, response: nil)
        }
        let value = try await Marker.$name.withValue("the awaiting task") { try await request.value }
        #expect(value == 4)
        #expect(seen.all == ["a task of its own"])
    }

    @Test func anAwaitAfterHandlersRunsTheOperationAndReturnsAfterTheHandlers() async throws {
        let executor = HeldExecutor()
        defer { executor.open() }
        let log = LockedRecorder<String>()
        let request = DataRequest<Int>(taskExecutor: executor, runsInAwaitingTask: true) { _ in
            log.append("operation in \(Marker.name ?? "a task of its own")")
            return .init(value: 5, response: nil)
        }
        request.success { log.append("success \($0)") }.completion { _ in log.append("completion") }
        let waiter = Task {
            let value = try await Marker.$name.withValue("the awaiting task") { try await request.value }
            log.append("returned \(value)")
        }
        try await waitUntil { !log.all.isEmpty || executor.waiting == 2 }
        executor.open()
        try await waiter.value
        #expect(log.all == ["operation in the awaiting task", "success 5", "completion", "returned 5"])
    }

    @Test func cancellingTheAwaitingTaskThatRunsTheOperationCancelsTheRun() async throws {
        let executor = HeldExecutor()
        defer { executor.open() }
        let log = LockedRecorder<String>()
        let started = AsyncStream<Void>.makeStream()
        let request = Self.sleepingRequest(on: executor, log: log, started: started.continuation)
        request.onCancel { log.append("cancel hook") }
        let waiter = Task { try await Marker.$name.withValue("the awaiting task") { try await request.value } }
        try await waitUntil { executor.waiting == 1 }
        executor.open()
        for await _ in started.stream { break }
        waiter.cancel()
        let error = try #require(await waiter.result.failure as? TransportError)
        #expect(error.category == .cancelled)
        #expect((await request.result.failure as? TransportError)?.category == .cancelled)
        // The hook and the operation's own cancellation run on two threads, in either order.
        #expect(log.all.first == "operation in the awaiting task")
        #expect(log.all.sorted() == ["cancel hook", "operation cancelled", "operation in the awaiting task"])
    }

    @Test func cancelStopsAnOperationRunningInTheAwaitingTask() async throws {
        let executor = HeldExecutor()
        defer { executor.open() }
        let log = LockedRecorder<String>()
        let started = AsyncStream<Void>.makeStream()
        let request = Self.sleepingRequest(on: executor, log: log, started: started.continuation)
        request.onCancel { log.append("cancel hook") }
        let waiter = Task {
            let result = await Marker.$name.withValue("the awaiting task") { await request.result }
            // The handle's run ended through its cancellation; the task goes on uncancelled.
            log.append("awaiting task cancelled: \(Task.isCancelled)")
            return result
        }
        try await waitUntil { executor.waiting == 1 }
        executor.open()
        for await _ in started.stream { break }
        request.cancel()
        let error = try #require(await waiter.value.failure as? TransportError)
        #expect(error.category == .cancelled)
        #expect(
            log.all == [
                "operation in the awaiting task", "cancel hook", "operation cancelled",
                "awaiting task cancelled: false",
            ])
    }

    // MARK: - Views

    @Test func aViewTransformsEachOutcomeOnceForAllItsHandlersAndAwaits() async throws {
        let transforms = PThreadMutex(0)
        let log = LockedRecorder<String>()
        let runs = PThreadMutex(0)
        let source = DataRequest<Int>(startImmediately: false) { _ in
            let run = runs.withLock { runs in
                runs += 1
                return runs
            }
            try await Task.sleep(for: .milliseconds(5))
            return .init(value: run, response: nil)
        }
        let view = source.map { value, _ in
            transforms.withLock { $0 += 1 }
            return value * 10
        }
        view.success { log.append("first \($0)") }.completion { _ in log.append("second") }
        view.success { log.append("third \($0)") }
        source.start()
        async let first = view.value
        async let second = view.value
        #expect(try await first == 10)
        #expect(try await second == 10)
        #expect(try await view.result.get() == 10)
        view.success { log.append("late \($0)") }
        #expect(transforms.withLock { $0 } == 1)
        #expect(log.all == ["first 10", "second", "third 10", "late 10"])

        view.reload()
        #expect(try await view.value == 20)
        #expect(try await source.value == 2)
        #expect(transforms.withLock { $0 } == 2)
        #expect(log.all == ["first 10", "second", "third 10", "late 10", "first 20", "second", "third 20", "late 20"])
    }

    @Test func reloadingThroughAViewOfAViewRunsTheRequestAgainForEveryView() async throws {
        let runs = PThreadMutex(0)
        let source = DataRequest<Int> { _ in
            let run = runs.withLock { runs in
                runs += 1
                return runs
            }
            if run == 1 { throw Refused() }
            return .init(value: run, response: nil)
        }
        let tens = source.map { value, _ in value * 10 }
        let text = tens.map { value, _ in "#\(value)" }
        let log = LockedRecorder<String>()
        text.completion { log.append("text \((try? $0.get()) ?? "failed")") }
        tens.completion { log.append("tens \((try? $0.get()).map(String.init) ?? "failed")") }
        #expect(await text.result.failure is Refused)
        text.reload()
        #expect(try await text.value == "#20")
        #expect(try await tens.value == 20)
        #expect(runs.withLock { $0 } == 2)
        #expect(log.all == ["text failed", "tens failed", "text #20", "tens 20"])
    }

    @Test func whatAViewNobodyKeepsRegisteredRunsForItsRunOnly() async throws {
        let log = LockedRecorder<String>()
        let gate = RequestHandleReloadTests.Gate()
        let source = DataRequest<Int>(startImmediately: false) { _ in
            try await gate.pass()
            return .init(value: 1, response: nil)
        }
        do {
            // Gone before the start: it never runs.
            let early = source.map { value, _ in value }
            early.onStart { log.append("early start") }
            early.completion { _ in log.append("early end") }
        }
        source.start()
        do {
            // Made during the run and let go at once: it runs for this run only.
            let view = source.map { value, _ in value }
            view.onStart { log.append("view start") }
            view.completion { _ in log.append("view end") }
        }
        let kept = source.map { value, _ in value }
        kept.onStart { log.append("kept start") }
        kept.completion { _ in log.append("kept end") }
        gate.open()
        _ = try await kept.value
        #expect(log.all == ["view start", "kept start", "view end", "kept end"])
        source.reload()
        gate.open()
        _ = try await kept.value
        #expect(log.all == ["view start", "kept start", "view end", "kept end", "kept start", "kept end"])
    }

    /// A handle that may run in its awaiting task, whose operation logs where it runs, says it
    /// started, then sleeps for a minute through `RequestCancellation.runCancellable`, logging
    /// its cancellation.
    private static func sleepingRequest(
        on executor: HeldExecutor, log: LockedRecorder<String>, started: AsyncStream<Void>.Continuation
    ) -> DataRequest<Int> {
        DataRequest<Int>(taskExecutor: executor, runsInAwaitingTask: true) { _ in
            log.append("operation in \(Marker.name ?? "a task of its own")")
            started.yield()
            do {
                try await RequestCancellation.runCancellable { try await Task.sleep(for: .seconds(60)) }
            } catch {
                log.append("operation cancelled")
                throw error
            }
            return .init(value: 1, response: nil)
        }
    }
}
