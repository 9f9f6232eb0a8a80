import Downloads
import Foundation
import Glibc
import HTTPTypes
import MockBackend
import TestSupport
import Testing
import Transport
import TransportCurl

/// `parley-fetch --upload` killed with SIGKILL in the middle of a resumable upload, then run
/// again: the second run resumes from the server's offset and the server ends with the file's
/// exact bytes.
@Suite(.serialized)
struct ResumableUploadCrashTests {
    @Test func aRunAfterAKill9ResumesFromTheServersOffsetByteExact() async throws {
        try await withDownloadFixture { server, transport, folder in
            // Given an 8 MB file of random bytes, and a server that reads it slowly
            var generator = SystemRandomNumberGenerator()
            var data = Data(count: 8_000_000)
            data.withUnsafeMutableBytes { bytes in
                for index in stride(from: 0, to: bytes.count - 7, by: 8) {
                    bytes.storeBytes(of: generator.next() as UInt64, toByteOffset: index, as: UInt64.self)
                }
            }
            let path = folder + "/crash.bin"
            try data.write(to: URL(fileURLWithPath: path))
            var hasher = SHA256Hasher()
            data.withUnsafeBytes { hasher.update($0) }
            let digest = hasher.finalizeHex()
            let fetch = try ChildProcess.siblingExecutable("parley-fetch")
            let url = server.url("/resumable?pace-ms=2")

            // When parley-fetch is killed once the server holds at least 1 MB
            let child = try SpawnedChild.start(fetch, arguments: [url, "--upload", path, "--quiet"])
            var uploadURL: String?
            var held = 0
            let clock = ContinuousClock()
            let deadline = clock.now + .seconds(60)
            while clock.now < deadline {
                if uploadURL == nil,
                    let record = try? JSONSerialization.jsonObject(
                        with: contents(ResumableUpload.sidecarPath(of: path)))
                        as? [String: Any]
                {
                    uploadURL = record["uploadURL"] as? String
                }
                if let uploadURL {
                    let state = try await transport.data(for: try TransportRequest(method: .get, url: uploadURL))
                    held =
                        (try JSONSerialization.jsonObject(with: state.body) as? [String: Any])?["offset"] as? Int ?? 0
                    if held >= 1_000_000 { break }
                }
                try await Task.sleep(for: .milliseconds(5))
            }
            child.kill()
            let resource = try #require(uploadURL, "the sidecar never named the upload")
            #expect(held >= 1_000_000 && held < data.count, "killed with \(held) bytes on the server")

            // Then a second run resumes from there and the server has exactly the file
            let run = try await ChildProcess.launch(fetch, arguments: [url, "--upload", path])
            #expect(run.status == 0, "\(run.output)")
            #expect(run.output.contains("resumed from"), "\(run.output)")
            let final = try await transport.data(for: try TransportRequest(method: .get, url: resource))
            let state = try #require(try JSONSerialization.jsonObject(with: final.body) as? [String: Any])
            #expect(state["sha256"] as? String == digest)
            #expect(state["complete"] as? Bool == true)
            // One creation only: nothing was sent from zero again
            let creations = server.receivedRequests().filter { $0.method == .post && $0.path.hasPrefix("/resumable") }
            #expect(creations.count == 1)
            #expect(!exists(ResumableUpload.sidecarPath(of: path)))
        }
    }
}
