import Foundation
import HTTPTypes
import MockBackend
import TestSupport
import Testing
import Transport
import TransportCurl

/// libcurl sends a request again by itself, once and on a new connection, when a connection it
/// reused closes before a byte of answer. The body must then be read again from its start:
/// bytes and files are rewound, a stream cannot be and fails as a lost connection.
///
/// Each test warms the connection up with a GET, so that the POST goes out on a reused
/// connection, and `/idempotent?resets=1` closes it without an answer once. Without the seek
/// callback the bytes and file tests fail with libcurl's `CURLE_SEND_FAIL_REWIND` (category
/// `other`), as they did before it existed.
@Suite struct BodyRewindTests {
    /// Sends `body` on a reused connection that the server closes once without answering, and
    /// returns the result and the server's count of attempts.
    /// The result, the server's count of attempts, and the body length of each POST it read.
    func sendOnAReusedConnectionThatDrops(_ body: RequestBody) async throws -> (
        Result<DataResponse, any Error>, Int, [Int]
    ) {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                _ = try await transport.data(for: TransportRequest(method: .get, url: server.url("/echo")))
                let scope = "rewind-\(UUID())"
                let request = try TransportRequest(
                    method: .post, url: server.url("/idempotent?resets=1&scope=\(scope)"), body: body)
                let result: Result<DataResponse, any Error>
                do {
                    result = .success(try await transport.data(for: request))
                } catch {
                    result = .failure(error)
                }
                let stats = try await transport.data(
                    for: TransportRequest(method: .get, url: server.url("/idempotent/stats?scope=\(scope)")))
                let summary = try #require(try JSONSerialization.jsonObject(with: stats.body) as? [String: Any])
                let lengths = server.receivedRequests().filter { $0.method == .post }.map(\.bodyLength)
                return (result, try #require(summary["attempts"] as? Int), lengths)
            }
        }
    }

    /// libcurl 7.88.1 counts the requests it sends again per easy handle and clears the count
    /// only in `curl_easy_reset` (or once it gives up); it was made per transfer in curl 8.17.
    /// The engine reuses its easy handles, so without a reset a handle that had sent five
    /// requests again over its life failed the sixth at once, with "Connection died, tried 5
    /// times before giving up" (curl code 55), without sending it again: the soak found it as
    /// downloads failing after 100,000 faulted requests. Fails with the reset in
    /// `CurlEventLoop.recycle` taken out.
    @Test func sendsARequestAgainOnAReusedConnectionEveryTimeNotOnlyFiveTimesPerHandle() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                for round in 1...8 {
                    // Sequential requests take the same easy handle; the GET leaves a connection
                    // for the POST to reuse, which the server closes once without answering.
                    _ = try await transport.data(for: TransportRequest(method: .get, url: server.url("/echo")))
                    let request = try TransportRequest(
                        method: .post, url: server.url("/idempotent?resets=1&scope=round-\(round)-\(UUID())"),
                        body: .string("x"))
                    let result: Result<DataResponse, any Error>
                    do {
                        result = .success(try await transport.data(for: request))
                    } catch {
                        result = .failure(error)
                    }
                    #expect(try result.get().status == .ok, "round \(round): \(result)")
                }
            }
        }
    }

    @Test func sendsABytesBodyAgainFromItsStart() async throws {
        let (result, attempts, lengths) = try await sendOnAReusedConnectionThatDrops(.string("a body sent twice"))

        let response = try result.get()
        #expect(response.status == .ok)
        #expect(attempts == 2)
        #expect(lengths == [17, 17], "each attempt carried the whole body")
    }

    @Test func sendsAFileBodyAgainFromItsOffset() async throws {
        try await withTemporaryFolder { folder in
            let path = folder + "/body.bin"
            try Data((0..<200_000).map { UInt8($0 % 251) }).write(to: URL(fileURLWithPath: path))

            let (result, attempts, lengths) = try await sendOnAReusedConnectionThatDrops(
                .file(path: path, offset: 1000, length: 150_000))

            let response = try result.get()
            #expect(response.status == .ok)
            #expect(attempts == 2)
            #expect(lengths == [150_000, 150_000], "each attempt carried the whole body")
        }
    }

    @Test func failsAStreamAsALostConnectionThatARetryPolicyCanSendAgain() async throws {
        let chunks = [Data(repeating: 1, count: 1000), Data(repeating: 2, count: 1000)]
        let (result, attempts, _) = try await sendOnAReusedConnectionThatDrops(
            .stream(length: 2000) { chunks.async })

        let error = try #require(result.failure as? TransportError)
        #expect(error.category == .connectionReset)
        #expect(error.message.contains("cannot be sent again"))
        #expect(attempts == 1)
    }
}

extension Array where Element: Sendable {
    /// The elements as an asynchronous sequence.
    fileprivate var async: AsyncStream<Element> {
        AsyncStream { continuation in
            for element in self { continuation.yield(element) }
            continuation.finish()
        }
    }
}
