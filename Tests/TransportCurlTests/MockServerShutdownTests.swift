import Foundation
import Glibc
import MockBackend
import TestSupport
import Testing

/// The in-process mock server stopping while clients are connecting: every connection it
/// accepted is closed, none is left half-served, and the process goes on.
///
/// Without `ClosingChildChannel` (serve with Hummingbird's plain `.http1()`), the first of
/// these tests stops the test process with SwiftNIO's "Deinited NIOAsyncWriter without calling
/// finish()": connections accepted as the server stopped were dropped unserved. It did in 3
/// runs of 3 under ThreadSanitizer; it is what stopped `make sanitize` now and then.
@Suite struct MockServerShutdownTests {
    /// How many clients connect just before each server stops.
    static let connections = 64

    @Test func stoppingWhileClientsConnectClosesEveryConnection() async throws {
        for _ in 0..<20 {
            // Given clients that connect as the test ends, before the server has served them
            let sockets = try await MockServer.withRunning { server in
                try await Self.connect(Self.connections, port: server.port)
            }
            defer { for socket in sockets { close(socket) } }

            // Then, once the server has stopped, each connection is closed, by the server or by
            // the kernel for those it had not accepted yet: a read ends instead of waiting
            let ended = try await onOwnThread { sockets.filter { Self.readEnds($0) }.count }
            #expect(ended == sockets.count, "a connection was left open after the server stopped")
        }
    }

    @Test func aServerStartedAfterAnAbruptStopServesAsUsual() async throws {
        // Given a server stopped with connections in flight
        let sockets = try await MockServer.withRunning { server in
            try await Self.connect(Self.connections, port: server.port)
        }
        for socket in sockets { close(socket) }

        // When another server starts in the same process
        let count = try await MockServer.withRunning { server in
            let socket = try await Self.connect(1, port: server.port)[0]
            defer { close(socket) }
            let request = "GET /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
            _ = request.withCString { send(socket, $0, strlen($0), 0) }
            #expect(try await onOwnThread { Self.readEnds(socket) })
            return server.requestCount(for: "/echo")
        }

        // Then it serves
        #expect(count == 1)
    }

    /// `count` TCP connections to `127.0.0.1:port`, made on a thread of their own: the sockets
    /// block, and a blocked thread of the cooperative pool would hold up the server's tasks.
    static func connect(_ count: Int, port: Int) async throws -> [Int32] {
        try await onOwnThread { try (0..<count).map { _ in try connect(port: port) } }
    }

    /// A blocking TCP connection to `127.0.0.1:port`; on loopback it is established (in the
    /// listener's accept queue) when `connect` returns.
    static func connect(port: Int) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(socket >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(connected == 0, "connect failed: \(String(cString: strerror(errno)))")
        return socket
    }

    /// Whether reading `socket` to its end ends (end of file or a reset) rather than waiting: a
    /// 30-second receive timeout only keeps a broken server from hanging the suite. It blocks:
    /// call it on a thread of its own (``onOwnThread(_:)``), never on the cooperative pool.
    static func readEnds(_ socket: Int32) -> Bool {
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count > 0 { continue }
            if count == 0 { return true }
            if errno == EINTR { continue }
            return errno == ECONNRESET
        }
    }
}
