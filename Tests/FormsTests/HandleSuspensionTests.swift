import Downloads
import Forms
import Foundation
import HTTPTypes
import MockBackend
import Synchronization
import TestSupport
import Testing
import Transport
import TransportCurl

/// Suspending and resuming the handles a client returns, on the real engine: a download (its
/// body streams to a file through the engine's stream buffer) and an upload. Each waits a while
/// and checks that no byte moved meanwhile; none measures a time.
@Suite struct HandleSuspensionTests {
    /// A 64 MiB upload to the mock server's `/upload`, which reads and hashes it. The bytes are
    /// the test's own, freed with it, not a process-wide constant.
    struct BigUpload: UploadDataFormable {
        let data = Data(BytePattern.bytes(0..<(64 << 20)))
        var path: String { "/upload" }
        var method: HTTPRequest.Method { .post }
        var contentType: String { "application/octet-stream" }
    }

    /// The latest progress a handle reported, in one direction.
    final class Progress: Sendable {
        let completed = Atomic<Int64>(0)
        var now: Int64 { completed.load(ordering: .relaxed) }
    }

    private func withClient(_ body: (MockServer, Screen) async throws -> Void) async throws {
        try await MockServer.withRunning { server in
            let transport = try CurlTransport()
            let screen = Screen(clientConfiguration: ClientConfiguration(transport: transport, baseURL: server.baseURL))
            do {
                try await body(server, screen)
            } catch {
                await transport.shutdown()
                throw error
            }
            await transport.shutdown()
        }
    }

    /// Waits for what was under way to settle, then checks that nothing moves over a further
    /// interval.
    private func expectStandsStill(_ progress: Progress, below total: Int64) async throws {
        try await Task.sleep(for: .milliseconds(400))
        let held = progress.now
        try await Task.sleep(for: .milliseconds(700))
        #expect(progress.now == held, "bytes moved while suspended")
        #expect(held < total)
    }

    /// Checked to fail: with the download's runner dropping the handle's suspension
    /// (`withoutCurrent` in place of `keepingSuspension`), or the stream buffer's reads not
    /// registering their suspender, the file keeps growing while suspended.
    @Test func aSuspendedDownloadStopsWritingAndResumesToTheWholeFile() async throws {
        try await withTemporaryFolder { path in
            try await withClient { _, screen in
                let count = 8 << 20
                let destination = URL(fileURLWithPath: path).appendingPathComponent("big.bin")
                let progress = Progress()
                let download = screen.download(
                    PatternDownload(count: count, destination: destination, query: ["chunk-delay": 10]),
                    startImmediately: false)
                download.observe { event in
                    if case .transfer(.downloadProgress(let reported)) = event {
                        progress.completed.store(reported.completed, ordering: .relaxed)
                    }
                }
                download.start()
                try await waitUntil { progress.now >= 256 << 10 }

                download.suspend()
                try await expectStandsStill(progress, below: Int64(count))

                download.resume()
                let summary = try await download.value
                #expect(summary.byteCount == Int64(count))
                #expect(try Data(contentsOf: destination) == Data(BytePattern.bytes(0..<count)))
            }
        }
    }

    /// Checked to fail: with `onRead` ignoring `isSuspended` and `applySuspension` not pausing,
    /// the upload's byte count grows while suspended.
    @Test func aSuspendedUploadStopsSendingAndResumesToTheWholeBody() async throws {
        try await withClient { _, screen in
            let form = BigUpload()
            let total = Int64(form.data.count)
            let progress = Progress()
            let suspendedOnce = Atomic(false)
            let upload = screen.upload(form, startImmediately: false)
            upload.observe { [weak upload] event in
                guard case .transfer(.uploadProgress(let reported)) = event else { return }
                progress.completed.store(reported.completed, ordering: .relaxed)
                // On the engine's thread, as the first bytes leave; once.
                guard reported.completed > 0,
                    suspendedOnce.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
                else { return }
                upload?.suspend()
            }
            upload.start()
            try await waitUntil { upload.isSuspended }
            try await expectStandsStill(progress, below: total)

            upload.resume()
            #expect(!upload.isSuspended)
            let response = try await upload.value
            #expect(response.status == .ok)
            let summary = try JSONSerialization.jsonObject(with: response.body) as? [String: Any]
            #expect(summary?["bodyLength"] as? Int == Int(total))
        }
    }
}
