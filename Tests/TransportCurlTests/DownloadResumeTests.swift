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
/// resuming after drops, restarts on a changed version, range answers.
@Suite struct DownloadResumeTests {
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
                url: url, to: folder + "/out.bin", transport: transport, options: testOptions(maximumRetries: 0))
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
            let events = LockedRecorder<TransferEvent>()
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
            let progress = PThreadMutex<[TransferProgress]>([])
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
}
