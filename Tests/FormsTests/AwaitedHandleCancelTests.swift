import Downloads
import Forms
import Foundation
import HTTPTypes
import MockBackend
import Retry
import ServerTestSupport
import TestSupport
import Testing
import Transport
import TransportCurl

/// Cancelling a client's handle whose operation runs in the task that awaits it: the handle's
/// run ends (its transfer, its retry wait) and the awaiting task goes on uncancelled. Against
/// the mock server on loopback, through the engine.
///
/// Each handle's own task prefers a ``HeldExecutor``, which runs nothing until the test opens
/// it once the awaiting task has claimed the run; a plugin records a task-local value that only
/// the awaiting task has, so each test knows the operation ran there. A run the cancel does not
/// reach still ends, later (the stall timeout ends a held transfer after 30 s, and the engine
/// refuses the attempt after a 50 s retry wait), so each test waits 10 s at most for the end.
/// Checked to fail: with the engine's `data(for:)` registering its cancel with the task alone
/// (`withTaskCancellationHandler`), the transfer and view tests wait in vain; with
/// `FileDownload.run()` doing the same, the download test does (the download ends, whole,
/// after 16 s); with the retry
/// loop sleeping in the calling task (no `runCancellable`), the retry test does; with a cancelled run cancelling the awaiting task as it ends (what the handle did
/// before), the awaiting task reads `Task.isCancelled == true` and its next request fails as
/// cancelled; with the awaiting task's cancellation reaching neither the handle nor the
/// transfer, the last test waits in vain.
@Suite struct AwaitedHandleCancelTests {
    /// Set by the awaiting task, read by the operation.
    enum Marker {
        @TaskLocal static var name: String?
    }

    /// What the awaiting task saw: the handle's result, whether it was cancelled afterwards,
    /// and the status of the request it sent next.
    struct Seen: Sendable {
        let result: Result<Int, any Error>
        let cancelledAfterwards: Bool
        let next: Result<Int, any Error>
    }

    @Test(.timeLimit(.minutes(1))) func cancellingAnAwaitedHandleEndsItsTransferAndNotTheAwaitingTask() async throws {
        try await withClient { server, screen, executor, ranIn in
            // Given a handle on a route the server holds for ten minutes, awaited in a task
            // that sends another request afterwards
            let log = LockedRecorder<String>()
            let handle = screen.request(Held()).map { response, _ in response.status.code }
            handle.onCancel { log.append("cancel hook") }
            handle.completion { log.append("completion \(Self.category(of: $0))") }
            let waiter = Task { await Self.awaitThenSendAnother(handle, screen: screen) }
            try await Self.open(executor, once: ranIn)
            try await waitUntil { server.receivedRequests().contains { $0.path == "/delay/600000" } }

            // When the handle is cancelled
            handle.cancel()

            // Then the handle fails as cancelled, once, after its hook, long before the server
            // answers or the transfer's stall timeout (30 s) would end it, and the awaiting
            // task is not cancelled: its next request succeeds
            try await Self.waitForTheEnd { log.all.count == 2 }
            let seen = await waiter.value
            #expect(Self.category(of: seen.result) == "cancelled")
            #expect(seen.cancelledAfterwards == false)
            #expect(try seen.next.get() == 200)
            #expect(log.all == ["cancel hook", "completion cancelled"])
            #expect(ranIn.all.first == "the awaiting task")
        }
    }

    @Test(.timeLimit(.minutes(1))) func cancellingAnAwaitedHandleEndsTheRetryLoopsWait() async throws {
        try await withClient(retryBudget: nil) { server, screen, executor, ranIn in
            // Given a handle on a route that answers 503 with a Retry-After of 50 s, awaited
            let retries = LockedRecorder<Int>()
            let ended = LockedRecorder<String>()
            let handle = screen.request(Unavailable()).map { response, _ in response.status.code }
            handle.completion { ended.append(Self.category(of: $0)) }
            handle.observe { event in
                if case .retry(let retry) = event { retries.append(retry.attempt) }
            }
            let waiter = Task { await Self.awaitThenSendAnother(handle, screen: screen) }
            try await Self.open(executor, once: ranIn)
            try await waitUntil { retries.all == [2] }

            // When the handle is cancelled while the loop waits for the second attempt
            handle.cancel()

            // Then the wait ends long before its 50 s: no second attempt, a cancelled handle,
            // and a task that goes on uncancelled
            try await Self.waitForTheEnd { ended.all == ["cancelled"] }
            let seen = await waiter.value
            #expect(Self.category(of: seen.result) == "cancelled")
            #expect(server.requestCount(for: "/flaky/5") == 1)
            #expect(seen.cancelledAfterwards == false)
            #expect(try seen.next.get() == 200)
            #expect(ranIn.all.first == "the awaiting task")
        }
    }

    @Test(.timeLimit(.minutes(1))) func cancellingAViewOfAnAwaitedHandleCancelsTheRequest() async throws {
        try await withClient { server, screen, executor, ranIn in
            // Given a view of a view of a handle on a held route, the outer view awaited
            let source = screen.request(Held())
            let view = source.map { response, _ in response.status.code }.map { code, _ in code + 1 }
            let ended = LockedRecorder<String>()
            view.completion { ended.append(Self.category(of: $0)) }
            let waiter = Task { await Self.awaitThenSendAnother(view, screen: screen) }
            try await Self.open(executor, once: ranIn)
            try await waitUntil { server.receivedRequests().contains { $0.path == "/delay/600000" } }

            // When the view is cancelled
            view.cancel()

            // Then the request, the source and the view fail as cancelled, long before the
            // stall timeout, and the task is not
            try await Self.waitForTheEnd { ended.all == ["cancelled"] }
            let seen = await waiter.value
            #expect(Self.category(of: seen.result) == "cancelled")
            #expect(Self.category(of: await source.result.map { $0.status.code }) == "cancelled")
            #expect(seen.cancelledAfterwards == false)
            #expect(try seen.next.get() == 200)
            #expect(ranIn.all.first == "the awaiting task")
        }
    }

    @Test(.timeLimit(.minutes(1))) func cancellingAnAwaitedDownloadSuspendsItAndNotTheAwaitingTask() async throws {
        try await withTemporaryFolder { folder in
            try await withClient { _, screen, executor, ranIn in
                // Given a download of 2 MiB that the server sends 64 KiB every half second,
                // awaited in a task that sends another request afterwards
                let destination = URL(fileURLWithPath: folder).appendingPathComponent("big.bin")
                let received = LockedRecorder<Int64>()
                let ended = LockedRecorder<String>()
                let download = screen.download(
                    PatternDownload(count: 2 << 20, destination: destination, query: ["chunk-delay": 500]))
                download.observe { event in
                    if case .transfer(.downloadProgress(let progress)) = event { received.append(progress.completed) }
                }
                let handle = download.map { summary, _ in Int(summary.byteCount) }
                handle.completion { ended.append(Self.category(of: $0)) }
                let waiter = Task { await Self.awaitThenSendAnother(handle, screen: screen) }
                try await Self.open(executor, once: ranIn)
                try await waitUntil { (received.all.last ?? 0) >= 128 << 10 }

                // When the handle is cancelled
                handle.cancel()

                // Then the download stops long before its 16 s, keeping its partial, and the
                // awaiting task goes on uncancelled
                try await Self.waitForTheEnd { ended.all == ["cancelled"] }
                let seen = await waiter.value
                #expect(Self.category(of: seen.result) == "cancelled")
                #expect(FileManager.default.fileExists(atPath: destination.path + ".partial"))
                #expect(!FileManager.default.fileExists(atPath: destination.path))
                #expect(seen.cancelledAfterwards == false)
                #expect(try seen.next.get() == 200)
                #expect(ranIn.all.first == "the awaiting task")
            }
        }
    }

    @Test(.timeLimit(.minutes(1))) func cancellingTheAwaitingTaskStillCancelsTheRequest() async throws {
        try await withClient { server, screen, executor, ranIn in
            // Given a handle on a held route, awaited in a task
            let log = LockedRecorder<String>()
            let handle = screen.request(Held())
            handle.onCancel { log.append("cancel hook") }
            handle.completion { _ in log.append("completion") }
            let waiter = Task { await Marker.$name.withValue("the awaiting task") { await handle.result } }
            try await Self.open(executor, once: ranIn)
            try await waitUntil { server.receivedRequests().contains { $0.path == "/delay/600000" } }

            // When the awaiting task is cancelled
            waiter.cancel()

            // Then the request is cancelled, long before the stall timeout, as are the handle's
            // later awaits
            try await Self.waitForTheEnd { log.all == ["cancel hook", "completion"] }
            #expect(Self.category(of: await waiter.value.map { $0.status.code }) == "cancelled")
            #expect(Self.category(of: await handle.result.map { $0.status.code }) == "cancelled")
            #expect(ranIn.all.first == "the awaiting task")
        }
    }

    // MARK: - Support

    /// Runs `body` with a client on the mock server whose handles' own tasks wait in a closed
    /// executor, and a recorder of where each operation ran.
    private func withClient(
        retryBudget: RetryBudget? = .shared,
        _ body: (MockServer, Screen, HeldExecutor, LockedRecorder<String>) async throws -> Void
    ) async throws {
        try await withServerAndTransport { server, transport in
            let executor = HeldExecutor()
            defer { executor.open() }
            let ranIn = LockedRecorder<String>()
            var configuration = ClientConfiguration(transport: transport, baseURL: server.baseURL)
            configuration.taskExecutor = executor
            configuration.retry.budget = retryBudget
            configuration.plugins = [WhereItRuns(ranIn: ranIn)]
            try await body(server, Screen(clientConfiguration: configuration), executor, ranIn)
        }
    }

    /// Opens `executor` once the awaiting task has claimed the run: the operation has begun, or
    /// that task waits in the executor behind the run's own task.
    private static func open(_ executor: HeldExecutor, once ranIn: LockedRecorder<String>) async throws {
        try await waitUntil { !ranIn.all.isEmpty || executor.waiting == 2 }
        executor.open()
    }

    /// Waits until `ended` says the cancelled run has ended: 10 s at most, far less than the
    /// 30 s of a transfer's stall timeout or the 50 s of a `Retry-After`, which would end a
    /// run that the cancel did not reach, and far more than a cancel takes.
    private static func waitForTheEnd(_ ended: () -> Bool) async throws {
        try await waitUntil(timeout: .seconds(10)) { ended() }
    }

    /// Awaits `handle` in this task (marked as the awaiting task), then reads whether the task
    /// is cancelled and sends another request from it.
    private static func awaitThenSendAnother(_ handle: RequestHandle<Int>, screen: Screen) async -> Seen {
        await Marker.$name.withValue("the awaiting task") {
            let result = await handle.result
            let cancelled = Task.isCancelled
            let next = await screen.request(Quick()).map { response, _ in response.status.code }.result
            return Seen(result: result, cancelledAfterwards: cancelled, next: next)
        }
    }

    /// `cancelled` for a `.cancelled` ``TransportError``, what else it is otherwise.
    private static func category<Value>(of result: Result<Value, any Error>) -> String {
        switch result {
        case .success(let value): "success \(value)"
        case .failure(let error as TransportError): "\(error.category)"
        case .failure(let error): "\(error)"
        }
    }

    /// A route the server holds for ten minutes.
    struct Held: RequestFormable {
        var path: String { "/delay/600000" }
    }

    /// A route that answers 503 with `Retry-After: 50` five times.
    struct Unavailable: RequestFormable {
        var path: String { "/flaky/5" }
        var parameters: Parameters { ["key": UUID().uuidString, "retry-after": 50] }
    }

    /// A route that answers at once.
    struct Quick: RequestFormable {
        var path: String { "/status/200" }
    }

    /// Records, for each request it prepares, the task that runs the operation.
    struct WhereItRuns: Plugin {
        let ranIn: LockedRecorder<String>
        func prepare(_ request: inout TransportRequest, form: any Formable) async throws {
            ranIn.append(Marker.name ?? "a task of its own")
        }
    }
}
