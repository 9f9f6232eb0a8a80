import Foundation
import HTTPTypes
import TestSupport
import Testing
import Transport
import TransportCurl

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `parley-mock-server`'s graceful shutdown, as a process manager sees it: SIGTERM with a
/// response still streaming lets that response finish, then the process exits 0.
///
/// Before its `ServiceGroup`, SIGTERM cancelled the server: the streaming body was cut short
/// and the collection below failed with a transfer error.
@Suite struct MockServerTerminationTests {
    @Test func sigtermLetsTheResponseInFlightFinishThenExitsZero() async throws {
        // Given the server started on a port of the kernel's choosing
        let server = try SpawnedChild.start(
            try ChildProcess.siblingExecutable("parley-mock-server"), arguments: ["--port", "0"], output: .pipe)
        let line = try await onOwnThread { () -> String in
            var text = ""
            while !text.contains("\n"), let chunk = server.output?.readChunkRetryingInterrupts() {
                text += String(decoding: chunk, as: UTF8.self)
            }
            return text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        }
        let prefix = "listening on "
        try #require(line.hasPrefix(prefix), "the first line was \(line.debugDescription)")
        let baseURL = String(line.dropFirst(prefix.count))

        // And a response whose head has come back and whose body the server sends slowly:
        // 1 MiB, 100 ms after each 64 KiB
        let transport = try CurlTransport()
        let size = 1 << 20
        let response = try await transport.send(
            TransportRequest(method: .get, url: baseURL + "/bytes/\(size)?chunk-delay=100"))
        #expect(response.status == .ok)

        // When the server gets SIGTERM
        server.send(SIGTERM)

        // Then the body still arrives whole, byte for byte, and the server exits with status 0
        let body: Data
        do {
            body = try await response.collected(upTo: 2 * size).body
        } catch {
            await transport.shutdown()
            throw error
        }
        await transport.shutdown()
        #expect(body.count == size)
        #expect(body.enumerated().allSatisfy { $0.element == UInt8($0.offset % 251) }, "not the pattern bytes")
        let ended = try await onOwnThread { server.waitForExit() }
        #expect(ended.exitStatus == 0, "ended by signal \(ended.signal ?? 0)")
    }
}
