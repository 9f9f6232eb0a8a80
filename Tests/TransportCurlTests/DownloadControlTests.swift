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

/// `FileDownload` on `CurlTransport` against the mock server's `/bytes` route and its switches:
/// suspending, resuming, cancelling and discarding a download.
@Suite struct DownloadControlTests {
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
}
