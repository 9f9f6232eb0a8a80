import Foundation
import Glibc

/// A loopback HTTP/1.1 server that answers one connection with one fixed body, written with
/// blocking `send` calls on a thread of its own.
///
/// The in-process mock server writes from tasks on Swift's cooperative pool, which the whole
/// test run shares (two threads on a two-core machine). A test whose verdict depends on the
/// server resuming promptly once the client reads again (a stall timeout shorter than a
/// consumer's wait) cannot use it: any test that keeps the pool busy for a few seconds would
/// stop the server and make the engine's correct stall error look like a failure. This
/// server's speed depends only on the socket.
final class OwnThreadBodyServer: Sendable {
    let port: Int
    private let listener: Int32

    /// Starts listening on `127.0.0.1` and serves `body` to the first connection.
    init(body: Data) throws {
        let listener = socket(AF_INET, LinuxSocketType.stream | LinuxSocketType.closeOnExec, 0)
        guard listener >= 0 else { throw ServerError(step: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        guard bound == 0, listen(listener, 1) == 0 else {
            let code = errno
            close(listener)
            throw ServerError(step: "bind", code: code)
        }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { Self.serve(listener: listener, body: body) }.start()
    }

    /// Stops accepting (a thread still blocked in `accept` returns) and closes the listener.
    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }

    func url(_ path: String) -> URL {
        var components = URLComponents()
        components.scheme = "http"
        components.host = "127.0.0.1"
        components.port = port
        components.path = path
        guard let url = components.url else { preconditionFailure("not a URL path: \(path)") }
        return url
    }

    private static func serve(listener: Int32, body: Data) {
        let connection = accept(listener, nil, nil)
        guard connection >= 0 else { return }
        defer { close(connection) }
        // Read the request head; its content does not matter.
        var head = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !head.ends(with: Array("\r\n\r\n".utf8)) {
            let count = recv(connection, &chunk, chunk.count, 0)
            guard count > 0 else { return }
            head += chunk.prefix(count)
        }
        let responseHead =
            "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: \(body.count)\r\n\r\n"
        let response = Data(responseHead.utf8) + body
        response.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            var sent = 0
            while sent < bytes.count {
                let count = send(connection, base + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return }  // The client went away.
                sent += count
            }
        }
    }

    struct ServerError: Error, CustomStringConvertible {
        let step: String
        let code: Int32
        var description: String { "the test server could not \(step): \(String(cString: strerror(code)))" }
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
