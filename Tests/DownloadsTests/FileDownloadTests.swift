import Downloads
import Foundation
import HTTPTypes
import Retry
import TestSupport
import Testing
import Transport
import TransportTesting

/// `count` bytes that differ from their neighbours, so a shifted or duplicated byte shows.
private func content(_ count: Int, seed: Int = 0) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: ($0 &+ seed) &* 7 &+ $0 / 256) })
}

/// Quick retries, a budget of their own (every test here asks the same host), no flushing.
private func options(maximumRetries: Int = 3) -> FileDownload.Options {
    var options = FileDownload.Options()
    options.retry.maximumRetries = maximumRetries
    options.retry.baseDelay = .milliseconds(1)
    options.retry.budget = nil
    options.synchronizesToDisk = false
    return options
}

/// Behaviour that needs no network, against ``StubTransport``; the engine and real servers are
/// covered in TransportCurlTests.
@Suite struct FileDownloadTests {
    let url = "http://127.0.0.1:9/file.bin"

    @Test func aPartialWithoutASidecarIsNotTrusted() async throws {
        try await withTemporaryFolder { folder in
            // Given a partial with bytes but no record of where they came from
            let destination = folder + "/file.bin"
            let body = content(1000)
            try Data(repeating: 0xEE, count: 300).write(to: URL(fileURLWithPath: destination + ".partial"))
            let transport = StubTransport(always: .init(headers: [.eTag: "\"v1\""], body: body))

            // When it is downloaded
            let summary = try await FileDownload(url: url, to: destination, transport: transport, options: options())
                .run()

            // Then it asked for the whole file and wrote exactly that
            #expect(transport.requests.count == 1)
            #expect(transport.requests.first?.head.headerFields[.range] == nil)
            #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == body)
            #expect(summary.resumedFrom == 0)
            #expect(!FileManager.default.fileExists(atPath: destination + ".partial"))
            #expect(!FileManager.default.fileExists(atPath: destination + ".partial.json"))
        }
    }

    @Test func aPartialLongerThanTheRecordedLengthIsCutAndA416CompletesIt() async throws {
        try await withTemporaryFolder { folder in
            // Given the whole file plus 200 stray bytes, under a sidecar for 1000 bytes
            let destination = folder + "/file.bin"
            let body = content(1000)
            try (body + Data(repeating: 0xEE, count: 200)).write(to: URL(fileURLWithPath: destination + ".partial"))
            try Data(#"{"etag":"\"v1\"","totalLength":1000,"url":"\#(url)","version":1}"#.utf8)
                .write(to: URL(fileURLWithPath: destination + ".partial.json"))
            let transport = StubTransport(
                always: .init(status: .rangeNotSatisfiable, headers: [.contentRange: "bytes */1000", .eTag: "\"v1\""]))

            // When it is downloaded
            let summary = try await FileDownload(url: url, to: destination, transport: transport, options: options())
                .run()

            // Then it asked for the bytes after the recorded length and took the 416 as success
            let request = try #require(transport.requests.first)
            #expect(request.head.headerFields[.range] == "bytes=1000-")
            #expect(request.head.headerFields[.ifRange] == "\"v1\"")
            #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == body)
            #expect(summary.resumedFrom == 1000)
            #expect(summary.byteCount == 1000)
        }
    }

    @Test func aSidecarForAnotherURLIsNotTrusted() async throws {
        try await withTemporaryFolder { folder in
            let destination = folder + "/file.bin"
            let body = content(1000)
            try body.prefix(400).write(to: URL(fileURLWithPath: destination + ".partial"))
            try Data(#"{"etag":"\"v1\"","totalLength":1000,"url":"http://127.0.0.1:9/other","version":1}"#.utf8)
                .write(to: URL(fileURLWithPath: destination + ".partial.json"))
            let transport = StubTransport(always: .init(headers: [.eTag: "\"v1\""], body: body))

            _ = try await FileDownload(url: url, to: destination, transport: transport, options: options()).run()

            #expect(transport.requests.first?.head.headerFields[.range] == nil)
            #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == body)
        }
    }

    @Test func retriesAFailingServerUpToTheLimitAndKeepsThePartial() async throws {
        try await withTemporaryFolder { folder in
            let destination = folder + "/file.bin"
            // The first answer ends after 10 of its 100 bytes; every later one is a 503.
            let answered = PThreadMutex(0)
            let transport = StubTransport { _ in
                let first = answered.withLock { count in
                    defer { count += 1 }
                    return count == 0
                }
                guard first else { return .init(status: .serviceUnavailable) }
                return .init(headers: [.eTag: "\"v1\"", .contentLength: "100"], body: Data(repeating: 7, count: 10))
            }
            let download = try FileDownload(
                url: url, to: destination, transport: transport, options: options(maximumRetries: 2))

            let error = await #expect(throws: TransportError.self) { try await download.run() }

            #expect(error?.category == .downloadFailed)
            #expect(error?.message.contains("503") == true)
            #expect(error?.message.contains("Gave up after 3 attempts") == true)
            #expect(error?.message.contains("10 bytes are kept") == true)
            #expect(transport.requests.count == 3)
            #expect(try Data(contentsOf: URL(fileURLWithPath: download.partialPath)) == Data(repeating: 7, count: 10))
            #expect(FileManager.default.fileExists(atPath: download.sidecarPath))
            guard case .failed = download.state else {
                Issue.record("state is \(download.state)")
                return
            }
        }
    }

    @Test func aStatusThatNoRetryCanFixFailsAtOnce() async throws {
        try await withTemporaryFolder { folder in
            let transport = StubTransport(always: .init(status: .notFound))
            let download = try FileDownload(
                url: url, to: folder + "/file.bin", transport: transport, options: options())

            let error = await #expect(throws: TransportError.self) { try await download.run() }

            #expect(error?.category == .downloadFailed)
            #expect(error?.message.contains("404") == true)
            #expect(transport.requests.count == 1)
            // Nothing arrived: no empty partial or sidecar is left behind.
            #expect(!FileManager.default.fileExists(atPath: download.partialPath))
            #expect(!FileManager.default.fileExists(atPath: download.sidecarPath))
        }
    }

    @Test func anEarlierPartialIsKeptWhenAnAttemptFailsAtOnce() async throws {
        try await withTemporaryFolder { folder in
            // Given a partial an earlier download left (bytes without a sidecar count for
            // nothing, but the file is the caller's, not this run's)
            let destination = folder + "/file.bin"
            try Data(repeating: 1, count: 50).write(to: URL(fileURLWithPath: destination + ".partial"))
            let transport = StubTransport(always: .init(status: .notFound))
            let download = try FileDownload(url: url, to: destination, transport: transport, options: options())

            await #expect(throws: TransportError.self) { try await download.run() }

            #expect(FileManager.default.fileExists(atPath: download.partialPath))
        }
    }

    @Test func aMalformedExpectedDigestFailsBeforeAnyRequest() async throws {
        try await withTemporaryFolder { folder in
            let transport = StubTransport(always: .init(body: content(10)))
            var options = options()
            options.expectedSHA256 = "not-a-digest"
            let download = try FileDownload(url: url, to: folder + "/file.bin", transport: transport, options: options)

            let error = await #expect(throws: TransportError.self) { try await download.run() }

            #expect(error?.category == .downloadFailed)
            #expect(error?.mayHaveReachedServer == false)
            #expect(transport.requests.isEmpty)
        }
    }

    @Test func aWrongDigestDeletesThePartialAndNeverCreatesTheDestination() async throws {
        try await withTemporaryFolder { folder in
            let destination = folder + "/file.bin"
            let transport = StubTransport(always: .init(headers: [.eTag: "\"v1\""], body: content(5000)))
            var options = options()
            options.expectedSHA256 = String(repeating: "0", count: 64)
            let download = try FileDownload(url: url, to: destination, transport: transport, options: options)

            let error = await #expect(throws: TransportError.self) { try await download.run() }

            #expect(error?.category == .checksumMismatch)
            #expect(error?.message.contains(SHA256Hasher.hexDigest(of: content(5000))) == true)
            for path in [destination, destination + ".partial", destination + ".partial.json"] {
                #expect(!FileManager.default.fileExists(atPath: path), "\(path) exists")
            }
        }
    }

    @Test func cancellingADownloadThatNeverRanDeletesItsFiles() async throws {
        try await withTemporaryFolder { folder in
            let destination = folder + "/file.bin"
            try Data(count: 10).write(to: URL(fileURLWithPath: destination + ".partial"))
            try Data("{}".utf8).write(to: URL(fileURLWithPath: destination + ".partial.json"))
            let download = try FileDownload(
                url: url, to: destination, transport: StubTransport(always: .init()), options: options())

            download.cancel()

            #expect(download.state == .cancelled)
            #expect(!FileManager.default.fileExists(atPath: destination + ".partial"))
            #expect(!FileManager.default.fileExists(atPath: destination + ".partial.json"))
            let error = await #expect(throws: TransportError.self) { try await download.value }
            #expect(error?.category == .cancelled)
        }
    }

    @Test func twoDownloadsToOneDestinationCannotInterleave() async throws {
        try await withTemporaryFolder { folder in
            let destination = folder + "/file.bin"
            // The first download's server answers only when released, holding its lock meanwhile.
            let (release, released) = AsyncStream.makeStream(of: Void.self)
            let slow = StubTransport { _ in
                for await _ in release { break }
                return .init(headers: [.eTag: "\"v1\""], body: content(100))
            }
            let first = try FileDownload(url: url, to: destination, transport: slow, options: options())
            first.start()
            while slow.requests.isEmpty { try await Task.sleep(for: .milliseconds(5)) }

            let second = try FileDownload(
                url: url, to: destination, transport: StubTransport(always: .init(body: content(100))),
                options: options())
            let error = await #expect(throws: TransportError.self) { try await second.run() }
            #expect(error?.category == .downloadFailed)
            #expect(error?.message.contains("Another download is already writing") == true)

            released.yield()
            #expect(try await first.value.byteCount == 100)
        }
    }
}
