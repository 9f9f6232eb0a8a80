import Downloads
import Foundation
import HTTPTypes
import MockBackend
import Testing
import Transport
import TransportCurl

@Suite struct RequestsTests {
    @Test(arguments: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"])
    func sendsEveryMethodWithItsQueryAndHeaders(method: String) async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                // Given a request with a query, a header and (for some methods) a body
                let body: RequestBody? =
                    ["POST", "PUT", "PATCH"].contains(method) ? .string("payload of \(method)") : nil
                let request = try TransportRequest(
                    method: try #require(HTTPRequest.Method(method)),
                    url: server.url("/echo?city=Toronto&tag=a&tag=b"),
                    headers: ["X-Trace": "t-1", "Accept": "application/json"],
                    body: body)

                // When it is sent
                let response = try await transport.data(for: request)

                // Then the server saw exactly that
                #expect(response.status == .ok)
                let echo = try Echo(response.body)
                #expect(echo.method == method)
                #expect(echo.path == "/echo")
                #expect(echo.query == ["city": ["Toronto"], "tag": ["a", "b"]])
                #expect(echo.header("X-Trace") == "t-1")
                #expect(echo.header("Expect") == nil)
                #expect(echo.header("User-Agent") == "Parley")
                if body != nil {
                    #expect(echo.body == "payload of \(method)")
                    #expect(echo.header("Content-Length") == "\("payload of \(method)".utf8.count)")
                } else {
                    #expect(echo.bodyLength == 0)
                }
            }
        }
    }

    @Test func sendsHEADWithoutReadingABody() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let response = try await transport.data(
                    for: TransportRequest(method: .head, url: server.url("/bytes/1000")))
                #expect(response.status == .ok)
                #expect(response.head.headerFields[.contentLength] == "1000")
                #expect(response.body.isEmpty)
            }
        }
    }

    @Test func sendsAnEmptyPOSTWithContentLengthZero() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let response = try await transport.data(for: TransportRequest(method: .post, url: server.url("/echo")))
                let echo = try Echo(response.body)
                #expect(echo.method == "POST")
                #expect(echo.header("Content-Length") == "0")
            }
        }
    }

    @Test(arguments: [200, 201, 204, 301, 400, 404, 418, 500, 503])
    func returnsEveryStatusAsAResponseNotAnError(code: Int) async throws {
        try await MockServer.withRunning { server in
            try await withTransport(.with { $0.maximumConnectionsPerHost = 2 }) { transport in
                var request = try TransportRequest(method: .get, url: server.url("/status/\(code)"))
                request.options.redirects = .none
                let response = try await transport.data(for: request)
                #expect(response.status.code == code)
            }
        }
    }

    @Test func uploadsBytesFilesAndStreamsWithMatchingDigests() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let payload = pattern(0..<300_000)
                let digest = SHA256Hasher.hexDigest(of: payload)
                let file = FileManager.default.temporaryDirectory.appendingPathComponent("parley-upload-\(UUID()).bin")
                try payload.write(to: file)
                defer { try? FileManager.default.removeItem(at: file) }
                let bodies: [(String, RequestBody)] = [
                    ("bytes", .bytes(payload)),
                    ("file", .file(path: file.path)),
                    ("stream with length", .stream(length: Int64(payload.count)) { Self.chunks(of: payload) }),
                    ("chunked stream", .stream { Self.chunks(of: payload) }),
                ]
                for (name, body) in bodies {
                    let request = try TransportRequest(method: .put, url: server.url("/upload"), body: body)
                    let response = try await transport.data(for: request)
                    let json = try #require(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
                    #expect(json["bodyLength"] as? Int == payload.count, "\(name)")
                    #expect(json["bodySHA256"] as? String == digest, "\(name)")
                }
            }
        }
    }

    @Test func sendsAFileRegionFromAnOffset() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let payload = pattern(0..<10_000)
                let file = FileManager.default.temporaryDirectory.appendingPathComponent("parley-region-\(UUID()).bin")
                try payload.write(to: file)
                defer { try? FileManager.default.removeItem(at: file) }
                let request = try TransportRequest(
                    method: .post, url: server.url("/echo"), body: .file(path: file.path, offset: 100, length: 50))
                let echo = try Echo(try await transport.data(for: request).body)
                #expect(echo.bodyLength == 50)
                #expect(echo.bodySHA256 == SHA256Hasher.hexDigest(of: payload[100..<150]))
            }
        }
    }

    @Test func failsBeforeSendingWhenTheBodyFileIsMissing() async throws {
        try await ScriptedSocketServer.withRunning(.holdOpen) { server in
            try await withTransport { transport in
                let request = try TransportRequest(
                    method: .post, url: server.baseURL + "/", body: .file(path: "/nonexistent/parley-body.bin"))
                let error = await #expect(throws: TransportError.self) { try await transport.data(for: request) }
                #expect(error?.category == .invalidBody)
                #expect(error?.mayHaveReachedServer == false)
                #expect(error?.message.contains("/nonexistent/parley-body.bin") == true)
                #expect(server.acceptedConnections == 0)
            }
        }
    }

    /// One loop and one connection, so that every request reuses the same easy handle, which
    /// keeps the options it last set: each request must still go out as its own (its URL, method,
    /// headers, body and `Accept-Encoding`), whatever the one before it set.
    ///
    /// Checked to fail with the handle's default header list left set under a request with
    /// headers of its own, and with a GET after a POST taken for a plain GET already set.
    @Test func aReusedHandleSendsEachRequestAsItsOwn() async throws {
        try await MockServer.withRunning { server in
            let configuration = CurlTransport.Configuration.with {
                $0.loopCount = 1
                $0.maximumConnectionsPerHost = 1
            }
            try await withTransport(configuration) { transport in
                var plain = TransferOptions()
                plain.decodesContent = false
                let steps: [(TransportRequest, method: String, trace: String?, body: String?, encodings: Bool)] = [
                    (try TransportRequest(method: .get, url: server.url("/echo?step=1")), "GET", nil, nil, true),
                    (
                        try TransportRequest(
                            method: .get, url: server.url("/echo?step=2"), headers: ["X-Trace": "two"]),
                        "GET", "two", nil, true
                    ),
                    (try TransportRequest(method: .get, url: server.url("/echo?step=3")), "GET", nil, nil, true),
                    (
                        try TransportRequest(method: .post, url: server.url("/echo?step=4"), body: .string("four")),
                        "POST", nil, "four", true
                    ),
                    (try TransportRequest(method: .get, url: server.url("/echo?step=5")), "GET", nil, nil, true),
                    (try TransportRequest(method: .delete, url: server.url("/echo?step=6")), "DELETE", nil, nil, true),
                    (
                        try TransportRequest(method: .get, url: server.url("/echo?step=7"), options: plain), "GET", nil,
                        nil, false
                    ),
                    (try TransportRequest(method: .get, url: server.url("/echo?step=8")), "GET", nil, nil, true),
                ]
                for (index, step) in steps.enumerated() {
                    let echo = try Echo(try await transport.data(for: step.0).body)
                    #expect(echo.method == step.method, "step \(index + 1)")
                    #expect(echo.query["step"] == [String(index + 1)], "step \(index + 1)")
                    #expect(echo.header("X-Trace") == step.trace, "step \(index + 1)")
                    #expect(echo.header("User-Agent") == "Parley", "step \(index + 1)")
                    #expect(echo.body == step.body || (step.body == nil && echo.bodyLength == 0), "step \(index + 1)")
                    #expect((echo.header("Accept-Encoding") != nil) == step.encodings, "step \(index + 1)")
                }
            }
        }
    }

    @Test func reusesTheConnectionAndReportsMetrics() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let first = try await transport.data(
                    for: TransportRequest(method: .get, url: server.url("/bytes/2000")))
                let second = try await transport.data(
                    for: TransportRequest(method: .get, url: server.url("/bytes/2000")))
                let metrics = try #require(second.metrics)
                #expect(first.metrics?.reusedConnection == false)
                #expect(metrics.reusedConnection)
                #expect(metrics.httpVersion == "1.1")
                #expect(metrics.bytesReceived == 2000)
                #expect(metrics.total > .zero)
                #expect(metrics.firstByte <= metrics.total)
                #expect(second.body == pattern(0..<2000))
            }
        }
    }

    @Test func completesTwoHundredConcurrentRequests() async throws {
        try await MockServer.withRunning { server in
            try await withTransport(.with { $0.maximumConnectionsPerHost = 32 }) { transport in
                let results = try await withThrowingTaskGroup(of: (Int, Data).self) { group in
                    for index in 0..<200 {
                        group.addTask {
                            let size = 100 + index * 37
                            let response = try await transport.data(
                                for: TransportRequest(method: .get, url: server.url("/bytes/\(size)")))
                            return (size, response.body)
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(results.count == 200)
                for (size, body) in results { #expect(body == pattern(0..<size)) }
            }
        }
    }

    static func chunks(of data: Data) -> AsyncStream<Data> {
        AsyncStream { continuation in
            var offset = 0
            while offset < data.count {
                let end = min(offset + 7_000, data.count)
                continuation.yield(data.subdata(in: offset..<end))
                offset = end
            }
            continuation.finish()
        }
    }
}
