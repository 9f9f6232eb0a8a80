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

/// A fresh folder for one test's files, removed afterwards.
func withTemporaryFolder<T>(_ body: (String) async throws -> T) async throws -> T {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-download-\(UUID())").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    return try await body(folder)
}

/// The mock server, a transport and a fresh folder: what most download tests start from.
private func withDownloadFixture(
    _ body: (MockServer, CurlTransport, String) async throws -> Void
) async throws {
    try await MockServer.withRunning { server in
        try await withTransport { transport in
            try await withTemporaryFolder { folder in try await body(server, transport, folder) }
        }
    }
}

/// Options for tests: quick retries, no flushing (the tests stop processes, not power).
private func testOptions(retryLimit: Int = 3) -> FileDownload.Options {
    var options = FileDownload.Options()
    options.retryLimit = retryLimit
    options.retryDelay = .milliseconds(10)
    options.synchronizesToDisk = false
    return options
}

private func contents(_ path: String) throws -> Data {
    try Data(contentsOf: URL(fileURLWithPath: path))
}

private func exists(_ path: String) -> Bool {
    FileManager.default.fileExists(atPath: path)
}

/// `FileDownload` and `DownloadManager` on `CurlTransport`, against the mock server's
/// `/bytes` route and its switches.
@Suite struct DownloadTests {
    // MARK: - Resuming

    @Test func resumesAfterTheServerDropsTheConnectionMidBody() async throws {
        try await withDownloadFixture { server, transport, folder in
            // Given a server that closes the connection after 1 MB of a 3 MiB body, once
            let count = 3 << 20
            let url = server.url("/bytes/\(count)?drop-after=1000000&key=\(UUID())")
            let download = try FileDownload(
                url: url, to: folder + "/out.bin", transport: transport, options: testOptions())

            // When the download runs
            let summary = try await download.run()

            // Then it retried by itself with a range for the rest, and the file is whole
            #expect(summary.byteCount == Int64(count))
            #expect(summary.requestCount == 2)
            #expect(try contents(folder + "/out.bin") == pattern(0..<count))
            let requests = server.receivedRequests()
            try #require(requests.count == 2)
            #expect(requests[0].headerFields[.range] == nil)
            let range = try #require(requests[1].headerFields[.range])
            let offset = try #require(Int(range.dropFirst("bytes=".count).dropLast()))
            #expect(range.hasPrefix("bytes=") && range.hasSuffix("-"))
            #expect(offset > 0 && offset <= 1_000_000)
            #expect(requests[1].headerFields[.ifRange] == "\"pattern-\(count)\"")
            #expect(!exists(folder + "/out.bin.partial"))
            #expect(!exists(folder + "/out.bin.partial.json"))
        }
    }

    @Test func resumesInTheSameProcessAfterAFailedRun() async throws {
        try await withDownloadFixture { server, transport, folder in
            // Given a download allowed no retries, whose first attempt is dropped
            let count = 2 << 20
            let url = server.url("/bytes/\(count)?drop-after=500000&key=\(UUID())")
            let download = try FileDownload(
                url: url, to: folder + "/out.bin", transport: transport, options: testOptions(retryLimit: 0))
            let error = await #expect(throws: TransportError.self) { try await download.run() }
            #expect(error?.category == .incompleteBody)
            #expect(error?.message.contains("running the download again resumes") == true)
            let kept = try FileManager.default.attributesOfItem(atPath: download.partialPath)[.size] as? Int
            #expect((kept ?? 0) > 0)
            #expect(exists(download.sidecarPath))

            // When it is resumed
            let summary = try await download.run()

            // Then it continued from the bytes kept
            #expect(summary.resumedFrom == Int64(kept ?? -1))
            #expect(try contents(folder + "/out.bin") == pattern(0..<count))
            #expect(server.receivedRequests().last?.headerFields[.range] == "bytes=\(kept ?? -1)-")
        }
    }

    @Test func restartsFromZeroWhenTheServerIgnoresRange() async throws {
        try await withDownloadFixture { server, transport, folder in
            let count = 2 << 20
            let url = server.url("/bytes/\(count)?ignore-range=1&drop-after=700000&key=\(UUID())")
            let events = EventLog()
            var options = testOptions()
            options.progressHandler = { events.handler(.downloadProgress($0)) }
            let download = try FileDownload(
                url: url, to: folder + "/out.bin", transport: transport, options: options)

            let summary = try await download.run()

            // The retry asked for a range, got 200 and the whole body, and wrote it from zero
            let requests = server.receivedRequests()
            try #require(requests.count == 2)
            #expect(requests[1].headerFields[.range] != nil)
            #expect(summary.requestCount == 2)
            #expect(try contents(folder + "/out.bin") == pattern(0..<count))
            let completed = events.all.compactMap { event -> Int64? in
                if case .downloadProgress(let progress) = event { return progress.completed }
                return nil
            }
            #expect(completed.last == Int64(count))
        }
    }

    @Test func restartsWithTheNewContentWhenTheValidatorChangesBetweenAttempts() async throws {
        try await withDownloadFixture { server, transport, folder in
            // Given a first attempt of the default version that is dropped, and a server
            // that serves version "v2" from then on
            let count = 2 << 20
            let url = server.url("/bytes/\(count)?drop-after=600000&key=\(UUID())&etag-after-drop=v2")
            let newContent = try await transport.data(
                for: TransportRequest(method: .get, url: server.url("/bytes/\(count)?etag=v2"))
            ).body
            #expect(newContent != pattern(0..<count))

            let summary = try await FileDownload(
                url: url, to: folder + "/out.bin", transport: transport, options: testOptions()
            ).run()

            // Then the If-Range did not match, the server sent v2 whole, and only v2 is on disk
            let requests = server.receivedRequests().filter { $0.path.contains("drop-after") }
            try #require(requests.count == 2)
            #expect(requests[1].headerFields[.ifRange] == "\"pattern-\(count)\"")
            #expect(summary.requestCount == 2)
            #expect(try contents(folder + "/out.bin") == newContent)
        }
    }

    @Test(arguments: ["weak=1", "no-validator=1"])
    func restartsFromZeroWithoutAStrongValidatorAndNeverSendsIfRange(switch query: String) async throws {
        try await withDownloadFixture { server, transport, folder in
            // Given a server whose ETag is weak (or absent), and a first attempt that is dropped
            let count = 2 << 20
            let url = server.url("/bytes/\(count)?\(query)&drop-after=600000&key=\(UUID())")

            let summary = try await FileDownload(
                url: url, to: folder + "/out.bin", transport: transport, options: testOptions()
            ).run()

            // Then the retry asked for the whole file again, without Range or If-Range
            let requests = server.receivedRequests()
            try #require(requests.count == 2)
            #expect(requests.allSatisfy { $0.headerFields[.range] == nil && $0.headerFields[.ifRange] == nil })
            #expect(summary.requestCount == 2)
            #expect(try contents(folder + "/out.bin") == pattern(0..<count))
        }
    }

    @Test func resumesWithAStrongLastModifiedWhenThereIsNoETag() async throws {
        try await withDownloadFixture { server, transport, folder in
            let count = 2 << 20
            let url = server.url("/bytes/\(count)?no-etag=1&drop-after=600000&key=\(UUID())")

            _ = try await FileDownload(
                url: url, to: folder + "/out.bin", transport: transport, options: testOptions()
            ).run()

            let requests = server.receivedRequests()
            try #require(requests.count == 2)
            #expect(requests[1].headerFields[.range]?.hasPrefix("bytes=") == true)
            #expect(requests[1].headerFields[.ifRange] == "Mon, 01 Jan 2024 00:00:00 GMT")
            #expect(try contents(folder + "/out.bin") == pattern(0..<count))
        }
    }

    @Test func downloadsAChunkedBodyOfUnknownLength() async throws {
        try await withDownloadFixture { server, transport, folder in
            let count = 1_000_000
            let progress = Mutex<[TransferProgress]>([])
            var options = testOptions()
            options.progressHandler = { event in progress.withLock { $0.append(event) } }

            let summary = try await FileDownload(
                url: server.url("/stream-bytes/\(count)?chunk=50000"), to: folder + "/out.bin",
                transport: transport, options: options
            ).run()

            #expect(summary.byteCount == Int64(count))
            #expect(try contents(folder + "/out.bin") == pattern(0..<count))
            let events = progress.withLock { $0 }
            #expect(events.dropLast().allSatisfy { $0.total == nil })
            #expect(events.last?.isFinal == true)
            #expect(events.last?.total == Int64(count))
        }
    }

    @Test func restartsWhenThePartialOnDiskIsOfAnotherVersion() async throws {
        try await withDownloadFixture { server, transport, folder in
            // Given a partial of an older version, as a killed process would leave it
            let count = 1 << 20
            let url = server.url("/bytes/\(count)")
            let destination = folder + "/out.bin"
            try Data(repeating: 0xEE, count: 4096).write(to: URL(fileURLWithPath: destination + ".partial"))
            try sidecar(url: url, etag: "\"old\"", total: count).write(
                to: URL(fileURLWithPath: destination + ".partial.json"))

            let summary = try await FileDownload(
                url: url, to: destination, transport: transport, options: testOptions()
            ).run()

            // Then If-Range named the old version, the server sent the new one whole
            let requests = server.receivedRequests()
            try #require(requests.count == 1)
            #expect(requests[0].headerFields[.range] == "bytes=4096-")
            #expect(requests[0].headerFields[.ifRange] == "\"old\"")
            #expect(summary.resumedFrom == 4096)
            #expect(try contents(destination) == pattern(0..<count))
        }
    }

    @Test func discardsARangeOfAnotherVersionFromAServerThatIgnoresIfRange() async throws {
        try await withDownloadFixture { server, transport, folder in
            let count = 1 << 20
            let url = server.url("/bytes/\(count)?ignore-if-range=1")
            let destination = folder + "/out.bin"
            try Data(repeating: 0xEE, count: 4096).write(to: URL(fileURLWithPath: destination + ".partial"))
            try sidecar(url: url, etag: "\"old\"", total: count).write(
                to: URL(fileURLWithPath: destination + ".partial.json"))

            _ = try await FileDownload(url: url, to: destination, transport: transport, options: testOptions())
                .run()

            // The 206 carried another ETag: discarded, then the whole file was fetched
            let requests = server.receivedRequests()
            try #require(requests.count == 2)
            #expect(requests[0].headerFields[.range] == "bytes=4096-")
            #expect(requests[1].headerFields[.range] == nil)
            #expect(try contents(destination) == pattern(0..<count))
        }
    }

    @Test func acceptsA416ForAPartialThatIsAlreadyComplete() async throws {
        try await withDownloadFixture { server, transport, folder in
            // Given a complete partial: killed after the last byte, before the rename
            let count = 100_000
            let url = server.url("/bytes/\(count)")
            let destination = folder + "/out.bin"
            try pattern(0..<count).write(to: URL(fileURLWithPath: destination + ".partial"))
            try sidecar(url: url, etag: "\"pattern-\(count)\"", total: count).write(
                to: URL(fileURLWithPath: destination + ".partial.json"))

            let summary = try await FileDownload(
                url: url, to: destination, transport: transport, options: testOptions()
            ).run()

            let requests = server.receivedRequests()
            try #require(requests.count == 1)
            #expect(requests[0].headerFields[.range] == "bytes=\(count)-")
            #expect(summary.byteCount == Int64(count))
            #expect(summary.resumedFrom == Int64(count))
            #expect(try contents(destination) == pattern(0..<count))
            #expect(!exists(destination + ".partial.json"))
        }
    }

    // MARK: - Verification

    @Test func waitsTheRetryAfterOfA503AndGivesUpAtOnceWhenItIsTooLong() async throws {
        try await withDownloadFixture { server, transport, folder in
            // Given a server that answers 503 with Retry-After: 1 once
            var options = testOptions()
            let retries = Mutex<[Int]>([])
            options.retryHandler = { attempt, failure in
                #expect(failure.message.contains("503"))
                retries.withLock { $0.append(attempt) }
            }
            let started = ContinuousClock.now
            let summary = try await FileDownload(
                url: server.url("/flaky/1?retry-after=1&key=retry-after-short"), to: folder + "/a.json",
                transport: transport, options: options
            ).run()
            // Then the download retries once, not before the second the server asked for (a
            // lower bound only: a slow machine cannot make it fail), and completes
            #expect(ContinuousClock.now - started >= .milliseconds(950))
            #expect(summary.requestCount == 2)
            #expect(retries.withLock { $0 } == [2])

            // Given one that asks for an hour, past the longest wait
            let failure = await #expect(throws: TransportError.self) {
                try await FileDownload(
                    url: server.url("/flaky/1?retry-after=3600&key=retry-after-long"), to: folder + "/b.json",
                    transport: transport, options: testOptions()
                ).run()
            }
            // Then it fails at once, saying why
            #expect(failure?.category == .downloadFailed)
            #expect(failure?.message.contains("asked to wait 3600.0 seconds") == true)
            #expect(server.receivedRequests().filter { $0.path.contains("retry-after-long") }.count == 1)
        }
    }

    @Test func verifiesTheDigestAndReportsIt() async throws {
        try await withDownloadFixture { server, transport, folder in
            let count = 1 << 20
            var options = testOptions()
            options.expectedSHA256 = SHA256Hasher.hexDigest(of: pattern(0..<count)).uppercased()
            let summary = try await FileDownload(
                url: server.url("/bytes/\(count)"), to: folder + "/out.bin", transport: transport,
                options: options
            ).run()
            #expect(summary.sha256 == SHA256Hasher.hexDigest(of: pattern(0..<count)))
        }
    }

    @Test func aChecksumMismatchIsATypedErrorAndLeavesNoFile() async throws {
        try await withDownloadFixture { server, transport, folder in
            let destination = folder + "/out.bin"
            var options = testOptions()
            options.expectedSHA256 = SHA256Hasher.hexDigest(of: Data("something else".utf8))
            let download = try FileDownload(
                url: server.url("/bytes/1000000"), to: destination, transport: transport, options: options)

            let error = await #expect(throws: TransportError.self) { try await download.run() }

            #expect(error?.category == .checksumMismatch)
            #expect(error?.message.contains(options.expectedSHA256 ?? "?") == true)
            #expect(error?.message.contains("deleted") == true)
            for path in [destination, download.partialPath, download.sidecarPath] {
                #expect(!exists(path), "\(path) is left")
            }
        }
    }

    // MARK: - Progress

    @Test func reportsMonotonicProgressAtABoundedRateWithExactlyOneFinalEvent() async throws {
        try await withDownloadFixture { server, transport, folder in
            // Given a body that takes about a second: 8 MiB, 5 ms after each 64 KiB
            let count = 8 << 20
            let callbacks = Mutex<[TransferProgress]>([])
            var options = testOptions()
            options.progressHandler = { progress in callbacks.withLock { $0.append(progress) } }
            let download = try FileDownload(
                url: server.url("/bytes/\(count)?chunk-delay=5"), to: folder + "/out.bin",
                transport: transport, options: options)
            let updates = download.progressUpdates
            let streamed = Task {
                var events: [TransferProgress] = []
                for await progress in updates { events.append(progress) }
                return events
            }

            let clock = ContinuousClock()
            let started = clock.now
            try await download.run()
            let elapsed = clock.now - started
            let fromStream = await streamed.value
            let fromCallback = callbacks.withLock { $0 }

            for events in [fromCallback, fromStream] {
                #expect(events.count >= 3)
                #expect(zip(events, events.dropFirst()).allSatisfy { $0.completed <= $1.completed })
                #expect(events.filter(\.isFinal).count == 1)
                #expect(events.last?.isFinal == true)
                #expect(events.last?.completed == Int64(count))
                #expect(events.last?.total == Int64(count))
                #expect(events.dropLast().allSatisfy { $0.total == Int64(count) })
            }
            // At most 20 a second, plus the first and the final one.
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
            #expect(Double(fromCallback.count) <= seconds * 20 + 2, "\(fromCallback.count) in \(seconds) s")
            #expect((fromCallback.last?.bytesPerSecond ?? 0) > 0)
        }
    }

    // MARK: - Control

    @Test func discardsAnEarlierPartialOfTheSameURLWhenAsked() async throws {
        try await withDownloadFixture { server, transport, folder in
            // Given a partial and its sidecar that a suspended download of this URL left
            let count = 2 << 20
            let url = server.url("/bytes/\(count)?chunk-delay=20")
            let first = try FileDownload(
                url: url, to: folder + "/out.bin", transport: transport, options: testOptions())
            first.start()
            try await waitUntil { (first.progress?.completed ?? 0) >= 128 << 10 }
            first.suspend()
            try await waitUntil { first.state == .suspended }
            #expect(exists(first.sidecarPath))

            // When a new download of the same URL starts with resumesEarlierPartial off
            var options = testOptions()
            options.resumesEarlierPartial = false
            let summary = try await FileDownload(
                url: url, to: folder + "/out.bin", transport: transport, options: options
            )
            .run()

            // Then it downloads from zero, without a Range, to the right bytes
            #expect(summary.resumedFrom == 0)
            #expect(server.receivedRequests().last?.headerFields[.range] == nil)
            #expect(try contents(folder + "/out.bin") == pattern(0..<count))
        }
    }

    /// Also with `resumesEarlierPartial` off: that discards only what an earlier download left,
    /// never the bytes this one's own suspended run kept.
    @Test(arguments: [true, false])
    func suspendKeepsThePartialAndResumeContinuesFromIt(resumesEarlierPartial: Bool) async throws {
        try await withDownloadFixture { server, transport, folder in
            // Given a slow download (4 MiB, 20 ms per 64 KiB) under way
            let count = 4 << 20
            var options = testOptions()
            options.resumesEarlierPartial = resumesEarlierPartial
            let download = try FileDownload(
                url: server.url("/bytes/\(count)?chunk-delay=20"), to: folder + "/out.bin",
                transport: transport, options: options)
            let updates = download.stateUpdates
            let states = Task {
                var seen: [FileDownload.State] = []
                for await state in updates { seen.append(state) }
                return seen
            }
            download.start()
            try await waitUntil { (download.progress?.completed ?? 0) >= 256 << 10 }

            // When it is suspended
            download.suspend()
            try await waitUntil { download.state == .suspended }

            // Then the partial and the sidecar stay, and stop growing
            let kept = try #require(
                try FileManager.default.attributesOfItem(atPath: download.partialPath)[.size] as? Int)
            #expect(kept >= 256 << 10 && kept < count)
            #expect(exists(download.sidecarPath))
            try await Task.sleep(for: .milliseconds(200))
            #expect(
                try FileManager.default.attributesOfItem(atPath: download.partialPath)[.size] as? Int == kept)

            // And a resume continues from the bytes on disk to the end
            download.resume()
            let summary = try await download.value
            #expect(summary.resumedFrom == Int64(kept))
            #expect(try contents(folder + "/out.bin") == pattern(0..<count))
            #expect(server.receivedRequests().last?.headerFields[.range] == "bytes=\(kept)-")
            let seen = await states.value
            #expect(seen.map(\.description) == ["queued", "running", "suspended", "running", "completed"])
        }
    }

    @Test func cancelStopsTheTransferAndDeletesThePartial() async throws {
        try await withDownloadFixture { server, transport, folder in
            let download = try FileDownload(
                url: server.url("/bytes/\(4 << 20)?chunk-delay=20"), to: folder + "/out.bin",
                transport: transport, options: testOptions())
            download.start()
            try await waitUntil { (download.progress?.completed ?? 0) > 0 }

            download.cancel()

            let error = await #expect(throws: TransportError.self) { try await download.value }
            #expect(error?.category == .cancelled)
            #expect(download.state == .cancelled)
            for path in [download.destination, download.partialPath, download.sidecarPath] {
                #expect(!exists(path), "\(path) is left")
            }
        }
    }

    @Test func cancellingTheTaskThatRunsADownloadSuspendsIt() async throws {
        try await withDownloadFixture { server, transport, folder in
            let download = try FileDownload(
                url: server.url("/bytes/\(4 << 20)?chunk-delay=20"), to: folder + "/out.bin",
                transport: transport, options: testOptions())
            let runner = Task { try await download.run() }
            try await waitUntil { (download.progress?.completed ?? 0) > 0 }

            runner.cancel()

            let error = await #expect(throws: TransportError.self) { try await runner.value }
            #expect(error?.category == .cancelled)
            // `run()` returns only once the run has stopped and released the partial.
            #expect(download.state == .suspended)
            #expect(error?.message.contains("kept in \(download.partialPath)") == true)
            #expect(exists(download.partialPath))
        }
    }

    // MARK: - The manager

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

    // MARK: - parley-fetch

    @Test func parleyFetchSavesTheFileAndExitsZero() async throws {
        try await MockServer.withRunning { server in
            try await withTemporaryFolder { folder in
                let count = 300_000
                let digest = SHA256Hasher.hexDigest(of: pattern(0..<count))
                let run = try await ChildProcess.launch(
                    ChildProcess.siblingExecutable("parley-fetch"),
                    arguments: [server.url("/bytes/\(count)"), "--output", folder + "/out.bin", "--sha256", digest])
                #expect(run.status == 0, "\(run.output)")
                #expect(run.output.contains("saved \(folder)/out.bin (\(count) bytes, sha256 \(digest))"))
                #expect(try contents(folder + "/out.bin") == pattern(0..<count))
            }
        }
    }

    @Test func parleyFetchExitsNonZeroWithTheErrorMessage() async throws {
        try await MockServer.withRunning { server in
            try await withTemporaryFolder { folder in
                let run = try await ChildProcess.launch(
                    ChildProcess.siblingExecutable("parley-fetch"),
                    arguments: [server.url("/status/404"), "--output", folder + "/out.bin", "--quiet"])
                #expect(run.status == 1)
                #expect(run.output.hasPrefix("parley-fetch: error: "))
                #expect(run.output.contains("answered 404"))
                #expect(!exists(folder + "/out.bin"))
            }
        }
    }

    // MARK: - Helpers

    /// The JSON of a sidecar, as ``FileDownload`` writes it.
    private func sidecar(url: String, etag: String, total: Int) -> Data {
        let escapedTag = etag.replacingOccurrences(of: "\"", with: "\\\"")
        return Data(#"{"etag":"\#(escapedTag)","totalLength":\#(total),"url":"\#(url)","version":1}"#.utf8)
    }
}

/// Polls `condition` every 5 ms until it holds, failing after `timeout`.
func waitUntil(
    timeout: Duration = .seconds(30),
    sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            Issue.record("condition not met within \(timeout)", sourceLocation: sourceLocation)
            throw CancellationError()
        }
        try await Task.sleep(for: .milliseconds(5))
    }
}

/// `parley-fetch` killed with SIGKILL at random moments, against nginx: the strong ETags and
/// byte ranges of a real static-file server, and files made at test time in its root.
///
/// Serialized: each test keeps a core busy with a child process, and both at once on two cores
/// would starve the timing-sensitive tests that run beside them.
@Suite(.serialized, .enabled(if: ExternalServers.nginxAvailable, "nginx is not running: use `make test`"))
struct DownloadCrashTests {
    let plainURL: String
    let root: String

    init() throws {
        plainURL = try ExternalServers.require(ExternalServers.nginxURL, "PARLEY_NGINX_URL")
        root = try ExternalServers.require(ExternalServers.nginxRoot, "PARLEY_NGINX_ROOT")
    }

    @Test func resumesAfterRepeatedKill9sToAFileIdenticalToTheSource() async throws {
        // Given 128 MiB in nginx's root: a block of random bytes, 1 MiB and 13 bytes long,
        // repeated, so any duplicated, missing or shifted run of bytes changes the digest.
        var generator = SystemRandomNumberGenerator()
        var block = Data(count: (1 << 20) + 13)
        block.withUnsafeMutableBytes { bytes in
            for index in stride(from: 0, to: bytes.count - 7, by: 8) {
                bytes.storeBytes(of: generator.next() as UInt64, toByteOffset: index, as: UInt64.self)
            }
        }
        var repeated = Data()
        while repeated.count < 128 << 20 { repeated.append(block) }
        let source = repeated
        let name = "crash-\(UUID().uuidString).bin"
        let sourcePath = root + "/" + name
        try source.write(to: URL(fileURLWithPath: sourcePath))
        defer { try? FileManager.default.removeItem(atPath: sourcePath) }
        let digest = try await sha256sum(sourcePath)
        let fetch = try ChildProcess.siblingExecutable("parley-fetch")
        let url = plainURL + "/" + name

        try await withTemporaryFolder { folder in
            let destination = folder + "/copy.bin"
            let arguments = [url, "--output", destination, "--sha256", digest, "--quiet"]
            let clock = ContinuousClock()
            let started = clock.now

            // When parley-fetch is killed at least 10 times in a row
            let kills = try await onOwnThread {
                try killRepeatedly(fetch, arguments: arguments, destination: destination, source: source, times: 12)
            }

            // Then after every kill the partial was a prefix of the source, under a sidecar
            #expect(kills.sizes.count >= 10, "parley-fetch finished after only \(kills.sizes.count) kills")
            #expect(kills.violations.isEmpty, "\(kills.violations)")

            // And a last run completes with the source's digest, leaving no partial or sidecar
            let final = try await ChildProcess.launch(nice, arguments: ["-n", "19", fetch] + arguments.dropLast())
            #expect(final.status == 0, "\(final.output)")
            #expect(try await sha256sum(destination) == digest)
            #expect(try contents(destination) == source)
            #expect(!exists(destination + ".partial"))
            #expect(!exists(destination + ".partial.json"))
            print(
                "kill -9 test: \(kills.sizes.count) kills (partial at \(kills.sizes.map { $0 >> 10 }) KiB), then a "
                    + "complete run, in \(clock.now - started)")
        }
    }

    @Test func downloadsAGigabyteThroughAKillAndAResume() async throws {
        // Given a 1 GiB file in nginx's root: sparse, so all zeros and made at once
        let length = 1 << 30
        let name = "gigabyte-\(UUID().uuidString).bin"
        let sourcePath = root + "/" + name
        try #require(FileManager.default.createFile(atPath: sourcePath, contents: nil))
        defer { try? FileManager.default.removeItem(atPath: sourcePath) }
        try #require(truncate(sourcePath, off_t(length)) == 0)
        // `head -c 1073741824 /dev/zero | sha256sum`
        let digest = "49bc20df15e412a64472421e13fe86ff1c5165e18b2afccf160d4dc19fe68a14"
        let fetch = try ChildProcess.siblingExecutable("parley-fetch")

        try await withTemporaryFolder { folder in
            let destination = folder + "/gigabyte.bin"
            let arguments = [plainURL + "/" + name, "--output", destination, "--sha256", digest]
            let clock = ContinuousClock()
            let started = clock.now

            // When parley-fetch is killed somewhere in the middle
            let target = Int.random(in: (length / 4)...(3 * length / 4))
            let killed = try await onOwnThread {
                let process = try BackgroundProcess(
                    nice, arguments: ["-n", "19", fetch] + arguments, output: folder + "/first.log")
                while (fileSize(destination + ".partial") ?? 0) < target, process.isRunning { usleep(1000) }
                return process.kill()
            }
            #expect(killed, "parley-fetch finished before it could be killed")
            let kept = try #require(fileSize(destination + ".partial"))
            #expect(kept >= target && kept < length)

            // Then the next run resumes from there and ends with the right size and digest
            let final = try await ChildProcess.launch(nice, arguments: ["-n", "19", fetch] + arguments)
            #expect(final.status == 0, "\(final.output)")
            #expect(final.output.contains("resumed from \(kept)"))
            #expect(final.output.contains("sha256 \(digest)"))
            #expect(fileSize(destination) == length)
            #expect(try await onOwnThread { try isAllZeros(destination) })
            print("1 GiB test: killed at \(kept) bytes, resumed and verified in \(clock.now - started)")
        }
    }

    @Test func parleyFetchVerifiesTheServerWithTheGivenCA() async throws {
        let tlsURL = try ExternalServers.require(ExternalServers.nginxTLSURL, "PARLEY_NGINX_TLS_URL")
        let caFile = try ExternalServers.require(ExternalServers.testCA, "PARLEY_TEST_CA")
        let fetch = try ChildProcess.siblingExecutable("parley-fetch")
        try await withTemporaryFolder { folder in
            let destination = folder + "/small.bin"
            let refused = try await ChildProcess.launch(
                fetch, arguments: [tlsURL + "/small.bin", "--output", destination, "--quiet"])
            #expect(refused.status == 1)
            #expect(refused.output.contains("caFile"), "\(refused.output)")

            let run = try await ChildProcess.launch(
                fetch, arguments: [tlsURL + "/small.bin", "--output", destination, "--cacert", caFile])
            #expect(run.status == 0, "\(run.output)")
            #expect(try contents(destination) == contents(root + "/small.bin"))
        }
    }

}

/// Whether every byte of the file is zero, compared 8 MiB at a time with `memcmp`.
private func isAllZeros(_ path: String) throws -> Bool {
    let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
    defer { try? handle.close() }
    let zeros = Data(count: 8 << 20)
    while let chunk = try handle.read(upToCount: 8 << 20), !chunk.isEmpty {
        let same = chunk.withUnsafeBytes { bytes in
            zeros.withUnsafeBytes { zeros in
                guard let chunkBase = bytes.baseAddress, let zerosBase = zeros.baseAddress else { return true }
                return memcmp(chunkBase, zerosBase, bytes.count) == 0
            }
        }
        if !same { return false }
    }
    return true
}

/// The result of ``killRepeatedly(_:arguments:destination:source:times:)``.
private struct Kills: Sendable {
    /// The partial's size after each kill.
    var sizes: [Int] = []
    /// What was wrong with the files after a kill, if anything.
    var violations: [String] = []
}

/// Starts `path` and kills it with SIGKILL, `times` times or until a run finishes by itself;
/// checks after each kill that the partial is a prefix of `source` under its sidecar.
///
/// Half of the kills come after a random delay of up to 60 ms, often before the first byte
/// (while the process starts, connects or reads its sidecar); the others once the partial has
/// grown by a random 1 byte to 6 MiB. Blocking: run it with ``onOwnThread(_:)``.
private func killRepeatedly(
    _ path: String, arguments: [String], destination: String, source: Data, times: Int
) throws -> Kills {
    var generator = SystemRandomNumberGenerator()
    var kills = Kills()
    for run in 1...times {
        let sizeBefore = fileSize(destination + ".partial") ?? 0
        let process = try BackgroundProcess(
            nice, arguments: ["-n", "19", path] + arguments, output: destination + "-run-\(run).log")
        if Bool.random(using: &generator) {
            usleep(UInt32.random(in: 0...60_000, using: &generator))
        } else {
            let target = sizeBefore + Int.random(in: 1...(6 << 20), using: &generator)
            while (fileSize(destination + ".partial") ?? 0) < target, process.isRunning { usleep(1000) }
        }
        guard process.kill() else { break }  // it finished first
        let partial = (try? contents(destination + ".partial")) ?? Data()
        kills.sizes.append(partial.count)
        guard !partial.isEmpty else { continue }
        if partial.count > source.count || partial != source.prefix(partial.count) {
            kills.violations.append("run \(run): the \(partial.count)-byte partial is not a prefix of the source")
        }
        let record = (try? contents(destination + ".partial.json")).flatMap {
            try? JSONSerialization.jsonObject(with: $0) as? [String: Any]
        }
        if record?["url"] as? String != arguments.first || record?["totalLength"] as? Int != source.count
            || (record?["etag"] as? String)?.hasPrefix("\"") != true
        {
            kills.violations.append("run \(run): the sidecar does not describe the partial: \(record ?? [:])")
        }
    }
    return kills
}

/// The SHA-256 of a file as coreutils' `sha256sum` computes it: an independent implementation.
private func sha256sum(_ path: String) async throws -> String {
    let run = try await ChildProcess.launch(nice, arguments: ["-n", "19", "/usr/bin/sha256sum", path])
    try #require(run.status == 0, "sha256sum failed: \(run.output)")
    return String(run.output.prefix(64))
}

/// `nice`: the crash tests run their children through it at the lowest priority (`-n 19`), so a child
/// busy downloading or hashing yields the CPU to the timing-sensitive tests running beside it.
/// `nice` executes the program in its own process, so its pid is the program's.
private let nice = "/usr/bin/nice"

/// The size of the file at `path`, or `nil` when there is none.
///
/// Three cheap system calls (`open`, `lseek` to the end, `close`): the crash tests poll it
/// every millisecond, and `FileManager`'s attributes (which look up user and group names) would
/// keep a core busy.
private func fileSize(_ path: String) -> Int? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    let end = lseek(descriptor, 0, SEEK_END)
    return end < 0 ? nil : Int(end)
}

/// A process started in the background, with its output in a file, to be killed.
private final class BackgroundProcess {
    let pid: pid_t
    private var exited = false

    /// Starts `path` with `arguments`, its standard output and error going to `output`.
    init(_ path: String, arguments: [String], output: String) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
        try #require(spawned == 0, "could not start \(path): \(String(cString: strerror(spawned)))")
        self.pid = pid
    }

    /// Whether it is still running (reaping it if it has exited).
    var isRunning: Bool {
        guard !exited else { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { exited = true }
        return !exited
    }

    /// Sends SIGKILL and reaps it.
    ///
    /// - Returns: `true` when it was killed, `false` when it had already exited by itself.
    func kill() -> Bool {
        guard isRunning else { return false }
        _ = Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        exited = true
        // Killed by the signal, unless it exited between the check and the kill.
        return (status & 0x7F) == SIGKILL
    }
}
