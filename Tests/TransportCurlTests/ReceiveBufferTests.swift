import Foundation
import HTTPTypes
import MockBackend
import TestSupport
import Testing
import Transport

@testable import TransportCurl

/// libcurl's receive buffer by kind of response: a collected body takes
/// `collectedReceiveBufferSize`, a streamed one `receiveBufferSize`.
///
/// Checked to fail: with the two sizes swapped in `CurlTransfer.receiveBufferSize`, the table
/// gives 65,536 for a collected body and 16,384 for a streamed one.
@Suite struct ReceiveBufferTests {
    @Test func aCollectedBodyTakesTheSmallerBufferAndAStreamedOneTheLarger() {
        let defaults = CurlTransport.Configuration()
        #expect(CurlTransfer.receiveBufferSize(collects: true, configuration: defaults) == 16 * 1024)
        #expect(CurlTransfer.receiveBufferSize(collects: false, configuration: defaults) == 64 * 1024)
        let custom = CurlTransport.Configuration.with {
            $0.collectedReceiveBufferSize = 256 * 1024
            $0.receiveBufferSize = 512 * 1024
        }
        #expect(CurlTransfer.receiveBufferSize(collects: true, configuration: custom) == 256 * 1024)
        #expect(CurlTransfer.receiveBufferSize(collects: false, configuration: custom) == 512 * 1024)
    }

    @Test func aBufferOutsideWhatLibcurlTakesIsClamped() {
        let small = CurlTransport.Configuration.with {
            $0.collectedReceiveBufferSize = 0
            $0.receiveBufferSize = 10
        }
        #expect(CurlTransfer.receiveBufferSize(collects: true, configuration: small) == 1024)
        #expect(CurlTransfer.receiveBufferSize(collects: false, configuration: small) == 1024)
        let large = CurlTransport.Configuration.with { $0.receiveBufferSize = 64 << 20 }
        #expect(CurlTransfer.receiveBufferSize(collects: false, configuration: large) == 10 << 20)
    }

    /// One loop and one connection, so that the same easy handle serves each request in turn
    /// with a buffer of another size than the last: every body arrives whole.
    @Test func oneHandleChangesItsBufferBetweenCollectedAndStreamedBodies() async throws {
        let length = 1 << 20
        let configuration = CurlTransport.Configuration.with {
            $0.loopCount = 1
            $0.maximumConnectionsPerHost = 1
            $0.collectedReceiveBufferSize = 1024
            $0.receiveBufferSize = 512 * 1024
        }
        try await MockServer.withRunning { server in
            try await withTransport(configuration) { transport in
                let request = try TransportRequest(method: .get, url: server.url("/stream-bytes/\(length)?chunk=65536"))
                for _ in 0..<2 {
                    let collected = try await transport.data(for: request)
                    #expect(collected.body == pattern(0..<length))
                    let streamed = try await transport.send(request)
                    var received = Data()
                    for try await chunk in streamed.body { received.append(chunk) }
                    #expect(received == pattern(0..<length))
                }
            }
        }
    }
}
