import Foundation
import HTTPTypes
import MockBackend
import Retry
import Synchronization
import TestSupport
import Testing
import Transport
import TransportCurl

/// `RequestHandle.suspend()` and `resume()` on the real engine, against the mock server's slow
/// `/bytes` route: a suspended request stops receiving (its progress stands still over an
/// interval), then completes with every byte once resumed. No test measures a time: each
/// waits a while and checks that no byte arrived meanwhile.
@Suite struct SuspensionTests {
    /// 8 MiB, 10 ms after each 64 KiB: about 1.3 s unsuspended.
    static let count = 8 << 20
    static let slow = "chunk-delay=10"

    /// The highest byte count the transfer reported so far.
    final class Received: Sendable {
        let bytes = Atomic<Int64>(0)
        /// Runs when a retry is announced.
        let retryHook = PThreadMutex<(@Sendable () -> Void)?>(nil)

        /// A transfer-event handler that records download progress.
        var handler: @Sendable (TransferEvent) -> Void {
            { [self] event in
                switch event {
                case .downloadProgress(let progress): bytes.store(progress.completed, ordering: .relaxed)
                case .retry: retryHook.withLock { $0 }?()
                default: break
                }
            }
        }
        var now: Int64 { bytes.load(ordering: .relaxed) }
    }

    /// A handle that collects `url` with `transport`, as a client's handle does (its operation
    /// runs in an awaiting task when one claims it).
    static func handle(
        _ url: String, transport: some HTTPTransport, received: Received, stallTimeout: Duration? = nil,
        startImmediately: Bool = true
    ) throws -> RequestHandle<DataResponse> {
        var request = try TransportRequest(method: .get, url: url)
        request.options.eventHandler = received.handler
        if let stallTimeout { request.options.stallTimeout = stallTimeout }
        let sent = request
        return RequestHandle(startImmediately: startImmediately, runsInAwaitingTask: true) { _ in
            let response = try await transport.data(for: sent)
            return .init(value: response, response: nil)
        }
    }

    /// Waits for the bytes buffered before the suspension to settle, then checks that none
    /// arrives over a further interval; returns the count it stood at.
    ///
    /// - Parameter lateRead: How many bytes may still be reported after the settling: for a
    ///   transfer held from its start, the one read that brought the head in with the first
    ///   bytes of the body (a collected transfer's receive buffer, 16 KiB), which libcurl keeps
    ///   for after the pause and counts in its progress the next time it looks at the transfer,
    ///   which on a loaded machine (under a sanitizer, beside a build) can come after the
    ///   settling. A transfer that was never held moves megabytes in that time.
    static func expectStandsStill(
        _ received: Received, lateRead: Int64 = 0, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Int64 {
        try await Task.sleep(for: .milliseconds(300))
        let held = received.now
        try await Task.sleep(for: .milliseconds(700))
        #expect(received.now - held <= lateRead, "bytes arrived while suspended", sourceLocation: sourceLocation)
        #expect(held < Int64(count), sourceLocation: sourceLocation)
        return held
    }

    /// Checked to fail: with `onWrite` ignoring `isSuspended` and `applySuspension` not
    /// pausing, the byte count grows while suspended (and with it the whole body arrives).
    @Test(arguments: [false, true])
    func aSuspendedRequestStopsReceivingAndResumesToTheWholeBody(inItsOwnTask: Bool) async throws {
        try await MockServer.withRunning { server in
            let transport = try CurlTransport()
            defer { Task { await transport.shutdown() } }
            let received = Received()
            let handle = try Self.handle(
                server.url("/bytes/\(Self.count)?\(Self.slow)"), transport: transport, received: received)
            let outcome = Task { await handle.result }
            // A handler launches the run in a task of its own; otherwise the awaiting task runs it.
            if inItsOwnTask { handle.completion { _ in } }
            try await waitUntil { received.now >= 256 << 10 }

            handle.suspend()
            #expect(handle.isSuspended)
            _ = try await Self.expectStandsStill(received)

            handle.resume()
            #expect(!handle.isSuspended)
            let response = try await outcome.value.get()
            #expect(response.body == Data(BytePattern.bytes(0..<Self.count)))
        }
    }

    /// Checked to fail: with the stall check not excusing a suspended transfer, the request
    /// fails with `.stalledTransfer` during the suspension.
    ///
    /// Suspended before it starts, and served at full speed, so that no pause of a loaded
    /// machine before or after the suspension can pass for a stall: the only long wait is the
    /// suspension's.
    @Test func aStallTimeoutShorterThanTheSuspensionDoesNotFailTheRequest() async throws {
        try await MockServer.withRunning { server in
            let transport = try CurlTransport()
            defer { Task { await transport.shutdown() } }
            let received = Received()
            let handle = try Self.handle(
                server.url("/bytes/\(Self.count)"), transport: transport, received: received,
                stallTimeout: .seconds(2), startImmediately: false)
            handle.suspend()
            handle.start()
            let outcome = Task { await handle.result }
            try await waitUntil { server.receivedRequests().count == 1 }
            _ = try await Self.expectStandsStill(received)
            // Held well past the stall timeout (and its last check, at nine eighths of it).
            try await Task.sleep(for: .seconds(3))
            #expect(received.now < Int64(Self.count))
            handle.resume()
            let response = try await outcome.value.get()
            #expect(response.body.count == Self.count)
        }
    }

    /// Checked to fail: with `attach` not reading `suspendRequested`, the transfer of a handle
    /// suspended before its start runs to the end.
    @Test func aHandleSuspendedBeforeItStartsStartsHeld() async throws {
        try await MockServer.withRunning { server in
            let transport = try CurlTransport()
            defer { Task { await transport.shutdown() } }
            let received = Received()
            let handle = try Self.handle(
                server.url("/bytes/\(Self.count)?\(Self.slow)"), transport: transport, received: received,
                startImmediately: false)
            handle.suspend()
            handle.start()
            handle.completion { _ in }
            try await waitUntil { server.receivedRequests().count == 1 }
            _ = try await Self.expectStandsStill(received, lateRead: 16 << 10)
            #expect(handle.isSuspended)
            handle.resume()
            let response = try await handle.value
            #expect(response.body == Data(BytePattern.bytes(0..<Self.count)))
        }
    }

    /// Checked to fail: with a registration not told the run's suspension
    /// (`suspensionForNewHandler` ignored), the second attempt runs to the end while the
    /// handle is suspended.
    @Test func theNextAttemptOfASuspendedRequestStartsHeld() async throws {
        try await MockServer.withRunning { server in
            let engine = try CurlTransport()
            defer { Task { await engine.shutdown() } }
            var policy = RetryPolicy()
            policy.baseDelay = .milliseconds(10)
            policy.budget = nil
            let transport = MiddlewareTransport(engine, middleware: [RetryMiddleware(policy: policy)])
            let received = Received()
            let url = server.url("/bytes/\(Self.count)?\(Self.slow)&drop-after=65536&key=suspend-retry")
            let handle = try Self.handle(url, transport: transport, received: received)
            // Suspended as the retry is announced, between the two attempts.
            received.retryHook.withLock { $0 = { [weak handle] in handle?.suspend() } }
            handle.completion { _ in }
            try await waitUntil { handle.isSuspended }
            try await waitUntil { server.receivedRequests().count == 2 }
            _ = try await Self.expectStandsStill(received)
            handle.resume()
            let response = try await handle.value
            #expect(response.body == Data(BytePattern.bytes(0..<Self.count)))
        }
    }
}
