import Downloads
import Foundation
import Glibc
import HTTPTypes
import MockBackend
import Synchronization
import TestSupport
import Testing
import Transport
import TransportCurl

/// `DownloadManager`: its concurrency limit, states and control by task.
@Suite struct DownloadManagerTests {
    @Test func theManagerRunsAtMostItsLimitAtOnceAndReportsEveryState() async throws {
        try await withDownloadFixture { server, transport, folder in
            let manager = DownloadManager(transport: transport, maximumConcurrentDownloads: 2)
            let changes = manager.stateChanges
            let count = 1 << 20
            var ids: [DownloadManager.TaskID] = []
            for index in 0..<5 {
                ids.append(
                    try await manager.enqueue(
                        url: server.url("/bytes/\(count)?chunk-delay=10&n=\(index)"),
                        to: folder + "/\(index).bin",
                        options: testOptions()))
            }

            await manager.waitUntilIdle()

            var log: [DownloadManager.StateChange] = []
            for await change in changes {
                log.append(change)
                if log.filter({ $0.state.description == "completed" }).count == ids.count { break }
            }
            var running = 0
            var mostRunning = 0
            for change in log {
                if change.state == .running { running += 1 }
                if change.state.description == "completed" { running -= 1 }
                mostRunning = max(mostRunning, running)
            }
            #expect(mostRunning == 2)
            for id in ids {
                let states = log.filter { $0.id == id }.map(\.state.description)
                #expect(states == ["queued", "running", "completed"], "\(id)")
                guard case .completed(let summary) = await manager.state(of: id) else {
                    Issue.record("\(id) did not complete")
                    continue
                }
                #expect(try contents(summary.destination) == pattern(0..<count))
            }
        }
    }

    @Test func theManagerSuspendsResumesAndCancelsByTask() async throws {
        try await withDownloadFixture { server, transport, folder in
            // Given one slot, a slow download in it and another waiting
            let manager = DownloadManager(transport: transport, maximumConcurrentDownloads: 1)
            let count = 2 << 20
            let first = try await manager.enqueue(
                url: server.url("/bytes/\(count)?chunk-delay=10&n=1"), to: folder + "/1.bin",
                options: testOptions())
            let second = try await manager.enqueue(
                url: server.url("/bytes/\(count)?chunk-delay=10&n=2"), to: folder + "/2.bin",
                options: testOptions())
            #expect(await manager.state(of: first) == .running)
            #expect(await manager.state(of: second) == .queued)
            let firstDownload = try #require(await manager.download(first))
            try await waitUntil { (firstDownload.progress?.completed ?? 0) > 0 }

            // Suspending the first frees its slot for the second
            await manager.suspend(first)
            #expect(await manager.state(of: first) == .suspended)
            #expect(await manager.state(of: second) == .running)

            // Resuming queues it behind the second; cancelling the second lets it run
            await manager.resume(first)
            #expect(await manager.state(of: first) == .queued)
            let secondDownload = try #require(await manager.download(second))
            await manager.cancel(second)
            try await waitUntil { await manager.state(of: second) == .cancelled }
            #expect(!exists(secondDownload.partialPath))
            #expect(!exists(folder + "/2.bin"))

            let summary = try await manager.value(of: first)
            #expect(summary.resumedFrom > 0)
            #expect(try contents(folder + "/1.bin") == pattern(0..<count))
            try await waitUntil { await manager.state(of: first) == .completed(summary) }
        }
    }
}
