import Downloads
import Foundation
import HTTPTypes
import Retry
import TestSupport
import Testing
import Transport
import TransportTesting

/// The SHA-256 check of a download covers the file as it ends up on disk: the bytes a resumed
/// run started from, and only the version that was finally written.
@Suite struct DigestVerificationTests {
    let url = "http://127.0.0.1:9/file.bin"

    /// `count` bytes that differ from their neighbours.
    ///
    /// Written through a pointer: a `map` over the 24 MiB one below takes seconds in a debug
    /// build, on one of the cooperative pool's few threads that other tests' mock servers need.
    private func content(_ count: Int) -> Data {
        var data = Data(count: count)
        data.withUnsafeMutableBytes { bytes in
            guard let start = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
            for index in 0..<count { start[index] = UInt8(truncatingIfNeeded: index &* 31 &+ index / 251) }
        }
        return data
    }

    private func options(expecting digest: String) -> FileDownload.Options {
        var options = FileDownload.Options()
        options.expectedSHA256 = digest
        options.retry.baseDelay = .milliseconds(1)
        options.retry.budget = nil  // every test here asks the same host
        options.synchronizesToDisk = false
        return options
    }

    /// Writes `bytes` as the partial of `destination`, under a sidecar for version `"v1"`.
    private func keepPartial(_ bytes: Data, of destination: String, totalLength: Int) throws {
        try bytes.write(to: URL(fileURLWithPath: destination + ".partial"))
        try Data(#"{"etag":"\"v1\"","totalLength":\#(totalLength),"url":"\#(url)","version":1}"#.utf8)
            .write(to: URL(fileURLWithPath: destination + ".partial.json"))
    }

    @Test func aResumedDownloadIsVerifiedWithTheBytesItStartedFrom() async throws {
        try await withTemporaryFolder { folder in
            // Given 400 of 1000 bytes kept, and a server that sends the other 600
            let destination = folder + "/file.bin"
            let file = content(1000)
            try keepPartial(file.prefix(400), of: destination, totalLength: 1000)
            let transport = StubTransport(
                always: .init(
                    status: .partialContent, headers: [.contentRange: "bytes 400-999/1000", .eTag: "\"v1\""],
                    body: file.suffix(600)))
            let digest = SHA256Hasher.hexDigest(of: file)

            // When it resumes, expecting the whole file's digest
            let summary = try await FileDownload(
                url: url, to: destination, transport: transport, options: options(expecting: digest)
            ).run()

            // Then the digest of all 1000 bytes matched
            #expect(summary.resumedFrom == 400)
            #expect(summary.sha256 == digest)
            #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == file)
        }
    }

    @Test func keptBytesThatDifferFromTheServersFailTheCheck() async throws {
        try await withTemporaryFolder { folder in
            // Given 400 kept bytes that are not the server's (damaged on disk)
            let destination = folder + "/file.bin"
            let file = content(1000)
            try keepPartial(Data(repeating: 0xEE, count: 400), of: destination, totalLength: 1000)
            let transport = StubTransport(
                always: .init(
                    status: .partialContent, headers: [.contentRange: "bytes 400-999/1000", .eTag: "\"v1\""],
                    body: file.suffix(600)))

            // When it resumes, expecting the server's digest
            let download = try FileDownload(
                url: url, to: destination, transport: transport,
                options: options(expecting: SHA256Hasher.hexDigest(of: file)))
            let error = await #expect(throws: TransportError.self) { try await download.run() }

            // Then the damaged bytes were read back and hashed, and the check failed
            #expect(error?.category == .checksumMismatch)
            #expect(!FileManager.default.fileExists(atPath: destination))
            #expect(!FileManager.default.fileExists(atPath: destination + ".partial"))
        }
    }

    @Test func aNewVersionStartsTheDigestOver() async throws {
        try await withTemporaryFolder { folder in
            // Given 400 kept bytes of version v1, and a server that now sends all of v2 with a 200
            let destination = folder + "/file.bin"
            try keepPartial(content(400), of: destination, totalLength: 1000)
            let second = Data(content(1200).reversed())
            let transport = StubTransport(always: .init(headers: [.eTag: "\"v2\""], body: second))

            // When it runs, expecting v2's digest
            let summary = try await FileDownload(
                url: url, to: destination, transport: transport,
                options: options(expecting: SHA256Hasher.hexDigest(of: second))
            ).run()

            // Then only v2's bytes were hashed
            #expect(summary.resumedFrom == 400)
            #expect(summary.byteCount == 1200)
            #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == second)
        }
    }

    @Test func aBodyLargerThanTheHashingBacklogIsHashedWhole() async throws {
        try await withTemporaryFolder { folder in
            // Given a body three times the bytes that may wait to be hashed
            let destination = folder + "/file.bin"
            let file = content(3 * 8 << 20)
            let transport = StubTransport(always: .init(headers: [.eTag: "\"v1\""], body: file))

            // When it is downloaded with its digest expected
            let summary = try await FileDownload(
                url: url, to: destination, transport: transport,
                options: options(expecting: SHA256Hasher.hexDigest(of: file))
            ).run()

            // Then every byte was hashed, in order
            #expect(summary.byteCount == Int64(file.count))
        }
    }
}
