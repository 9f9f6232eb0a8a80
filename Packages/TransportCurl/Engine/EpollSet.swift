import CCurl
import Foundation
import Transport

/// The loop's epoll set: the sockets libcurl asked it to watch, and the loop's wakeup
/// descriptor. Touched only on the loop thread.
///
/// It remembers what it watches for each descriptor in an array indexed by the descriptor
/// (descriptors are small numbers), so that libcurl's socket callback and each ready event
/// cost O(1). ``SocketInterest`` decides each change and each recovery from an `epoll_ctl`
/// failure; ``SocketReadiness`` turns a ready event into what libcurl is told.
final class EpollSet {
    /// The most events one `epoll_wait` returns; more ready sockets wait for the next pass.
    static let eventCapacity: Int32 = 256

    /// The epoll descriptor.
    private let descriptor: Int32
    /// Room for the events `epoll_wait` returns (`struct epoll_event`, which is packed, so
    /// only the C shims read it).
    private let events: UnsafeMutableRawPointer
    /// What the set watches for each descriptor (`EPOLLIN`, `EPOLLOUT`, both), 0 for none.
    ///
    /// Not checked for exclusive access at run time (three checks per socket event). Safety:
    /// the set belongs to one loop and is used on its thread only, and each access is an
    /// element read or written, or the array grown, none of which calls back into the set.
    @exclusivity(unchecked) private var watched: [UInt32] = []

    /// A new, empty set.
    ///
    /// - Throws: ``TransportError`` when the system cannot make one.
    init() throws {
        let descriptor = parley_epoll_create()
        guard descriptor >= 0 else {
            throw TransportError(
                .other,
                message:
                    "The engine could not create its epoll set (epoll_create1: \(String(cString: strerror(errno)))); "
                    + "the process may be out of file descriptors (raise `ulimit -n`).",
                mayHaveReachedServer: false)
        }
        guard let events = parley_epoll_events_allocate(Self.eventCapacity) else {
            _ = Glibc.close(descriptor)
            throw TransportError(
                .other, message: "The engine could not allocate its event buffer (out of memory).",
                mayHaveReachedServer: false)
        }
        self.descriptor = descriptor
        self.events = events
    }

    /// What the set watches `socket` for: `EPOLLIN`, `EPOLLOUT`, both, or 0.
    func watchedEvents(of socket: Int32) -> UInt32 {
        socket >= 0 && Int(socket) < watched.count ? watched[Int(socket)] : 0
    }

    /// Watches `socket` as libcurl's socket callback asks (`CURL_POLL_*`).
    ///
    /// - Returns: `false` when the system cannot watch the socket (the error is in `errno`
    ///   terms in the second value), so the transfer on it cannot go on.
    func watch(_ socket: Int32, what: Int32) -> (watching: Bool, error: Int32) {
        guard socket >= 0 else { return (false, EBADF) }
        let change = SocketInterest(what: what, registered: watchedEvents(of: socket))
        return apply(change, to: socket)
    }

    /// Adds the loop's wakeup descriptor, watched for reading.
    func watchWakeup(_ wakeup: CurlLoopWakeup) throws {
        let (watching, error) = apply(
            SocketInterest(operation: .add, events: parley_epoll_in), to: wakeup.descriptor)
        guard watching else {
            throw TransportError(
                .other,
                message:
                    "The engine could not watch its wakeup descriptor (epoll_ctl: \(String(cString: strerror(error)))).",
                mayHaveReachedServer: false)
        }
    }

    private func apply(_ change: SocketInterest, to socket: Int32) -> (watching: Bool, error: Int32) {
        var operation = change.operation
        // At most one retry: each recovery turns into the other operation, never back.
        for _ in 0..<2 {
            guard let control = operation.control else {
                record(change.events, for: socket)
                return (true, 0)
            }
            let error = parley_epoll_ctl(descriptor, control, socket, change.events)
            if error == 0 {
                record(change.events, for: socket)
                return (true, 0)
            }
            switch SocketInterest.recovery(after: operation, error: error) {
            case .retry(let next):
                operation = next
            case .gone:
                record(0, for: socket)
                return (true, 0)
            case .failed:
                record(0, for: socket)
                return (false, error)
            }
        }
        record(0, for: socket)
        return (false, EINVAL)
    }

    private func record(_ events: UInt32, for socket: Int32) {
        let index = Int(socket)
        if index >= watched.count {
            guard events != 0 else { return }
            watched.append(contentsOf: repeatElement(0, count: max(index + 1, watched.count * 2) - watched.count))
        }
        watched[index] = events
    }

    /// Waits for ready descriptors for at most `timeout` milliseconds (-1: no limit, 0: not at
    /// all), then calls `body` with each ready descriptor and its events.
    func wait(timeout: Int32, _ body: (_ descriptor: Int32, _ events: UInt32) -> Void) {
        let ready = parley_epoll_wait(descriptor, events, Self.eventCapacity, timeout)
        guard ready > 0 else { return }
        for index in 0..<ready {
            body(parley_epoll_event_fd(events, index), parley_epoll_event_bits(events, index))
        }
    }

    /// Closes the set, once libcurl has let go of every socket. Loop thread.
    func close() {
        _ = Glibc.close(descriptor)
        parley_epoll_events_free(events)
    }
}
