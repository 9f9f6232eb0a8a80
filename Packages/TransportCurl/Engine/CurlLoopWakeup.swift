import CCurl
import Foundation
import Transport

/// The descriptor that wakes a ``CurlEventLoop`` from `epoll_wait`: an eventfd in the loop's
/// epoll set, which any thread makes readable and the loop drains.
///
/// ``CurlCommandQueue`` signals it, under its lock, only while the loop waits (and once per
/// wait), and never after the loop has closed the queue; the loop closes the descriptor only
/// after that, so no signal can reach a closed (or reused) descriptor.
final class CurlLoopWakeup: Sendable {
    /// The eventfd.
    let descriptor: Int32

    /// A new eventfd.
    ///
    /// - Throws: ``TransportError`` when the system cannot make one (out of descriptors).
    init() throws {
        let descriptor = parley_eventfd_create()
        guard descriptor >= 0 else {
            throw TransportError(
                .other,
                message:
                    "The engine could not create its wakeup descriptor (eventfd: \(String(cString: strerror(errno)))); "
                    + "the process may be out of file descriptors (raise `ulimit -n`).",
                mayHaveReachedServer: false)
        }
        self.descriptor = descriptor
    }

    /// Makes the descriptor readable, so that the loop's `epoll_wait` returns. Any thread.
    func signal() {
        parley_eventfd_signal(descriptor)
    }

    /// Makes the descriptor unreadable again. Loop thread.
    func drain() {
        parley_eventfd_drain(descriptor)
    }

    /// Closes the descriptor, once the queue can signal it no more. Loop thread.
    func close() {
        _ = Glibc.close(descriptor)
    }
}
