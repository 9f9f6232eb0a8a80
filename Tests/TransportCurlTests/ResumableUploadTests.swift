import Downloads
import Foundation
import HTTPTypes
import MockBackend
import Retry
import Synchronization
import TestSupport
import Testing
import Transport
import TransportCurl

/// Resumable uploads against the mock server's `/resumable`, which implements the server side
/// of draft-ietf-httpbis-resumable-upload-05 and reports the SHA-256 of what it received.
struct ResumableUploadTests {
    /// A file of `count` pseudo-random bytes in `folder`, and its SHA-256.
    private static func makeFile(in folder: String, count: Int) throws -> (path: String, sha256: String) {
        var generator = SystemRandomNumberGenerator()
        var data = Data(count: count)
        data.withUnsafeMutableBytes { bytes in
            for index in 0..<bytes.count { bytes[index] = UInt8.random(in: 0...255, using: &generator) }
        }
        let path = folder + "/source.bin"
        try data.write(to: URL(fileURLWithPath: path))
        var hasher = SHA256Hasher()
        data.withUnsafeBytes { hasher.update($0) }
        return (path, hasher.finalizeHex())
    }

    private static func options(maximumRetries: Int = 3) -> ResumableUpload.Options {
        var options = ResumableUpload.Options()
        options.retry.maximumRetries = maximumRetries
        options.retry.baseDelay = .milliseconds(10)
        options.retry.budget = nil
        return options
    }

    /// What the server holds for an upload resource: `{"offset", "complete", "deleted", "sha256"}`.
    private static func serverState(of uploadURL: String, transport: CurlTransport) async throws -> [String: Any] {
        let response = try await transport.data(for: try TransportRequest(method: .get, url: uploadURL))
        return try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
    }

    @Test func uploadsAWholeFileByteExact() async throws {
        try await withDownloadFixture { server, transport, folder in
            // Given a 3 MB file
            let file = try Self.makeFile(in: folder, count: 3_000_000)

            // When it is uploaded
            let summary = try await ResumableUpload(
                file: file.path, to: server.url("/resumable"), transport: transport, options: Self.options()
            ).run()

            // Then the server answered 201, holds exactly the file, and the sidecar is gone
            #expect(summary.response.status.code == 201)
            #expect(summary.requestCount == 1)
            let uploadURL = try #require(summary.uploadURL)
            let state = try await Self.serverState(of: uploadURL, transport: transport)
            #expect(state["sha256"] as? String == file.sha256)
            #expect(state["complete"] as? Bool == true)
            #expect(!exists(ResumableUpload.sidecarPath(of: file.path)))
        }
    }

    @Test func surfacesThe104AndItsLocationBeforeTheFinalResponse() async throws {
        try await withDownloadFixture { server, transport, _ in
            // Given a creation request that records the engine's events
            let interim = Mutex<[HTTPResponse]>([])
            var request = try TransportRequest(method: .post, url: server.url("/resumable"))
            request.head.headerFields[HTTPField.Name("Upload-Complete")!] = "?1"
            request.body = .bytes(Data(repeating: 7, count: 1000))
            request.options.eventHandler = { event in
                if case .informationalResponse(let head) = event { interim.withLock { $0.append(head) } }
            }

            // When it is sent
            let response = try await transport.data(for: request)

            // Then the 104 arrived as an event, with its Location, and the final head is the 201's
            let heads = interim.withLock { $0 }
            #expect(heads.map(\.status.code) == [104])
            #expect(heads.first?.headerFields[.location]?.hasPrefix("/resumable/") == true)
            #expect(response.head.status.code == 201)
            #expect(response.head.headerFields[.location] == heads.first?.headerFields[.location])
        }
    }

    @Test func resumesADroppedUploadFromTheServersOffsetTakenFromThe104() async throws {
        try await withDownloadFixture { server, transport, folder in
            // Given a server that drops the connection once it holds 1,000,000 bytes; only its
            // 104 gives the upload's URL, since no final response arrives
            let file = try Self.makeFile(in: folder, count: 3_000_000)

            // When the file is uploaded
            let summary = try await ResumableUpload(
                file: file.path, to: server.url("/resumable?drop-after=1000000"), transport: transport,
                options: Self.options()
            ).run()

            // Then the retry asked for the offset and sent the rest from there: byte-exact
            #expect(summary.resumedFrom == 1_000_000)
            #expect(summary.requestCount == 3)  // POST, HEAD, PATCH
            let state = try await Self.serverState(of: try #require(summary.uploadURL), transport: transport)
            #expect(state["sha256"] as? String == file.sha256)
            #expect(state["complete"] as? Bool == true)
            #expect(summary.response.headerFields[HTTPField.Name("Upload-Complete")!] == "?1")
        }
    }

    @Test func asksTheOffsetAgainAfterA409() async throws {
        try await withDownloadFixture { server, transport, folder in
            // Given a drop, then a 409 without the server's offset on the first append
            let file = try Self.makeFile(in: folder, count: 2_000_000)

            // When the file is uploaded
            let summary = try await ResumableUpload(
                file: file.path, to: server.url("/resumable?drop-after=700000&conflict=1"), transport: transport,
                options: Self.options()
            ).run()

            // Then the client asked again (POST, HEAD, PATCH 409, HEAD, PATCH) and the bytes are exact
            #expect(summary.requestCount == 5)
            let state = try await Self.serverState(of: try #require(summary.uploadURL), transport: transport)
            #expect(state["sha256"] as? String == file.sha256)
        }
    }

    @Test func failsWithResumptionUnsupportedWhenTheServerOffersNone() async throws {
        try await withDownloadFixture { server, transport, folder in
            // Given a server that knows nothing of the draft and drops the connection mid-way
            let file = try Self.makeFile(in: folder, count: 2_000_000)

            // When the file is uploaded, Then the run says the server cannot resume
            let error = await #expect(throws: TransportError.self) {
                try await ResumableUpload(
                    file: file.path, to: server.url("/resumable?unsupported=1&drop-after=500000"),
                    transport: transport, options: Self.options()
                ).run()
            }
            #expect(error?.category == .resumptionUnsupported)
            #expect(!exists(ResumableUpload.sidecarPath(of: file.path)))
        }
    }

    @Test func refusesToResumeAFileThatChangedAndFindsADeletedUploadGone() async throws {
        try await withDownloadFixture { server, transport, folder in
            // Given a run that stopped after a drop (no retries), leaving its sidecar
            let file = try Self.makeFile(in: folder, count: 1_000_000)
            let upload = ResumableUpload(
                file: file.path, to: server.url("/resumable?drop-after=300000"), transport: transport,
                options: Self.options(maximumRetries: 0))
            await #expect(throws: TransportError.self) { try await upload.run() }
            let sidecarPath = ResumableUpload.sidecarPath(of: file.path)
            let sidecar = try #require(
                try JSONSerialization.jsonObject(with: contents(sidecarPath)) as? [String: Any])
            let uploadURL = try #require(sidecar["uploadURL"] as? String)

            // When the resource is deleted on the server, Then a new run finds it gone
            _ = try await transport.data(for: try TransportRequest(method: .delete, url: uploadURL))
            let gone = await #expect(throws: TransportError.self) { try await upload.run() }
            #expect(gone?.category == .uploadGone)
            #expect(!exists(sidecarPath))

            // And when a sidecar names a file that has changed since, Then the run refuses it
            await #expect(throws: TransportError.self) { try await upload.run() }
            #expect(exists(sidecarPath))
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file.path))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data([1]))
            try handle.close()
            let changed = await #expect(throws: TransportError.self) { try await upload.run() }
            #expect(changed?.category == .uploadSourceChanged)

            // And cancelling deletes the upload on the server and removes the sidecar
            let recorded = try #require(
                try JSONSerialization.jsonObject(with: contents(sidecarPath)) as? [String: Any])
            #expect(try await upload.cancel())
            #expect(!exists(sidecarPath))
            let state = try await Self.serverState(
                of: try #require(recorded["uploadURL"] as? String), transport: transport)
            #expect(state["deleted"] as? Bool == true)
        }
    }
}
