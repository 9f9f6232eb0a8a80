import Foundation
import HTTPTypes
import MockBackend
import Testing
import Transport
@testable import TransportCurl

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

    /// A transfer that decodes sends the `Accept-Encoding` libcurl would, once, from the engine's
    /// header list (with and without header fields of the request's own); a caller's own field
    /// is sent instead of it, and the response is still decoded; a transfer that does not
    /// decode sends none.
    ///
    /// Checked to fail with the caller's field not looked for (two fields on the wire), and
    /// with the field added whether the transfer decodes or not.
    @Test func sendsOneAcceptEncodingThatTheCallerMayReplace() async throws {
        try await MockServer.withRunning { server in
            let configuration = CurlTransport.Configuration.with {
                $0.loopCount = 1
                $0.maximumConnectionsPerHost = 1
            }
            try await withTransport(configuration) { transport in
                let libcurls = String(CurlContentEncodings.acceptEncodingLine.dropFirst("Accept-Encoding: ".count))
                #expect(libcurls.contains("gzip") && libcurls.contains("deflate"))
                var plain = TransferOptions()
                plain.decodesContent = false
                let steps: [(TransportRequest, expected: [String])] = [
                    (try TransportRequest(method: .get, url: server.url("/echo?step=1")), [libcurls]),
                    (try TransportRequest(method: .get, url: server.url("/echo?step=2"), options: plain), []),
                    (
                        try TransportRequest(method: .get, url: server.url("/echo?step=3"), headers: ["X-Trace": "3"]),
                        [libcurls]
                    ),
                    (
                        try TransportRequest(
                            method: .get, url: server.url("/echo?step=4"), headers: ["Accept-Encoding": "identity"]),
                        ["identity"]
                    ),
                    (
                        try TransportRequest(
                            method: .post, url: server.url("/echo?step=5"), body: .string("five"), options: plain),
                        []
                    ),
                    (try TransportRequest(method: .get, url: server.url("/echo?step=6")), [libcurls]),
                ]
                for (index, step) in steps.enumerated() {
                    let echo = try Echo(try await transport.data(for: step.0).body)
                    #expect(echo.headers["accept-encoding"] ?? [] == step.expected, "step \(index + 1)")
                }
                // The caller's own field, and the response still decoded.
                let gzipped = try await transport.data(
                    for: TransportRequest(method: .get, url: server.url("/gzip"), headers: ["Accept-Encoding": "gzip"]))
                let json = try #require(try JSONSerialization.jsonObject(with: gzipped.body) as? [String: Any])
                #expect(json["gzipped"] as? Bool == true)
                #expect(server.receivedRequests().last?.values(forHeader: "Accept-Encoding") == ["gzip"])
            }
        }
    }

    /// libcurl's list of the encodings it decodes, by the features it was built with.
    @Test func namesTheEncodingsLibcurlDecodes() {
        #expect(CurlContentEncodings.names(zlib: false, brotli: false, zstd: false) == "identity")
        #expect(CurlContentEncodings.names(zlib: true, brotli: false, zstd: false) == "deflate, gzip")
        #expect(CurlContentEncodings.names(zlib: false, brotli: true, zstd: true) == "br, zstd")
        #expect(CurlContentEncodings.names(zlib: true, brotli: true, zstd: true) == "deflate, gzip, br, zstd")
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
