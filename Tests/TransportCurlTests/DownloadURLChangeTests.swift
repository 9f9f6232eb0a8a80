import Downloads
import Foundation
import HTTPTypes
import MockBackend
import Synchronization
import TestSupport
import Testing
import Transport
import TransportCurl

/// Downloads whose URL changes: a partial continued from a new URL for the same resource when
/// its record proves the bytes, and a signed URL refreshed when the server says it expired.
@Suite struct DownloadURLChangeTests {
    @Test func aPartialOfAnotherURLIsContinuedWhenItsRecordProvesTheBytes() async throws {
        try await withDownloadFixture { server, transport, folder in
            // Given the first half of a file, recorded for a URL whose signature has changed since
            let count = 1 << 20
            let old = server.url("/bytes/\(count)?signature=old")
            let new = server.url("/bytes/\(count)?signature=new")
            let destination = folder + "/out.bin"
            try pattern(0..<(count / 2)).write(to: URL(fileURLWithPath: destination + ".partial"))
            try sidecar(url: old, etag: "\"pattern-\(count)\"", total: count).write(
                to: URL(fileURLWithPath: destination + ".partial.json"))
            var options = testOptions()
            options.resumesPartialOfAnotherURL = true

            // When the new URL is downloaded
            let summary = try await FileDownload(url: new, to: destination, transport: transport, options: options)
                .run()

            // Then only the rest was asked for, under the recorded ETag, and the file is whole
            let requests = server.receivedRequests()
            try #require(requests.count == 1)
            #expect(requests[0].headerFields[.range] == "bytes=\(count / 2)-")
            #expect(requests[0].headerFields[.ifRange] == "\"pattern-\(count)\"")
            #expect(summary.resumedFrom == Int64(count / 2))
            #expect(try contents(destination) == pattern(0..<count))
        }
    }

    @Test func withoutConsentOrProofThePartialOfAnotherURLIsDiscarded() async throws {
        try await withDownloadFixture { server, transport, folder in
            let count = 1 << 20
            let old = server.url("/bytes/\(count)?signature=old")
            let new = server.url("/bytes/\(count)?signature=new&signature-uses=2")
            for (consents, recordsLength) in [(false, true), (true, false)] {
                let destination = folder + "/out-\(consents)-\(recordsLength).bin"
                try pattern(0..<4096).write(to: URL(fileURLWithPath: destination + ".partial"))
                let record =
                    recordsLength
                    ? sidecar(url: old, etag: "\"pattern-\(count)\"", total: count)
                    : Data(#"{"etag":"\"pattern-\#(count)\"","url":"\#(old)","version":1}"#.utf8)
                try record.write(to: URL(fileURLWithPath: destination + ".partial.json"))
                var options = testOptions()
                options.resumesPartialOfAnotherURL = consents
                let summary = try await FileDownload(
                    url: new, to: destination, transport: transport, options: options
                ).run()
                #expect(summary.resumedFrom == 0)
                #expect(try contents(destination) == pattern(0..<count))
            }
            #expect(server.receivedRequests().allSatisfy { $0.headerFields[.range] == nil })
        }
    }

    @Test func anExpiredSignedURLIsRefreshedAndTheDownloadResumesFromIt() async throws {
        try await withDownloadFixture { server, transport, folder in
            // Given a signed URL good for one request, which the server drops after 400 kB
            let count = 2 << 20
            let key = UUID().uuidString
            let first = server.url("/bytes/\(count)?signature=s1&drop-after=400000&key=\(key)")
            let fresh = server.url("/bytes/\(count)?signature=s2&key=\(key)")
            let asked = Mutex<[String]>([])
            var options = testOptions()
            options.refreshURL = { expired, refusal in
                asked.withLock { $0.append("\(refusal.status.code) \(expired)") }
                return fresh
            }

            // When it runs
            let destination = folder + "/out.bin"
            let summary = try await FileDownload(
                url: first, to: destination, transport: transport, options: options
            ).run()

            // Then the retry met the expired signature, a new URL was asked for once, and the rest
            // came from it under the same ETag
            #expect(asked.withLock { $0 } == ["403 \(first)"])
            let requests = server.receivedRequests()
            try #require(requests.count == 3)
            #expect(requests[2].path.contains("signature=s2"))
            let range = try #require(requests[2].headerFields[.range])
            #expect(range.hasPrefix("bytes=") && range != "bytes=0-")
            #expect(requests[2].headerFields[.ifRange] == "\"pattern-\(count)\"")
            #expect(summary.resumedFrom == 0)
            #expect(summary.requestCount == 3)
            #expect(try contents(destination) == pattern(0..<count))
        }
    }

    @Test func aRefusalStandsWhenNoNewURLComes() async throws {
        try await withDownloadFixture { server, transport, folder in
            let count = 1 << 20
            let url = server.url("/bytes/\(count)?signature=gone&signature-uses=0")
            var options = testOptions()
            options.refreshURL = { _, _ in nil }
            let error = await #expect(throws: TransportError.self) {
                try await FileDownload(url: url, to: folder + "/out.bin", transport: transport, options: options).run()
            }
            #expect(error?.category == .downloadFailed)
            #expect(error?.message.contains("403") == true)
            #expect(server.receivedRequests().count == 1)

            // And a closure that keeps giving expired URLs is asked at most three times.
            let calls = Mutex(0)
            options.refreshURL = { _, _ in
                let call = calls.withLock { value in
                    value += 1
                    return value
                }
                return server.url("/bytes/\(count)?signature=gone-\(call)&signature-uses=0")
            }
            await #expect(throws: TransportError.self) {
                try await FileDownload(url: url, to: folder + "/again.bin", transport: transport, options: options)
                    .run()
            }
            #expect(calls.withLock { $0 } == 3)
        }
    }

    @Test func credentialsStayWithTheirOriginWhenTheURLMovesToAnother() async throws {
        try await withDownloadFixture { server, transport, folder in
            let count = 64 << 10
            // The same server under another name: localhost instead of 127.0.0.1.
            let fresh = server.url("/bytes/\(count)?signature=elsewhere").replacingOccurrences(
                of: "127.0.0.1", with: "localhost")
            var options = testOptions()
            options.refreshURL = { _, _ in fresh }
            var request = try TransportRequest(
                method: .get, url: server.url("/bytes/\(count)?signature=mine&signature-uses=0"),
                headers: ["Authorization": "Bearer secret"])
            request.options.decodesContent = false
            let download = FileDownload(
                request: request, to: folder + "/out.bin", transport: transport, options: options)
            _ = try await download.run()
            let requests = server.receivedRequests()
            try #require(requests.count == 2)
            #expect(requests[0].headerFields[.authorization] == "Bearer secret")
            #expect(requests[1].headerFields[.authorization] == nil)
        }
    }
}
