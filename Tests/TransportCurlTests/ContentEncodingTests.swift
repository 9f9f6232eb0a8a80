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
