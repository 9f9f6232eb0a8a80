import Foundation
import HTTPTypes
import MockBackend
import TestSupport
import Testing
import Transport
import TransportCurl

@Suite struct StreamingTests {
    @Test func streamsAChunkedBodyInOrder() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let response = try await transport.send(
                    TransportRequest(method: .get, url: server.url("/stream-bytes/100000?chunk=1000")))
                #expect(response.status == .ok)
                #expect(response.head.headerFields[.transferEncoding] == "chunked")
                var received = Data()
                for try await chunk in response.body { received.append(chunk) }
                #expect(received == pattern(0..<100_000))
            }
        }
    }

    /// While the consumer does not read, the engine stops reading the socket once its buffer
    /// is full: the bytes waiting for the consumer when it comes back are at most the buffer and
    /// one of libcurl's writes, not everything the server could send meanwhile. And the pause
    /// is not mistaken for a stalled server.
    ///
    /// Checked to fail without pausing: with `ResponseStreamBuffer.offer(_:)` made never to
    /// answer `.pause`, the first chunk after the wait held the whole rest of the 4 MiB body
    /// (3,932,160 bytes against a bound of 131,072).
    @Test func pausesReadingWhileTheConsumerWaitsWithoutStalling() async throws {
        let bufferSize = 64 * 1024
        let length = 4 << 20
        // A server on its own thread, not the mock server: the verdict below needs a server
        // that starts writing again as soon as the client reads, and the mock server writes
        // from the cooperative pool that every test of the run shares (see the server's
        // documentation). A server kept from writing for the stall timeout is a stall, and
        // the engine is right to report it.
        let server = try OwnThreadBodyServer(body: pattern(0..<length))
        try await withTransport(.with { $0.streamBufferSize = bufferSize }) { transport in
            // A consumer slower than the stall timeout must not be mistaken for a stalled server.
            var request = try TransportRequest(method: .get, url: server.url("/bytes"))
            request.options.stallTimeout = .seconds(2)
            let response = try await transport.send(request)
            var iterator = response.body.makeAsyncIterator()
            var received = try await iterator.next() ?? Data()
            try await Task.sleep(for: .seconds(3))
            let waiting = try await iterator.next() ?? Data()
            received += waiting
            while let chunk = try await iterator.next() { received += chunk }
            #expect(received == pattern(0..<length))
            // The buffer, plus the write that filled it (libcurl hands over 16 KiB at most;
            // the bound leaves room for a larger one).
            #expect(
                waiting.count <= bufferSize + 64 * 1024,
                "\(waiting.count) bytes were read while the consumer waited")
        }
    }

    @Test func reportsMonotonicThrottledProgressWithAFinalEvent() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let uploadEvents = LockedRecorder<TransferEvent>()
                let payload = pattern(0..<(2 << 20))
                var request = try TransportRequest(method: .post, url: server.url("/upload"), body: .bytes(payload))
                request.options.eventHandler = uploadEvents.handler
                _ = try await transport.data(for: request)
                let downloadEvents = LockedRecorder<TransferEvent>()
                var download = try TransportRequest(method: .get, url: server.url("/bytes/\(8 << 20)"))
                download.options.eventHandler = downloadEvents.handler
                _ = try await transport.data(for: download)

                let uploads = uploadEvents.all.compactMap { if case .uploadProgress(let p) = $0 { p } else { nil } }
                let downloads = downloadEvents.all.compactMap {
                    if case .downloadProgress(let p) = $0 { p } else { nil }
                }
                for series in [uploads, downloads] {
                    #expect(!series.isEmpty)
                    #expect(zip(series, series.dropFirst()).allSatisfy { $0.completed <= $1.completed })
                    #expect(series.last?.isFinal == true)
                    #expect(series.filter(\.isFinal).count == 1)
                }
                #expect(uploads.last?.completed == Int64(payload.count))
                #expect(downloads.last?.completed == Int64(8 << 20))
                #expect(downloads.last?.fractionCompleted == 1)
                let metrics = downloadEvents.all.compactMap { if case .metrics(let m) = $0 { m } else { nil } }
                #expect(metrics.count == 1)
                #expect(metrics.first?.bytesReceived == Int64(8 << 20))
            }
        }
    }
}
