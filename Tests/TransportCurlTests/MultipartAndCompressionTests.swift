import Downloads
import Foundation
import HTTPTypes
import MockBackend
import TestSupport
import Testing
import Transport
import TransportCurl

@Suite struct MultipartAndCompressionTests {
    // MARK: - Multipart

    @Test func sendsAFormThatAnIndependentParserReadsPartByPart() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                // Given text fields (with non-ASCII, quoted and multi-line names), a data part and
                // two files of 300 KB and 2 MB
                try await withTemporaryFolder { path in
                    let directory = URL(fileURLWithPath: path)
                    let photo = pattern(0..<300_000)
                    let report = pattern(7..<2_000_007)
                    let photoPath = directory.appendingPathComponent("vacances été.png").path
                    let reportPath = directory.appendingPathComponent("report.pdf").path
                    try photo.write(to: URL(fileURLWithPath: photoPath))
                    try report.write(to: URL(fileURLWithPath: reportPath))
                    let meta = Data(#"{"album":"Montréal"}"#.utf8)

                    var form = MultipartFormData()
                    try form.addField(name: "title", value: "Holiday")
                    try form.addField(name: "prénom", value: "Zoë")
                    try form.addField(name: "名前", value: "東京 🗼\r\nsecond line")
                    try form.addField(name: "say \"hi\"\n", value: "")
                    try form.addData(meta, name: "meta", filename: "meta.json")
                    try form.addFile(path: photoPath, name: "photo")
                    try form.addFile(path: reportPath, name: "report", filename: "Q3 report.pdf")
                    let request = try TransportRequest(method: .post, url: server.url("/multipart"), multipart: form)
                    let length = try #require(request.body?.length)

                    // When it is sent
                    let response = try await transport.data(for: request)

                    // Then MultipartKit on the server sees every part as it was given
                    #expect(response.status == .ok, "\(String(decoding: response.body, as: UTF8.self))")
                    let parts = try JSONDecoder().decode(MultipartReport.self, from: response.body).parts
                    let expected: [MultipartReport.Part] = [
                        .text("title", "Holiday"),
                        .text("prénom", "Zoë"),
                        .text("名前", "東京 🗼\r\nsecond line"),
                        .text("say %22hi%22%0A", ""),
                        .file("meta", "meta.json", "application/json", meta),
                        .file("photo", "vacances été.png", "image/png", photo),
                        .file("report", "Q3 report.pdf", "application/pdf", report),
                    ]
                    #expect(parts == expected)

                    // And the request was sent with a Content-Length equal to the body's length
                    let recorded = try #require(server.receivedRequests().last)
                    #expect(recorded.headerFields[.contentLength] == "\(length)")
                    #expect(recorded.headerFields[.transferEncoding] == nil)
                    #expect(recorded.headerFields[.contentType] == form.contentType)
                    #expect(recorded.bodyLength == Int(length))
                }
            }
        }
    }

    @Test func replaysAFormThroughA307Redirect() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                // Given a form with a file, posted to a URL that answers 307
                try await withTemporaryFolder { path in
                    let directory = URL(fileURLWithPath: path)
                    let contents = pattern(0..<200_000)
                    let path = directory.appendingPathComponent("notes.txt").path
                    try contents.write(to: URL(fileURLWithPath: path))
                    var form = MultipartFormData()
                    try form.addField(name: "kind", value: "notes")
                    try form.addFile(path: path, name: "file")
                    let target = try #require(
                        server.url("/multipart").addingPercentEncoding(withAllowedCharacters: .alphanumerics))
                    let request = try TransportRequest(
                        method: .post, url: server.url("/redirect-to?status=307&url=\(target)"), multipart: form)

                    // When it is sent
                    let response = try await transport.data(for: request)

                    // Then the whole form arrived again at the redirect's target
                    #expect(response.status == .ok)
                    let parts = try JSONDecoder().decode(MultipartReport.self, from: response.body).parts
                    #expect(parts == [.text("kind", "notes"), .file("file", "notes.txt", "text/plain", contents)])
                    let requests = server.receivedRequests()
                    #expect(requests.map(\.method) == [.post, .post])
                    #expect(
                        requests.map(\.bodyLength)
                            == Array(repeating: Int(try #require(request.body?.length)), count: 2))
                }
            }
        }
    }

    // MARK: - Compression

    @Test func gzipsEveryKindOfBodyAndTheServerInflatesItToTheSameDigest() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                // Given a 5 MB file, bytes, and streams with and without a length
                let file = pattern(0..<5_000_000)
                try await withTemporaryFolder { path in
                    let directory = URL(fileURLWithPath: path)
                    let path = directory.appendingPathComponent("large.bin").path
                    try file.write(to: URL(fileURLWithPath: path))
                    let streamed = pattern(3..<1_000_003)
                    let bodies: [(String, RequestBody, Data)] = [
                        ("file", .file(path: path), file),
                        ("file region", .file(path: path, offset: 1000, length: 70_000), file[1000..<71_000]),
                        ("bytes", .bytes(streamed), streamed),
                        ("stream", .stream { Self.chunks(of: streamed) }, streamed),
                        (
                            "stream with length", .stream(length: Int64(streamed.count)) { Self.chunks(of: streamed) },
                            streamed
                        ),
                        ("empty", .bytes(Data()), Data()),
                    ]
                    for (name, body, expected) in bodies {
                        var request = try TransportRequest(method: .put, url: server.url("/upload"), body: body)
                        request.options.compressesRequestBody = true

                        // When it is sent compressed
                        let response = try await transport.data(for: request)

                        // Then the server received gzip, chunked, and inflated it to the original
                        #expect(response.status == .ok, "\(name): \(String(decoding: response.body, as: UTF8.self))")
                        let report = try JSONDecoder().decode(UploadReport.self, from: response.body)
                        #expect(report.contentEncoding == "gzip", "\(name)")
                        #expect(report.transferEncoding == "chunked", "\(name)")
                        #expect(report.contentLength == nil, "\(name)")
                        #expect(report.decodedLength == expected.count, "\(name)")
                        #expect(report.decodedSHA256 == SHA256Hasher.hexDigest(of: expected), "\(name)")
                        if expected.count > 10_000 {
                            #expect(
                                report.bodyLength < expected.count / 10, "\(name): compressed to \(report.bodyLength)")
                        }
                    }
                }
            }
        }
    }

    @Test func replaysACompressedBodyThroughA307Redirect() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let payload = pattern(0..<300_000)
                let target = try #require(
                    server.url("/upload").addingPercentEncoding(withAllowedCharacters: .alphanumerics))
                var request = try TransportRequest(
                    method: .post, url: server.url("/redirect-to?status=307&url=\(target)"),
                    body: .stream { Self.chunks(of: payload) })
                request.options.compressesRequestBody = true

                let response = try await transport.data(for: request)

                let report = try JSONDecoder().decode(UploadReport.self, from: response.body)
                #expect(report.decodedSHA256 == SHA256Hasher.hexDigest(of: payload))
                #expect(server.receivedRequests().map { $0.headerFields[.contentEncoding] } == ["gzip", "gzip"])
            }
        }
    }

    @Test func refusesToCompressABodyThatAlreadyHasAContentEncoding() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                var request = try TransportRequest(
                    method: .post, url: server.url("/upload"), headers: ["Content-Encoding": "br"],
                    body: .string("already encoded"))
                request.options.compressesRequestBody = true

                let error = await #expect(throws: TransportError.self) { try await transport.data(for: request) }

                #expect(error?.category == .invalidHeader)
                #expect(error?.mayHaveReachedServer == false)
                #expect(error?.message.contains("Content-Encoding") == true)
                #expect(server.receivedRequests().isEmpty)
            }
        }
    }

    @Test func sendsNoContentEncodingWhenThereIsNoBodyToCompress() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                var request = try TransportRequest(method: .get, url: server.url("/echo"))
                request.options.compressesRequestBody = true
                let echo = try Echo(try await transport.data(for: request).body)
                #expect(echo.header("Content-Encoding") == nil)
                #expect(echo.bodyLength == 0)
            }
        }
    }

    @Test func theServerRejectsAGzipBodyThatDoesNotInflate() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let request = try TransportRequest(
                    method: .post, url: server.url("/upload"), headers: ["Content-Encoding": "gzip"],
                    body: .string("this is not gzip"))
                let response = try await transport.data(for: request)
                #expect(response.status == .badRequest)
                #expect(String(decoding: response.body, as: UTF8.self).contains("not valid gzip"))
            }
        }
    }

    // MARK: - Helpers

    /// `data` in chunks of 10 000 bytes.
    static func chunks(of data: Data) -> AsyncStream<Data> {
        AsyncStream { continuation in
            var offset = 0
            while offset < data.count {
                let end = min(offset + 10_000, data.count)
                continuation.yield(data[offset..<end])
                offset = end
            }
            continuation.finish()
        }
    }
}

/// The mock server's `/multipart` JSON.
struct MultipartReport: Decodable {
    struct Part: Decodable, Equatable, CustomStringConvertible {
        let name: String?
        let filename: String?
        let contentType: String?
        let length: Int
        let sha256: String
        let value: String?

        /// A text field as the server reports it.
        static func text(_ name: String, _ value: String) -> Part {
            Part(
                name: name, filename: nil, contentType: nil, length: value.utf8.count,
                sha256: SHA256Hasher.hexDigest(of: Array(value.utf8)), value: value)
        }

        /// A part with a file name as the server reports it.
        static func file(_ name: String, _ filename: String, _ contentType: String, _ contents: Data) -> Part {
            Part(
                name: name, filename: filename, contentType: contentType, length: contents.count,
                sha256: SHA256Hasher.hexDigest(of: contents), value: nil)
        }

        var description: String {
            "\(name ?? "nil") \(filename ?? "nil") \(contentType ?? "nil") \(length) \(sha256.prefix(8)) "
                + "\(value.map { $0.prefix(40).debugDescription } ?? "nil")"
        }
    }

    let parts: [Part]
}

/// The mock server's `/upload` JSON.
struct UploadReport: Decodable {
    let bodyLength: Int
    let bodySHA256: String
    let decodedLength: Int?
    let decodedSHA256: String?
    let contentEncoding: String?
    let contentLength: String?
    let transferEncoding: String?
}
