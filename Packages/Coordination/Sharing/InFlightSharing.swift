import HTTPTypes
public import Transport

/// Single flight: a transport around another in which identical `GET` and `HEAD` requests in
/// flight at the same time share one transfer, and each caller gets its response.
///
/// ```swift
/// let transport = InFlightSharing(base: try CurlTransport())
/// // 100 widgets ask for the same forecast at once: the server sees one request.
/// ```
///
/// ## What is identical
///
/// Two requests share a transfer when they have the same method (`GET` or `HEAD`), the same
/// URL, the same header fields (names compared without case, values exactly; fields of one
/// name in the same order) and the same transfer options that shape the answer or the
/// transfer: timeouts, deadline, body and header limits, redirect limit and content decoding.
/// A request differing in any of these, any other method, and any request with a body, is
/// sent on its own. The event handler is not compared: every caller's handler receives the
/// shared transfer's events (progress, redirects, metrics) while it waits.
///
/// ## Only `data(for:)` is shared
///
/// ``data(for:)`` shares: the base transport's ``/Transport/HTTPTransport/data(for:)``
/// collects the body, and the same ``/Transport/DataResponse`` (metrics included) is handed to
/// every caller. ``send(_:)`` passes straight through to the base transport and is never
/// shared: a streamed body can be read once only.
///
/// ## Cancellation
///
/// The shared transfer runs in a task of its own, not in any caller's. A caller that is
/// cancelled stops waiting at once and fails with a `.cancelled`
/// ``/Transport/TransportError``; the transfer goes on for the others, whichever caller
/// started it. When the last caller is cancelled, the transfer is cancelled, and the next
/// identical request starts a new one. A failure of the transfer itself (a timeout, a refused
/// connection) is every caller's failure. An identical request that arrives after the
/// transfer has finished starts a new one: nothing is cached. The transfer's task runs at the
/// priority, and with the task-local values, of the caller that started it.
///
/// ## Where it goes
///
/// It is a transport, so it goes under the middleware: in a client,
/// `configuration.transport = InFlightSharing(base: try CurlTransport())`, and the client's
/// retries, authentication and cache run outside it, for each caller, with their attempts
/// shared while identical. A retry policy with a deadline cuts each attempt's deadline to the
/// time left, which differs from caller to caller, so its requests are not shared. To make a
/// shared transfer take one slot of a ``ConcurrencyLimit``, put the limit under the sharing:
/// `InFlightSharing(base: MiddlewareTransport(try CurlTransport(), middleware: [limit]))`.
public final class InFlightSharing: HTTPTransport {
    /// What makes two requests identical.
    private struct Key: Hashable {
        let head: HTTPRequest
        let connectTimeout: Duration
        let stallTimeout: Duration
        let deadline: Duration?
        let maximumBodySize: Int
        let maximumHeaderSize: Int
        let redirectLimit: Int
        let decodesContent: Bool

        init(_ request: TransportRequest) {
            head = request.head
            connectTimeout = request.options.connectTimeout
            stallTimeout = request.options.stallTimeout
            deadline = request.options.deadline
            maximumBodySize = request.options.maximumBodySize
            maximumHeaderSize = request.options.maximumHeaderSize
            redirectLimit = request.options.redirects.limit
            decodesContent = request.options.decodesContent
        }
    }

    /// One shared transfer: its task, and the callers waiting for it.
    private struct Flight {
        /// Tells this flight from a later one of the same key.
        let id: UInt64
        /// The transfer. Set right after the flight is registered, under the same lock.
        var task: Task<Void, Never>?
        var waiters: [UInt64: CheckedContinuation<DataResponse, any Error>] = [:]
        let listeners: Listeners
    }

    private struct State {
        var flights: [Key: Flight] = [:]
        var nextID: UInt64 = 0

        mutating func makeID() -> UInt64 {
            nextID += 1
            return nextID
        }
    }

    /// The transport that performs the transfers.
    public let base: any HTTPTransport
    private let state = PThreadMutex(State())

    /// Wraps a transport, with no transfer in flight.
    ///
    /// - Parameter base: The transport that performs the transfers: an engine such as
    ///   `CurlTransport`, or a ``/Transport/MiddlewareTransport`` whose middleware then runs
    ///   once for every shared transfer.
    public init(base: any HTTPTransport) {
        self.base = base
    }

    /// How many shared transfers are in flight now.
    public var transfersInFlight: Int { state.withLock { $0.flights.count } }

    /// How many callers wait for a shared transfer now, the one that started it included.
    public var waitingCallers: Int { state.withLock { $0.flights.values.reduce(0) { $0 + $1.waiters.count } } }

    /// Sends the request through the base transport, never shared: a streamed body can be
    /// read once only.
    ///
    /// - Parameter request: The request.
    /// - Returns: The base transport's response.
    /// - Throws: Whatever the base transport throws.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        try await base.send(request)
    }

    /// Joins an identical transfer in flight, or starts one; other requests go to the base
    /// transport as they are.
    ///
    /// - Parameter request: The request.
    /// - Returns: The shared transfer's response.
    /// - Throws: The shared transfer's failure, or a `.cancelled`
    ///   ``/Transport/TransportError`` when the calling task is cancelled while it waits.
    public func data(for request: TransportRequest) async throws -> DataResponse {
        guard Self.isShareable(request) else { return try await base.data(for: request) }
        let key = Key(request)
        let id = state.withLock { $0.makeID() }
        return try await RequestCancellation.withCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<DataResponse, any Error>) in
                enter(key: key, request: request, id: id, continuation: continuation)
            }
        } onCancel: {
            leave(key: key, caller: id, request: request)
        }
    }

    /// Only `GET` and `HEAD` without a body are shared.
    private static func isShareable(_ request: TransportRequest) -> Bool {
        guard request.body == nil else { return false }
        return request.head.method == .get || request.head.method == .head
    }

    /// Registers a caller with the flight for `key`, starting one when there is none. A caller
    /// already cancelled is resumed with the cancellation and starts nothing.
    private func enter(
        key: Key, request: TransportRequest, id: UInt64, continuation: CheckedContinuation<DataResponse, any Error>
    ) {
        let cancelled = state.withLock { state -> Bool in
            // The cancellation flag is read under the lock `leave` takes, so a cancellation
            // is seen either here or there, never lost between the two.
            guard !RequestCancellation.isCancelled else { return true }
            if let flight = state.flights[key] {
                flight.listeners.add(id, request.options.eventHandler)
                state.flights[key]?.waiters[id] = continuation
                return false
            }
            let flightID = state.makeID()
            let listeners = Listeners()
            listeners.add(id, request.options.eventHandler)
            var fanningOut = request
            fanningOut.options.eventHandler = { event in listeners.send(event) }
            let shared = fanningOut
            state.flights[key] = Flight(id: flightID, waiters: [id: continuation], listeners: listeners)
            // The task cannot finish before it is stored: finishing takes this lock.
            state.flights[key]?.task = Task { [base] in
                let result: Result<DataResponse, any Error>
                do {
                    // The transfer is every caller's: the cancel of the handle that started it
                    // reaches it only as that caller leaving.
                    result = .success(try await RequestCancellation.withoutCurrent { try await base.data(for: shared) })
                } catch {
                    result = .failure(error)
                }
                self.finish(key: key, flight: flightID, with: result)
            }
            return false
        }
        if cancelled { continuation.resume(throwing: Self.cancelled(request)) }
    }

    /// The shared transfer is over: hands its outcome to every caller still waiting.
    private func finish(key: Key, flight id: UInt64, with result: Result<DataResponse, any Error>) {
        let waiters = state.withLock { state -> [CheckedContinuation<DataResponse, any Error>] in
            // When every caller left, the flight was removed (and a new one may have started).
            guard let flight = state.flights[key], flight.id == id else { return [] }
            state.flights[key] = nil
            return Array(flight.waiters.values)
        }
        for waiter in waiters { waiter.resume(with: result) }
    }

    /// A caller's task was cancelled: it stops waiting at once, and when it was the last one
    /// the transfer is cancelled.
    private func leave(key: Key, caller id: UInt64, request: TransportRequest) {
        let (left, orphaned) = state.withLock {
            state -> (CheckedContinuation<DataResponse, any Error>?, Task<Void, Never>?) in
            guard var flight = state.flights[key], let left = flight.waiters.removeValue(forKey: id) else {
                return (nil, nil)
            }
            flight.listeners.remove(id)
            guard flight.waiters.isEmpty else {
                state.flights[key] = flight
                return (left, nil)
            }
            state.flights[key] = nil
            return (left, flight.task)
        }
        orphaned?.cancel()
        left?.resume(throwing: Self.cancelled(request))
    }

    private static func cancelled(_ request: TransportRequest) -> TransportError {
        TransportError.cancelledWhileWaiting(request.url, for: "waited for a shared transfer")
    }
}

/// The event handlers of a flight's callers, by caller.
private final class Listeners: Sendable {
    private let handlers = PThreadMutex<[(id: UInt64, handler: @Sendable (TransferEvent) -> Void)]>([])

    func add(_ id: UInt64, _ handler: (@Sendable (TransferEvent) -> Void)?) {
        guard let handler else { return }
        handlers.withLock { $0.append((id, handler)) }
    }

    func remove(_ id: UInt64) {
        handlers.withLock { $0.removeAll { $0.id == id } }
    }

    func send(_ event: TransferEvent) {
        let current = handlers.withLock { $0 }
        for entry in current { entry.handler(event) }
    }
}
