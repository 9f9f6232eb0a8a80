import Glibc

/// A loopback port whose accept queue is full, so a new connection attempt is never answered:
/// the kernel drops the SYN and the client's connect times out, without any packet leaving
/// the machine.
final class UnansweredListener {
    let port: Int
    private let listener: Int32
    private var fillers: [Int32] = []

    init() throws {
        let listener = socket(AF_INET, LinuxSocketType.stream, 0)
        self.listener = listener
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
        }
        guard bound == 0, listen(listener, 0) == 0 else { throw ListenerError() }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        // Fill the accept queue (and the SYN queue entries it admits) without accepting.
        for _ in 0..<4 {
            let client = socket(AF_INET, LinuxSocketType.stream | LinuxSocketType.nonBlocking, 0)
            _ = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            fillers.append(client)
        }
        usleep(100_000)
    }

    deinit {
        for filler in fillers { close(filler) }
        close(listener)
    }

    struct ListenerError: Error {}
}
