import Foundation
import HTTPTypes
import MockBackend
import Testing
import Transport
import TransportCurl

@Suite struct ContentEncodingTests {
    @Test(arguments: [("/gzip", "gzipped"), ("/deflate", "deflated")])
    func decodesCompressedResponses(path: String, flag: String) async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let response = try await transport.data(for: TransportRequest(method: .get, url: server.url(path)))
                let json = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
                #expect(json[flag] as? Bool == true)
                let sent = try #require(server.receivedRequests().first)
                #expect(sent.values(forHeader: "Accept-Encoding").first?.contains("gzip") == true)
            }
        }
    }

    @Test func deliversRawBytesWhenDecodingIsOff() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                var request = try TransportRequest(method: .get, url: server.url("/gzip"))
                request.options.decodesContent = false
                let response = try await transport.data(for: request)
                #expect(response.head.headerFields[.contentEncoding] == "gzip")
                #expect(response.body.prefix(2) == Data([0x1F, 0x8B]))
            }
        }
    }

    @Test func reportsABodyThatDoesNotMatchItsEncoding() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let error = await #expect(throws: TransportError.self) {
                    try await transport.data(for: TransportRequest(method: .get, url: server.url("/bad-encoding")))
                }
                #expect(error?.category == .badContentEncoding)
                #expect(error?.message.contains("decodesContent") == true)
            }
        }
    }

    @Test func countsDecodedBytesAgainstTheSizeLimit() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                // The compressed body is small; its decoded form is larger than the limit.
                var probe = try TransportRequest(method: .get, url: server.url("/gzip"))
                probe.options.decodesContent = false
                let compressed = try await transport.data(for: probe).body.count
                let decoded = try await transport.data(for: TransportRequest(method: .get, url: server.url("/gzip")))
                    .body.count
                try #require(decoded > compressed)

                var request = try TransportRequest(method: .get, url: server.url("/gzip"))
                request.options.maximumBodySize = compressed + (decoded - compressed) / 2
                let error = await #expect(throws: TransportError.self) { try await transport.data(for: request) }
                #expect(error?.category == .responseTooLarge)
            }
        }
    }
}

@Suite struct LimitsTests {
    @Test(arguments: ["/bytes/5000", "/stream-bytes/5000?chunk=500"])
    func failsABodyOverTheInMemoryLimit(path: String) async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                var request = try TransportRequest(method: .get, url: server.url(path))
                request.options.maximumBodySize = 4096
                let error = await #expect(throws: TransportError.self) { try await transport.data(for: request) }
                #expect(error?.category == .responseTooLarge)
                #expect(error?.message.contains("4096") == true)
                // The connection is usable afterwards.
                let next = try await transport.data(for: TransportRequest(method: .get, url: server.url("/bytes/10")))
                #expect(next.body.count == 10)
            }
        }
    }

    @Test func failsHeadersOverTheLimit() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                var request = try TransportRequest(method: .get, url: server.url("/large-headers?size=20000"))
                request.options.maximumHeaderSize = 16 * 1024
                let error = await #expect(throws: TransportError.self) { try await transport.data(for: request) }
                #expect(error?.category == .headersTooLarge)
                var generous = try TransportRequest(method: .get, url: server.url("/large-headers?size=20000"))
                generous.options.maximumHeaderSize = 64 * 1024
                let response = try await transport.data(for: generous)
                #expect(response.head.headerFields[HTTPField.Name("X-Large")!]?.count == 20000)
            }
        }
    }
}

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

    @Test func pausesReadingWhileTheConsumerWaitsWithoutStalling() async throws {
        try await MockServer.withRunning { server in
            try await withTransport(.with { $0.streamBufferSize = 64 * 1024 }) { transport in
                // A consumer slower than the stall timeout must not be mistaken for a stalled server.
                var request = try TransportRequest(method: .get, url: server.url("/bytes/\(4 << 20)"))
                // Three seconds, not less: every in-process mock server of the test run shares
                // NIO's two event-loop threads, so while other suites stream hundreds of
                // megabytes this server may take a couple of seconds to resume writing once the
                // reader drains, and that is not what is under test.
                request.options.stallTimeout = .seconds(3)
                let response = try await transport.send(request)
                var iterator = response.body.makeAsyncIterator()
                var received = try await iterator.next()?.count ?? 0
                try await Task.sleep(for: .milliseconds(6500))
                while let chunk = try await iterator.next() { received += chunk.count }
                #expect(received == 4 << 20)
            }
        }
    }

    @Test func reportsMonotonicThrottledProgressWithAFinalEvent() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let uploadEvents = EventLog()
                let payload = pattern(0..<(2 << 20))
                var request = try TransportRequest(method: .post, url: server.url("/upload"), body: .bytes(payload))
                request.options.eventHandler = uploadEvents.handler
                _ = try await transport.data(for: request)
                let downloadEvents = EventLog()
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
