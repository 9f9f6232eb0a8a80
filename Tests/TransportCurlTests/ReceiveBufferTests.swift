import Foundation
import HTTPTypes
import MockBackend
import TestSupport
import Testing
import Transport

@testable import TransportCurl

/// libcurl's receive buffer by kind of response: a collected body takes
/// `collectedReceiveBufferSize` (at most 4 KiB when its loop is crowded), a streamed one
/// `receiveBufferSize`.
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

    /// Checked to fail: with `crowded` ignored in `CurlTransfer.receiveBufferSize`, a crowded
    /// collected body gets 16,384; with it applied to streamed bodies too, a crowded streamed one
    /// gets 4,096.
    @Test func aCollectedBodyOnACrowdedLoopTakesAPageAtMost() {
        let defaults = CurlTransport.Configuration()
        #expect(CurlTransfer.receiveBufferSize(collects: true, crowded: true, configuration: defaults) == 4 * 1024)
        #expect(CurlTransfer.receiveBufferSize(collects: false, crowded: true, configuration: defaults) == 64 * 1024)
        // A smaller buffer than the crowded one stays.
        let small = CurlTransport.Configuration.with { $0.collectedReceiveBufferSize = 2 * 1024 }
        #expect(CurlTransfer.receiveBufferSize(collects: true, crowded: true, configuration: small) == 2 * 1024)
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

    /// One loop crowded by 80 requests that wait for their answers: a collected body of 1 MiB
    /// sent among them is read through the crowded loop's 4 KiB buffer, and arrives whole, as
    /// does a streamed one through its own buffer.
    ///
    /// Checked to fail: with the write callback dropping the chunks of a transfer that started
    /// crowded, the collected body came back short.
    @Test(.timeLimit(.minutes(1)))
    func aCollectedBodyOnACrowdedLoopArrivesWhole() async throws {
        let length = 1 << 20
        let waiting = 80
        let configuration = CurlTransport.Configuration.with {
            $0.loopCount = 1
            $0.maximumConnectionsPerHost = waiting + 4
        }
        try await MockServer.withRunning { server in
            try await withTransport(configuration) { transport in
                let slow = try TransportRequest(method: .get, url: server.url("/delay/1500"))
                let large = try TransportRequest(method: .get, url: server.url("/stream-bytes/\(length)?chunk=65536"))
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<waiting {
                        group.addTask { try await transport.data(for: slow).body.count }
                    }
                    // Once the others are in flight: the loop is crowded when these start.
                    try await Task.sleep(for: .milliseconds(300))
                    // Compared as one Bool each: a failed comparison of two 1 MiB collections
                    // would be diffed element by element.
                    let collected = try await transport.data(for: large)
                    let collectedWhole = collected.body == pattern(0..<length)
                    #expect(collectedWhole, "the collected body has \(collected.body.count) bytes, not \(length)")
                    let streamed = try await transport.send(large)
                    var received = Data()
                    for try await chunk in streamed.body { received.append(chunk) }
                    let streamedWhole = received == pattern(0..<length)
                    #expect(streamedWhole, "the streamed body has \(received.count) bytes, not \(length)")
                    var answered = 0
                    for try await count in group where count > 0 { answered += 1 }
                    #expect(answered == waiting)
                }
            }
        }
    }
}
