import Foundation

/// A layer around sending: it may adapt the request, answer without sending
/// (short-circuit), or observe and rewrite the response.
///
/// Middleware forms an onion: the first in the list is the outermost, sees the request
/// first and the response last.
///
/// ```swift
/// struct BearerToken: TransportMiddleware {
///     let token: String
///     func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
///         var request = request
///         try request.setHeader("Authorization", "Bearer \(token)")
///         return try await next(request)
///     }
/// }
/// let transport = MiddlewareTransport(try CurlTransport(), middleware: [BearerToken(token: t)])
/// ```
///
/// A middleware that waits on something of its own (a timer, a lock, another service) makes
/// the wait cancellable through ``RequestCancellation``: its
/// ``RequestCancellation/withCancellationHandler(operation:onCancel:isolation:)``, or
/// ``RequestCancellation/runCancellable(_:)`` for a wait that honours only task cancellation.
/// A client's handle awaited right after it is made runs its request in the awaiting task,
/// and its `cancel()` reaches the request that way, not by cancelling the task.
public protocol TransportMiddleware: Sendable {
    /// The rest of the chain: the next middleware, or the transport itself.
    typealias Next = @Sendable (TransportRequest) async throws -> TransportResponse

    /// Handles one request.
    ///
    /// - Parameters:
    ///   - request: The request as the outer layers left it.
    ///   - next: Sends the (possibly adapted) request through the inner layers.
    /// - Returns: The response to hand to the outer layers.
    /// - Throws: Whatever the middleware or the inner layers throw.
    func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse
}

/// A transport that runs every request through a list of middleware before a base transport.
///
/// ``data(for:)`` keeps the base transport's collected fast path: the middleware see a
/// response whose body is already in memory.
public struct MiddlewareTransport: HTTPTransport {
    /// The transport at the core of the onion.
    public let base: any HTTPTransport
    /// The middleware, outermost first.
    public let middleware: [any TransportMiddleware]

    /// Wraps `base` in `middleware`.
    ///
    /// - Parameters:
    ///   - base: The transport that performs transfers.
    ///   - middleware: The layers, outermost first.
    public init(_ base: any HTTPTransport, middleware: [any TransportMiddleware]) {
        self.base = base
        self.middleware = middleware
    }

    /// Runs the chain, then the base transport's ``HTTPTransport/send(_:)``.
    public func send(_ request: TransportRequest) async throws -> TransportResponse {
        try await chain(request) { [base] request in try await base.send(request) }
    }

    /// Runs the chain around the base transport's ``HTTPTransport/data(for:)``.
    public func data(for request: TransportRequest) async throws -> DataResponse {
        let lastMetrics = PThreadMutex<TransferMetrics?>(nil)
        let response = try await chain(request) { [base] request in
            let collected = try await base.data(for: request)
            lastMetrics.withLock { $0 = collected.metrics }
            return TransportResponse(head: collected.head, body: ResponseBody(collected.body), url: collected.url)
        }
        // A body already in memory passed the base transport's own limit, which may be an
        // engine-wide default the request never set; checking it again against the request's
        // options alone would apply the built-in 64 MiB instead. Only a body a middleware
        // streams itself is collected here, under the request's limit.
        let body: Data
        if let collected = response.body.collectedData {
            body = collected
        } else {
            body = try await response.body.collect(upTo: request.options.maximumBodySize)
        }
        return DataResponse(
            head: response.head, body: body, url: response.url, metrics: lastMetrics.withLock { $0 })
    }

    private func chain(
        _ request: TransportRequest,
        core: @escaping TransportMiddleware.Next
    ) async throws -> TransportResponse {
        var next = core
        for layer in middleware.reversed() {
            let inner = next
            next = { request in try await layer.intercept(request, next: inner) }
        }
        return try await next(request)
    }
}
