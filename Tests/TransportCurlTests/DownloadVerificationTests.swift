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
/// what a download checks before it keeps a file: Retry-After waits and SHA-256 digests.
@Suite struct DownloadVerificationTests {
    @Test func waitsTheRetryAfterOfA503AndGivesUpAtOnceWhenItIsTooLong() async throws {
        try await withDownloadFixture { server, transport, folder in
            // Given a server that answers 503 with Retry-After: 1 once
            var options = testOptions()
            let retries = PThreadMutex<[Int]>([])
            options.retryHandler = { retry, failure in
                #expect(failure.message.contains("503"))
                // The wait is the server's second, longer than the first backoff, and says so.
                #expect(retry.delay.map { $0 >= .seconds(1) } == true)
                #expect(retry.serverAsked)
                retries.withLock { $0.append(retry.attempt) }
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
            #expect(failure?.category == .retryAfterTooLong)
            #expect(failure?.message.contains("asked to wait 60 min") == true)
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
}
