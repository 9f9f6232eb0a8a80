import HTTPTypes
import Synchronization
public import Transport

/// Single flight: identical `GET` and `HEAD` requests in flight at the same time share one
/// transfer, and each caller gets its response.
///
/// ```swift
/// let sharing = InFlightSharing()
/// let transport = MiddlewareTransport(try CurlTransport(), middleware: [sharing])
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
/// shared transfer's events (progress, redirects, metrics, retries) while it waits.
///
/// ## Only bodies in memory are shared
///
/// A response is shared when its body is already in memory: the path of
/// ``/Transport/HTTPTransport/data(for:)`` through ``/Transport/MiddlewareTransport``, which
/// collects the body before the middleware sees it. A streamed body
/// (``/Transport/HTTPTransport/send(_:)``, or an inner middleware that streams) can be read
/// once only, so it goes to the caller that started the transfer and every other caller sends
/// its own request, not shared. A caller of `send(_:)` that joins a transfer made through
/// `data(for:)` receives the body already in memory; the bytes are the same.
///
/// ## Cancellation
///
/// A caller that is cancelled stops waiting at once and fails with a `.cancelled`
/// ``/Transport/TransportError``; the others go on waiting, and a failure of the shared
/// transfer itself is every caller's failure. When the last caller is cancelled, the transfer
/// is cancelled, and the next identical request starts a new one.
///
/// A middleware may use its `next` only during its own call, so the shared transfer runs in
/// the call of the caller that started it. When that caller is cancelled while others still
/// wait, its transfer stops with it and the others start a new one at once, in the call of
/// whichever of them gets there first, and share it as before: the server then sees the
/// request twice, and no caller waits for a transfer that nobody carries.
///
/// ## Where it goes
///
/// Put it outermost: outside `RetryMiddleware`, so that the retries of a shared request are
/// made once for every caller (inside, a retry policy with a deadline cuts each attempt's
/// deadline, which makes requests differ), and outside ``ConcurrencyLimit``, so that a shared
/// transfer takes one slot. The transfer runs through the inner layers of the caller that
/// started it. The ``/Transport/DataResponse/metrics`` of `data(for:)` are filled in for that
/// caller only; the others get them as the `.metrics` transfer event.
public final class InFlightSharing: TransportMiddleware {
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

    /// What a caller is given.
    private enum Delivery: Sendable {
        /// No transfer was in flight: send the request (which tells every caller its events)
        /// and hand its outcome to those who wait.
        case carry(TransportRequest)
        /// The shared response, or the shared failure.
        case outcome(Result<TransportResponse, any Error>)
        /// The response streamed, and went to the caller that carried the transfer: send
        /// your own request.
        case sendYourOwn
        /// The caller that carried the transfer was cancelled: join or start a new one.
        case startAgain
    }

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Delivery, any Error>
    }

    /// One shared transfer: the caller carrying it, and the callers waiting for it.
    private struct Flight {
        /// The carrier's identifier.
        let id: UInt64
        var waiters: [Waiter] = []
        let listeners: Listeners
    }

    private struct State {
        var flights: [Key: Flight] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Creates the middleware, with no transfer in flight.
    public init() {}

    /// How many shared transfers are in flight now.
    public var transfersInFlight: Int { state.withLock { $0.flights.count } }

    /// How many callers wait for a transfer another caller carries, now.
    public var waitingCallers: Int { state.withLock { $0.flights.values.reduce(0) { $0 + $1.waiters.count } } }

    /// Joins an identical transfer in flight, or starts one; other requests go through as they are.
    public func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
        guard Self.isShareable(request) else { return try await next(request) }
        let key = Key(request)
        while true {
            let id = state.withLock { state in
                state.nextID += 1
                return state.nextID
            }
            let delivery = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Delivery, any Error>) in
                    enter(key: key, request: request, id: id, continuation: continuation)
                }
            } onCancel: {
                leave(key: key, waiter: id, request: request)
            }
            switch delivery {
            case .carry(let shared): return try await carry(shared, key: key, id: id, next: next)
            case .outcome(let result): return try result.get()
            case .sendYourOwn: return try await next(request)
            case .startAgain: continue
            }
        }
    }

    /// Only `GET` and `HEAD` without a body are shared.
    private static func isShareable(_ request: TransportRequest) -> Bool {
        guard request.body == nil else { return false }
        return request.head.method == .get || request.head.method == .head
    }

    /// Registers a caller: as the carrier of a new flight when there is none for `key`
    /// (resuming it at once with ``Delivery/carry(_:)``), otherwise as a waiter of the one in
    /// flight. A caller already cancelled is resumed with the cancellation.
    private func enter(
        key: Key, request: TransportRequest, id: UInt64, continuation: CheckedContinuation<Delivery, any Error>
    ) {
        let now: Result<Delivery, any Error>? = state.withLock { state in
            // The cancellation flag is read under the lock `leave` takes, so a cancellation
            // is seen either here or there, never lost between the two.
            guard !Task.isCancelled else { return .failure(Self.cancelled(request)) }
            if let flight = state.flights[key] {
                flight.listeners.add(id, request.options.eventHandler)
                state.flights[key]?.waiters.append(Waiter(id: id, continuation: continuation))
                return nil
            }
            let listeners = Listeners()
            listeners.add(id, request.options.eventHandler)
            state.flights[key] = Flight(id: id, listeners: listeners)
            var shared = request
            shared.options.eventHandler = { event in listeners.send(event) }
            return .success(.carry(shared))
        }
        if let now { continuation.resume(with: now) }
    }

    /// Sends the shared request in the carrier's call and hands its outcome to every waiter.
    private func carry(_ request: TransportRequest, key: Key, id: UInt64, next: Next) async throws
        -> TransportResponse
    {
        let result: Result<TransportResponse, any Error>
        do {
            result = .success(try await next(request))
        } catch {
            result = .failure(error)
        }
        let flight = state.withLock { state -> Flight? in
            guard let flight = state.flights[key], flight.id == id else { return nil }
            state.flights[key] = nil
            return flight
        }
        guard let flight else { return try result.get() }
        let delivery: Delivery
        switch result {
        case .failure where Task.isCancelled:
            // The carrier's own cancellation stopped the transfer: the others start again.
            delivery = .startAgain
        case .failure:
            delivery = .outcome(result)
        case .success(let response) where response.body.collectedData != nil:
            delivery = .outcome(result)
        case .success:
            // A streamed body can be read once: it is the carrier's, with the events of the
            // rest of its transfer; the others send their own requests.
            flight.listeners.keepOnly(id)
            delivery = .sendYourOwn
        }
        for waiter in flight.waiters { waiter.continuation.resume(returning: delivery) }
        return try result.get()
    }

    /// A waiting caller's task was cancelled: it stops waiting at once.
    private func leave(key: Key, waiter id: UInt64, request: TransportRequest) {
        let left = state.withLock { state -> Waiter? in
            guard let flight = state.flights[key],
                let index = flight.waiters.firstIndex(where: { $0.id == id })
            else { return nil }
            flight.listeners.remove(id)
            return state.flights[key]?.waiters.remove(at: index)
        }
        left?.continuation.resume(throwing: Self.cancelled(request))
    }

    private static func cancelled(_ request: TransportRequest) -> TransportError {
        TransportError.cancelledWhileWaiting(request.url, for: "waited for a shared transfer")
    }
}

/// The event handlers of a flight's callers, by caller.
private final class Listeners: Sendable {
    private let handlers = Mutex<[(id: UInt64, handler: @Sendable (TransferEvent) -> Void)]>([])

    func add(_ id: UInt64, _ handler: (@Sendable (TransferEvent) -> Void)?) {
        guard let handler else { return }
        handlers.withLock { $0.append((id, handler)) }
    }

    func remove(_ id: UInt64) {
        handlers.withLock { $0.removeAll { $0.id == id } }
    }

    func keepOnly(_ id: UInt64) {
        handlers.withLock { $0.removeAll { $0.id != id } }
    }

    func send(_ event: TransferEvent) {
        let current = handlers.withLock { $0 }
        for entry in current { entry.handler(event) }
    }
}
