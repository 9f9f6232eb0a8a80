import Dispatch
import Downloads
import Foundation
import MockBackend
import Synchronization
import TestSupport
import Testing
import Transport
import TransportCurl

/// `DownloadTask`: tasks of a `DownloadManager` made before they start, their chained
/// handlers, and their control one by one and all at once, against the mock server's `/bytes`.
@Suite struct DownloadTaskTests {
    /// A serial queue that says whether the calling code runs on it.
    private final class MarkedQueue: Sendable {
        let queue = DispatchQueue(label: "download-task-handlers")
        private let key = DispatchSpecificKey<Bool>()

        init() { queue.setSpecific(key: key, value: true) }

        var isCurrent: Bool { DispatchQueue.getSpecific(key: key) == true }
        var executor: HandlerExecutor { .queue(queue) }
    }

    @Test func aTaskMadeButNotStartedStaysQueuedUntilItsDownload() async throws {
        try await withDownloadFixture { server, transport, folder in
            let manager = DownloadManager(transport: transport, maximumConcurrentDownloads: 3)
            let count = 200_000
            let task = try manager.task(
                for: server.url("/bytes/\(count)"), to: folder + "/a.bin", options: testOptions())

            // Made: the manager knows it as queued, runs nothing, and is idle
            #expect(await manager.state(of: task.id) == .queued)
            await manager.waitUntilIdle()
            #expect(task.currentState == .queued)
            #expect(await manager.download(task.id)?.state == .queued)
            #expect(server.requestCount(for: "/bytes/\(count)") == 0)

            // Started: it runs and completes
            task.download()
            let summary = try await task.value
            #expect(summary.byteCount == Int64(count))
            #expect(try contents(folder + "/a.bin") == pattern(0..<count))
            #expect(server.requestCount(for: "/bytes/\(count)") == 1)
            #expect(await manager.state(of: task.id) == .completed(summary))
        }
    }

    @Test func everyHandlerRunsInOrderOnTheExecutorMixedWithAwaiting() async throws {
        try await withDownloadFixture { server, transport, folder in
            let manager = DownloadManager(transport: transport)
            let marked = MarkedQueue()
            let log = LockedRecorder<String>()
            let offQueue = LockedRecorder<String>()
            let progress = LockedRecorder<Int64>()
            let count = 1 << 20
            let check: @Sendable (String) -> Void = { entry in
                if !marked.isCurrent { offQueue.append(entry) }
                log.append(entry)
            }
            let task = try manager.task(
                for: server.url("/bytes/\(count)?chunk-delay=5"), to: folder + "/a.bin", options: testOptions(),
                executor: marked.executor
            )
            .state { check("state1 \($0)") }
            .progress {
                check("progress1")
                progress.append($0.completed)
            }
            .response { check("response1 \((try? $0.get().byteCount) ?? -1)") }
            .state { check("state2 \($0)") }
            .progress { _ in check("progress2") }
            .response { _ in check("response2") }
            task.download()

            let summary = try await task.value
            #expect(summary.byteCount == Int64(count))
            try await waitUntil { log.all.contains("response2") }
            // A serial executor has run every handler before a job enqueued now.
            await withCheckedContinuation { continuation in marked.queue.async { continuation.resume() } }

            let entries = log.all
            #expect(offQueue.all.isEmpty)
            #expect(
                entries.filter { $0.hasPrefix("state1") } == ["state1 queued", "state1 running", "state1 completed"])
            #expect(
                entries.filter { $0.hasPrefix("state2") } == ["state2 queued", "state2 running", "state2 completed"])
            #expect(entries.filter { $0.hasPrefix("response") } == ["response1 \(count)", "response2"])
            // Each progress event reaches both handlers, one after the other, in order.
            let progressEntries = entries.filter { $0.hasPrefix("progress") }
            #expect(progressEntries.count == 2 * progress.all.count)
            #expect(
                progressEntries
                    == Array(repeating: ["progress1", "progress2"], count: progress.all.count).flatMap { $0 })
            #expect(progress.all == progress.all.sorted())
            #expect(progress.all.last == Int64(count))
            // The response comes after the final state, which comes after the last progress.
            let lastProgress = try #require(entries.lastIndex(of: "progress2"))
            let completed = try #require(entries.firstIndex(of: "state2 completed"))
            let response = try #require(entries.firstIndex(of: "response1 \(count)"))
            #expect(lastProgress < completed && completed < response)

            // Added after the outcome: the current state and the outcome, at once
            let late = LockedRecorder<String>()
            task.state { late.append("state \($0)") }.response {
                late.append("response \((try? $0.get())?.byteCount ?? -1)")
            }
            try await waitUntil { late.all.count == 2 }
            #expect(late.all == ["state completed", "response \(count)"])
            #expect(try await task.result.get() == summary)
        }
    }

    @Test func aSuspendedTaskResumesFromItsPartial() async throws {
        try await withDownloadFixture { server, transport, folder in
            let manager = DownloadManager(transport: transport)
            let count = 2 << 20
            let states = LockedRecorder<String>()
            let responses = LockedRecorder<String>()
            let task = try manager.download(
                url: server.url("/bytes/\(count)?chunk-delay=10"), to: folder + "/a.bin", options: testOptions()
            )
            .state { states.append($0.description) }
            .response { responses.append((try? $0.get()).map { "\($0.resumedFrom)" } ?? "failure") }
            try await waitUntil { (task.currentProgress?.completed ?? 0) > 0 }

            task.suspend()
            try await waitUntil { task.currentState == .suspended }
            let kept = try contents(folder + "/a.bin.partial").count
            #expect(kept > 0)
            #expect(responses.all.isEmpty)

            task.resume()
            let summary = try await task.value
            #expect(summary.resumedFrom >= Int64(kept))
            #expect(try contents(folder + "/a.bin") == pattern(0..<count))
            try await waitUntil { responses.all.count == 1 }
            #expect(responses.all == ["\(summary.resumedFrom)"])
            #expect(states.all == ["queued", "running", "suspended", "queued", "running", "completed"])
        }
    }

    @Test func suspendAllAndResumeAllTakeEveryTaskAlong() async throws {
        try await withDownloadFixture { server, transport, folder in
            let manager = DownloadManager(transport: transport, maximumConcurrentDownloads: 2)
            let count = 2 << 20
            let tasks = try (0..<3).map { index in
                try manager.download(
                    url: server.url("/bytes/\(count)?chunk-delay=10&n=\(index)"), to: folder + "/\(index).bin",
                    options: testOptions())
            }
            try await waitUntil { tasks.prefix(2).allSatisfy { ($0.currentProgress?.completed ?? 0) > 0 } }

            await manager.suspendAll()
            for task in tasks { #expect(await manager.state(of: task.id) == .suspended) }
            try await waitUntil { tasks.allSatisfy { $0.currentState == .suspended } }

            await manager.resumeAll()
            for (index, task) in tasks.enumerated() {
                let summary = try await task.value
                #expect(try contents(folder + "/\(index).bin") == pattern(0..<count))
                if index < 2 { #expect(summary.resumedFrom > 0, "task \(index)") }
            }
        }
    }

    @Test func cancellingATaskOrAllEndsEachOnceWithCancellation() async throws {
        try await withDownloadFixture { server, transport, folder in
            let manager = DownloadManager(transport: transport, maximumConcurrentDownloads: 1)
            let count = 4 << 20
            let responses = LockedRecorder<String>()
            func make(_ index: Int) throws -> DownloadTask {
                try manager.task(
                    for: server.url("/bytes/\(count)?chunk-delay=10&n=\(index)"), to: folder + "/\(index).bin",
                    options: testOptions()
                )
                .response { result in
                    let category =
                        (try? result.get()).map { _ in "completed" }
                        ?? ((result.failure as? TransportError)?.category.name ?? "other")
                    responses.append("\(index) \(category)")
                }
            }
            // One task cancelled while it runs
            let first = try make(0).download()
            try await waitUntil { (first.currentProgress?.completed ?? 0) > 0 }
            first.cancel()
            let error = await #expect(throws: TransportError.self) { try await first.value }
            #expect(error?.category == .cancelled)
            try await waitUntil { first.currentState == .cancelled }
            #expect(!exists(folder + "/0.bin.partial"))

            // One running, one waiting, one never started: all cancelled
            let running = try make(1).download()
            let waiting = try make(2).download()
            let unstarted = try make(3)
            try await waitUntil { (running.currentProgress?.completed ?? 0) > 0 }
            await manager.cancelAll()
            for task in [running, waiting, unstarted] {
                let result = await task.result
                #expect((result.failure as? TransportError)?.category == .cancelled, "\(task.id)")
                try await waitUntil { task.currentState == .cancelled }
            }
            #expect(!exists(folder + "/1.bin.partial"))
            try await waitUntil { responses.all.count == 4 }
            #expect(responses.all.sorted() == ["0 cancelled", "1 cancelled", "2 cancelled", "3 cancelled"])
            #expect(server.requestCount(for: "/bytes/\(count)") == 2)
        }
    }

    @Test func tasksRunNoMoreAtOnceThanTheManagerAllows() async throws {
        try await withDownloadFixture { server, transport, folder in
            let manager = DownloadManager(transport: transport, maximumConcurrentDownloads: 2)
            let count = 1 << 20
            let counts = Mutex((running: 0, most: 0))
            let tasks = try (0..<5).map { index in
                try manager.task(
                    for: server.url("/bytes/\(count)?chunk-delay=5&n=\(index)"), to: folder + "/\(index).bin",
                    options: testOptions()
                )
                .state { state in
                    counts.withLock { counts in
                        if state == .running { counts.running += 1 }
                        if state.isFinal { counts.running -= 1 }
                        counts.most = max(counts.most, counts.running)
                    }
                }
            }
            for task in tasks { task.download() }
            for task in tasks { _ = try await task.value }
            try await waitUntil { counts.withLock { $0.running } == 0 }
            #expect(counts.withLock { $0.most } == 2)
        }
    }

    @Test func aFailingTaskReachesItsResponseWithTheTypedErrorAndStateFailed() async throws {
        try await withDownloadFixture { server, transport, folder in
            let manager = DownloadManager(transport: transport)
            let states = LockedRecorder<String>()
            let failures = LockedRecorder<TransportError>()
            let task = try manager.download(
                url: server.url("/status/404"), to: folder + "/a.bin", options: testOptions()
            )
            .state { states.append($0.description) }
            .response { result in if let error = result.failure as? TransportError { failures.append(error) } }

            let error = await #expect(throws: TransportError.self) { try await task.value }
            #expect(error?.category == .downloadFailed)
            try await waitUntil { failures.all.count == 1 }
            #expect(failures.all.first?.category == .downloadFailed)
            try await waitUntil { states.all.last == "failed" }
            #expect(states.all == ["queued", "running", "failed"])
            guard case .failed(let failure) = task.currentState else {
                Issue.record("the task is \(task.currentState)")
                return
            }
            #expect(failure.category == .downloadFailed)
        }
    }

    @Test func aFailedTaskResumedRunsItsResponseHandlersAgainForTheNextOutcome() async throws {
        try await withDownloadFixture { server, transport, folder in
            let manager = DownloadManager(transport: transport)
            let count = 1 << 20
            let responses = LockedRecorder<String>()
            let url = server.url("/bytes/\(count)?drop-after=300000&key=resume-\(UUID())&drops=1")
            let task = try manager.download(url: url, to: folder + "/a.bin", options: testOptions(maximumRetries: 0))
                .response { result in
                    responses.append((try? result.get()).map { "resumed from \($0.resumedFrom)" } ?? "failure")
                }
            _ = await #expect(throws: TransportError.self) { try await task.value }
            try await waitUntil { responses.all == ["failure"] }

            task.resume()
            let summary = try await task.value
            #expect(summary.resumedFrom > 0)
            #expect(try contents(folder + "/a.bin") == pattern(0..<count))
            try await waitUntil { responses.all.count == 2 }
            #expect(responses.all == ["failure", "resumed from \(summary.resumedFrom)"])
        }
    }

    @Test func theProcessWideManagerIsUsedOnlyOnceInstalledOrScoped() async throws {
        try await withDownloadFixture { server, transport, folder in
            let error = #expect(throws: TransportError.self) {
                try DownloadSystem.task(for: server.url("/bytes/10"), to: folder + "/a.bin")
            }
            #expect(error?.category == .noDownloadManager)
            #expect(error?.message.contains("DownloadSystem.bootstrap") == true)

            let manager = DownloadManager(transport: transport)
            let summary = try await DownloadSystem.withManager(manager) {
                try await DownloadSystem.download(
                    url: server.url("/bytes/10"), to: folder + "/a.bin", options: testOptions()
                )
                .value
            }
            #expect(summary.byteCount == 10)
            #expect(DownloadSystem.manager == nil)
        }
    }
}

extension Result {
    /// The error of a failure, `nil` for a success.
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
