import CCurl
import Foundation

/// What the loop's epoll set must do for a socket when libcurl's socket callback
/// (`CURLMOPT_SOCKETFUNCTION`) says what libcurl wants from it, and how to recover when
/// `epoll_ctl` disagrees: a pure value, with no I/O, tested as a table.
///
/// libcurl says `CURL_POLL_IN`, `CURL_POLL_OUT`, `CURL_POLL_INOUT` or `CURL_POLL_REMOVE`; the
/// set knows what it holds for the descriptor (the epoll events it watches, 0 when it holds
/// nothing). From the two, ``init(what:registered:)`` decides one `epoll_ctl` operation and
/// the events the descriptor is watched for afterwards.
///
/// The kernel's view can differ from the set's, because descriptors are numbers that the
/// system reuses: a socket closed before libcurl said `CURL_POLL_REMOVE` has already left the
/// epoll set (`EBADF` or `ENOENT` on removal), and its number may come back as a new socket
/// that the set still believes it watches (`ENOENT` on modification) or that another path
/// added (`EEXIST` on addition). ``recovery(after:error:)`` turns each into the operation to
/// try instead, or into the fact that there is nothing left to do.
struct SocketInterest: Equatable, CustomStringConvertible {
    /// One `epoll_ctl` operation, or none.
    enum Operation: Equatable, CustomStringConvertible {
        /// `EPOLL_CTL_ADD`.
        case add
        /// `EPOLL_CTL_MOD`.
        case modify
        /// `EPOLL_CTL_DEL`.
        case remove
        /// The set already holds what libcurl wants.
        case none

        /// The `EPOLL_CTL_*` value, for the operations that are calls.
        var control: Int32? {
            switch self {
            case .add: parley_epoll_ctl_add
            case .modify: parley_epoll_ctl_mod
            case .remove: parley_epoll_ctl_del
            case .none: nil
            }
        }

        /// The operation's name, for test names and messages.
        var description: String {
            switch self {
            case .add: "add"
            case .modify: "modify"
            case .remove: "remove"
            case .none: "nothing"
            }
        }
    }

    /// What to do after `epoll_ctl` failed.
    enum Recovery: Equatable, CustomStringConvertible {
        /// Try this operation instead, with the same events.
        case retry(Operation)
        /// The kernel holds nothing for the descriptor: the set should hold nothing either.
        case gone
        /// The set cannot watch the socket (out of memory, the user's epoll watch limit): the
        /// transfer on it cannot go on.
        case failed

        /// The recovery's name, for test names.
        var description: String {
            switch self {
            case .retry(let operation): "retry as \(operation)"
            case .gone: "gone"
            case .failed: "failed"
            }
        }
    }

    /// The operation to make.
    let operation: Operation
    /// The epoll events watched once it is made: `EPOLLIN`, `EPOLLOUT`, both, or 0 when the
    /// descriptor leaves the set.
    let events: UInt32

    /// The change that gives libcurl what it asked for.
    ///
    /// - Parameters:
    ///   - what: `CURL_POLL_IN`, `CURL_POLL_OUT`, `CURL_POLL_INOUT` or `CURL_POLL_REMOVE`.
    ///     Anything that asks for neither direction is a removal.
    ///   - registered: The events the set watches for the descriptor now, 0 when none.
    init(what: Int32, registered: UInt32) {
        var wanted: UInt32 = 0
        if what != CURL_POLL_REMOVE {
            if what & CURL_POLL_IN != 0 { wanted |= parley_epoll_in }
            if what & CURL_POLL_OUT != 0 { wanted |= parley_epoll_out }
        }
        self.events = wanted
        if wanted == 0 {
            self.operation = registered == 0 ? .none : .remove
        } else if registered == 0 {
            self.operation = .add
        } else {
            self.operation = registered == wanted ? .none : .modify
        }
    }

    /// A change made of its parts, for tests.
    init(operation: Operation, events: UInt32) {
        self.operation = operation
        self.events = events
    }

    /// What to do when `operation` failed with `error` (an `errno` value).
    static func recovery(after operation: Operation, error: Int32) -> Recovery {
        switch (operation, error) {
        // The number was in the kernel's set already: a socket the set thought gone, reused.
        case (.add, EEXIST): .retry(.modify)
        // The kernel dropped the descriptor when its socket closed; the number now names a new
        // socket the set has never added.
        case (.modify, ENOENT): .retry(.add)
        // Closed before libcurl said remove: closing took it out of the set already.
        case (.remove, ENOENT), (.remove, EBADF): .gone
        // Closed before the set could watch it: there is nothing to watch.
        case (.add, EBADF), (.modify, EBADF): .gone
        default: .failed
        }
    }

    /// The change as text, for test names.
    var description: String { "\(operation) (events \(events))" }
}
