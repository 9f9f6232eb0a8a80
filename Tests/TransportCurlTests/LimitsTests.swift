import Foundation
import HTTPTypes
import MockBackend
import Testing
import Transport
import TransportCurl

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
