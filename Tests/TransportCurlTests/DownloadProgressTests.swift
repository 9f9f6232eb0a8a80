import Downloads
import Foundation
import Glibc
import HTTPTypes
import MockBackend
import TestSupport
import Testing
import Transport
import TransportCurl

/// `FileDownload` on `CurlTransport` against the mock server's `/bytes` route and its switches:
/// the progress a download reports.
@Suite struct DownloadProgressTests {
    @Test func reportsMonotonicProgressAtABoundedRateWithExactlyOneFinalEvent() async throws {
        try await withDownloadFixture { server, transport, folder in
            // Given a body that takes about a second: 8 MiB, 5 ms after each 64 KiB
            let count = 8 << 20
            let callbacks = PThreadMutex<[TransferProgress]>([])
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
}
