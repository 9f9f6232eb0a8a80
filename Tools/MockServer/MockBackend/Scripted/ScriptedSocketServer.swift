import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A raw TCP server on `127.0.0.1` that misbehaves on cue, for failures an HTTP server cannot
/// produce: an empty reply, a reset, a response cut short, a connection that never answers.
///
/// It speaks no HTTP. Each connection is accepted, its request head read up to the blank line
/// (`\r\n\r\n`), and then the ``Behaviour`` decides what happens. Connections are served
/// concurrently, one thread each, so a client that retries or opens a second connection is
/// served too.
///
/// ```swift
/// try await ScriptedSocketServer.withRunning(.reset) { server in
///     await #expect(throws: TransportError.self) {
///         try await transport.data(for: .get("\(server.baseURL)/"))
///     }
///     #expect(server.acceptedConnections >= 1)
/// }
/// ```
///
/// The server runs on its own threads, not on the Swift concurrency pool, so a blocked
/// connection never starves the test. ``stop()`` (or `deinit`) wakes every thread, waits for
/// them to exit and closes every socket.
public final class ScriptedSocketServer: Sendable {
    /// The port the server listens on.
    public let port: Int
    /// What the server does with each connection.
    public let behaviour: Behaviour
    private let shared: SharedState

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// How many connections the server has accepted so far.
    ///
    /// Tests use it to prove a client never connected (for example, that a request rejected by
    /// validation opened no socket) or that it retried.
    public var acceptedConnections: Int {
        shared.acceptedConnections
    }

    /// Binds `127.0.0.1` on an ephemeral port, listens, and starts accepting on a new thread.
    ///
    /// - Parameter behaviour: What to do with each connection.
    /// - Throws: ``MockServerError/Code/socketFailure`` naming the failed call and `errno`.
    public init(behaviour: Behaviour) throws {
        self.behaviour = behaviour
        let listener = try Socket.listenOnLoopback()
        let wakePipe: (read: Int32, write: Int32)
        do {
            wakePipe = try Socket.makePipe()
        } catch {
            _ = close(listener.descriptor)
            throw error
        }
        port = listener.port
        shared = SharedState(listener: listener.descriptor, wakeRead: wakePipe.read, wakeWrite: wakePipe.write)
        shared.startThread { [shared] in
            ScriptedSocketServer.acceptLoop(shared: shared, behaviour: behaviour)
        }
    }

    deinit {
        stop()
    }

    /// Stops the server: closes the listening socket and every connection, and waits for the
    /// server's threads to exit.
    ///
    /// Idempotent, and called by `deinit`. It blocks for as long as the threads take to notice,
    /// which is a few microseconds, so it is safe to call from a test.
    public func stop() {
        shared.stop()
    }

    /// Starts a server with `behaviour`, runs `body`, then stops the server, also when `body` throws.
    ///
    /// - Parameters:
    ///   - behaviour: What to do with each connection.
    ///   - isolation: The actor `body` runs on; the caller's by default.
    ///   - body: The test, given the running server.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws, or ``MockServerError/Code/socketFailure`` when the server
    ///   could not start.
    public static func withRunning<T>(
        _ behaviour: Behaviour,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (ScriptedSocketServer) async throws -> T
    ) async throws -> T {
        let server = try ScriptedSocketServer(behaviour: behaviour)
        defer { server.stop() }
        return try await body(server)
    }

    // MARK: - Threads

    /// Accepts connections until stopped, handing each to its own thread.
    private static func acceptLoop(shared: SharedState, behaviour: Behaviour) {
        while true {
            guard Socket.waitUntilReadable(shared.listener, orWoken: shared.wakeRead) else { return }
            let connection = accept(shared.listener, nil, nil)
            guard connection >= 0 else {
                if errno == EINTR || errno == EAGAIN || errno == ECONNABORTED { continue }
                return
            }
            shared.connectionAccepted()
            shared.startThread {
                ScriptedSocketServer.serve(connection: connection, shared: shared, behaviour: behaviour)
            }
        }
    }

    /// Plays `behaviour` on one connection, then closes it.
    private static func serve(connection: Int32, shared: SharedState, behaviour: Behaviour) {
        var reader = RequestHeadReader(descriptor: connection, wakeDescriptor: shared.wakeRead)
        defer { _ = close(connection) }
        switch behaviour {
        case .closeImmediately:
            guard reader.readHead() else { return }
            reader.skipBody()
            closeGracefully(connection, reader: &reader)
        case .reset:
            guard reader.readHead() else { return }
            Socket.setLingerZero(connection)  // close() now sends RST instead of FIN.
        case .holdOpen:
            guard reader.readHead() else { return }
            reader.discardUntilPeerCloses()
        case .respond(let bytes, let thenClose):
            // Answer every request head on the connection, so a client that keeps the
            // connection alive for its next request gets the same answer.
            while reader.readHead() {
                guard Socket.sendAll(bytes, to: connection, orWoken: shared.wakeRead) else { return }
                reader.skipBody()
                if thenClose {
                    closeGracefully(connection, reader: &reader)
                    return
                }
            }
        }
    }

    /// Sends FIN, then reads until the client closes (at most 2 s), so the `close` that follows
    /// cannot turn into a reset because of unread bytes: the client sees exactly what was sent.
    private static func closeGracefully(_ connection: Int32, reader: inout RequestHeadReader) {
        Socket.shutdownWrite(connection)
        reader.discardUntilPeerCloses(timeout: 2000)
    }
}

/// The state the server shares with its threads: descriptors, the stop flag, the counters.
///
/// Separate from ``ScriptedSocketServer`` so the threads do not keep the server alive, and its
/// `deinit` can stop them.
private final class SharedState: Sendable {
    let listener: Int32
    let wakeRead: Int32
    private let wakeWrite: Int32
    private let state = NIOLockedValueBox(State())
    /// Entered by every thread at start, left when it returns; ``stop()`` waits on it.
    private let threads = DispatchGroup()

    private struct State {
        var accepted = 0
        var stopped = false
    }

    init(listener: Int32, wakeRead: Int32, wakeWrite: Int32) {
        self.listener = listener
        self.wakeRead = wakeRead
        self.wakeWrite = wakeWrite
    }

    var acceptedConnections: Int {
        state.withLockedValue { $0.accepted }
    }

    func connectionAccepted() {
        state.withLockedValue { $0.accepted += 1 }
    }

    /// Runs `work` on a new thread that ``stop()`` waits for.
    func startThread(_ work: @escaping @Sendable () -> Void) {
        threads.enter()
        let thread = Thread { [threads] in
            work()
            threads.leave()
        }
        thread.name = "ScriptedSocketServer"
        thread.start()
    }

    /// Wakes every thread (the wake pipe becomes readable for good), waits for them, and
    /// closes the descriptors. Only the first call does anything.
    func stop() {
        let firstCall = state.withLockedValue { state in
            defer { state.stopped = true }
            return !state.stopped
        }
        guard firstCall else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        threads.wait()
        // Every thread has returned, so no one can be using these descriptors any more.
        _ = close(listener)
        _ = close(wakeRead)
        _ = close(wakeWrite)
    }
}
