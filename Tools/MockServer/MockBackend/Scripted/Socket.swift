#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The few BSD-socket calls ``ScriptedSocketServer`` needs, wrapped so failures become errors
/// and blocking waits can be interrupted by the server's wake pipe.
enum Socket {
    #if canImport(Glibc)
        private static let streamType = Int32(SOCK_STREAM.rawValue)
        /// `send` flags: never raise SIGPIPE (the test process would die), never block.
        private static let sendFlags = Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)
    #else
        private static let streamType = SOCK_STREAM
        private static let sendFlags = Int32(MSG_DONTWAIT)
    #endif

    /// Creates a TCP socket listening on `127.0.0.1` and a port the kernel picks.
    ///
    /// - Returns: The listening descriptor and its port.
    /// - Throws: ``MockServerError/Code/socketFailure`` naming the failed call.
    static func listenOnLoopback() throws -> (descriptor: Int32, port: Int) {
        let descriptor = socket(AF_INET, streamType, 0)
        guard descriptor >= 0 else { throw failure("socket") }
        do {
            var enable: Int32 = 1
            guard
                setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &enable, socklen_t(MemoryLayout<Int32>.size)) == 0
            else { throw failure("setsockopt(SO_REUSEADDR)") }

            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = 0
            address.sin_addr.s_addr = in_addr_t(0x7f00_0001).bigEndian  // 127.0.0.1
            let bound = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    bind(descriptor, socketAddress, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard bound == 0 else { throw failure("bind(127.0.0.1:0)") }
            guard listen(descriptor, 64) == 0 else { throw failure("listen") }

            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let named = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    getsockname(descriptor, socketAddress, &length)
                }
            }
            guard named == 0 else { throw failure("getsockname") }
            return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
        } catch {
            _ = close(descriptor)
            throw error
        }
    }

    /// Creates the pipe whose read end wakes every blocked server thread once written to.
    static func makePipe() throws -> (read: Int32, write: Int32) {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else { throw failure("pipe") }
        return (descriptors[0], descriptors[1])
    }

    /// Waits until `descriptor` has `events` (`POLLIN` or `POLLOUT`) or the wake pipe is readable.
    ///
    /// - Parameter timeout: Milliseconds to wait; -1 (the default) waits indefinitely.
    /// - Returns: `.ready` when `descriptor` is ready (or has an error or hang-up to report),
    ///   `.woken` when the server is stopping, `.timedOut` when the timeout passed.
    static func wait(for events: Int32, on descriptor: Int32, orWoken wake: Int32, timeout: Int32 = -1) -> WaitResult {
        var descriptors = [
            pollfd(fd: descriptor, events: Int16(events), revents: 0),
            pollfd(fd: wake, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let result = poll(&descriptors, nfds_t(descriptors.count), timeout)
            if result < 0 {
                if errno == EINTR { continue }
                return .woken  // poll itself failed: treat as a reason to stop.
            }
            if result == 0 { return .timedOut }
            if descriptors[1].revents != 0 { return .woken }
            return .ready
        }
    }

    /// The outcome of ``wait(for:on:orWoken:timeout:)``.
    enum WaitResult {
        case ready
        case woken
        case timedOut
    }

    /// Waits until a listener has a connection to accept; `false` when the server is stopping.
    static func waitUntilReadable(_ descriptor: Int32, orWoken wake: Int32) -> Bool {
        wait(for: Int32(POLLIN), on: descriptor, orWoken: wake) == .ready
    }

    /// Writes all of `bytes`, waiting while the socket buffer is full.
    ///
    /// - Returns: `false` when the peer went away or the server is stopping first.
    static func sendAll(_ bytes: [UInt8], to descriptor: Int32, orWoken wake: Int32) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return send(descriptor, base + offset, buffer.count - offset, sendFlags)
            }
            if sent > 0 {
                offset += sent
            } else if sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                guard wait(for: Int32(POLLOUT), on: descriptor, orWoken: wake) == .ready else { return false }
            } else if sent < 0 && errno == EINTR {
                continue
            } else {
                return false
            }
        }
        return true
    }

    /// Reads what is available into `buffer`, waiting for at least one byte.
    ///
    /// - Returns: The number of bytes appended; 0 at end of stream, on error, or when woken.
    static func receive(into buffer: inout [UInt8], from descriptor: Int32, orWoken wake: Int32, timeout: Int32 = -1)
        -> Int
    {
        guard wait(for: Int32(POLLIN), on: descriptor, orWoken: wake, timeout: timeout) == .ready else { return 0 }
        var chunk = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return 0 }
            buffer.append(contentsOf: chunk[0..<count])
            return count
        }
    }

    /// Makes the next `close` abort the connection with RST instead of closing it with FIN.
    static func setLingerZero(_ descriptor: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    /// Sends FIN: the peer reads end of stream once it has read everything sent before.
    static func shutdownWrite(_ descriptor: Int32) {
        _ = shutdown(descriptor, Int32(SHUT_WR))
    }

    private static func failure(_ call: String) -> MockServerError {
        let code = errno
        return MockServerError(.socketFailure, "\(call) failed: \(String(cString: strerror(code))) (errno \(code))")
    }
}
