import HummingbirdCore
import Logging
import NIOCore
import Synchronization

/// Hummingbird's HTTP/1.1 child channel, with a connection that is accepted but never served
/// closed instead of crashing the process.
///
/// Hummingbird's server reads accepted connections from the listening channel's stream
/// (`for try await child in inbound`) and serves each in a task of its own, whose
/// `executeThenClose` finishes the connection's writer. Stopping the server cancels that loop;
/// a connection accepted just before (a client that connected as the test ended) is still in
/// the stream's buffer, and is dropped with it, its writer never finished. SwiftNIO stops the
/// process when a writer is released unfinished: "Deinited NIOAsyncWriter without calling
/// finish()" (apple/swift-nio#2637 describes the window). ThreadSanitizer's slowdown widens it.
///
/// Here every accepted connection is wrapped in an ``AcceptedConnection``: one the server
/// serves is marked served before Hummingbird handles it; one released unserved closes its
/// channel through `executeThenClose`, in a task of its own, which finishes the writer.
/// `MockServerShutdownTests` connects many clients and stops the server at once, which
/// stopped the process without this wrapper.
struct ClosingChildChannel: ServerChildChannel {
    /// The child channel Hummingbird's `.http1()` builds.
    let base: HTTP1Channel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<AcceptedConnection> {
        base.setup(channel: channel, logger: logger).map { AcceptedConnection($0) }
    }

    func handle(value: AcceptedConnection, logger: Logger) async {
        value.markServed()
        await base.handle(value: value.connection, logger: logger)
    }
}

extension ClosingChildChannel {
    /// A connection the server accepted, which closes itself if it is released unserved.
    final class AcceptedConnection: ServerChildChannelValue {
        /// The connection, as Hummingbird's HTTP/1.1 channel set it up.
        let connection: HTTP1Channel.Value
        /// Whether the server took the connection to serve it: its `executeThenClose` then
        /// finishes the writer. A single flag, so an atomic (see CONTRIBUTING.md, Locks).
        private let served = Atomic<Bool>(false)

        var channel: any Channel { connection.channel }

        init(_ connection: HTTP1Channel.Value) {
            self.connection = connection
        }

        /// Records that the server serves the connection.
        func markServed() {
            served.store(true, ordering: .releasing)
        }

        deinit {
            guard !served.load(ordering: .acquiring) else { return }
            // Unserved: the server stopped before reading it from the listener's stream.
            // `executeThenClose` with nothing to do finishes the writer and closes the channel.
            let connection = self.connection
            Task {
                try? await connection.executeThenClose { _, _ in }
            }
        }
    }
}
