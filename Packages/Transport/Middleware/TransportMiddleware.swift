import Foundation

/// A layer around sending: it may adapt the request, answer without sending
/// (short-circuit), or observe and rewrite the response.
///
/// Middleware forms an onion: the first in the list is the outermost, sees the request
/// first and the response last. It is the one interception chain of the library: retries,
/// authentication, the cache and the concurrency limit are links of it, and a client's plugins
/// compile into links of it. Their order, outermost first: what sees the logical request once
/// (a request's span: `RequestTelemetry`), retries, observers of each attempt (metrics,
/// tracing: `AttemptTelemetry`), authentication, the cache, the concurrency limit, the
/// transport.
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

/// A transport that runs every request through a list of middleware before a base transport:
/// the middleware onion.
///
/// The onion is built from non-escaping closures, so running it allocates nothing for its
/// links. ``data(for:)`` keeps the base transport's collected fast path: the middleware see one
/// ``TransportResponse`` whose body is already in memory and which carries the transfer's
/// metrics, and the response they return is handed back as a ``DataResponse`` without copying
/// or collecting the body again.
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
        try await Self.run(request, through: middleware[...]) { [base] request in try await base.send(request) }
    }

    /// Runs the chain around the base transport's ``HTTPTransport/data(for:)``.
    public func data(for request: TransportRequest) async throws -> DataResponse {
        let response = try await Self.run(request, through: middleware[...]) { [base] request in
            TransportResponse(try await base.data(for: request))
        }
        // A body already in memory passed the base transport's own limit, which may be an
        // engine-wide default the request never set; checking it again against the request's
        // options alone would apply the built-in 64 MiB instead. Only a body a middleware
        // streams itself is collected here, under the request's limit.
        if let collected = DataResponse(collected: response) { return collected }
        return try await response.collected(upTo: request.options.maximumBodySize)
    }

    /// Runs `request` through `middleware`, outermost first, then through `core`.
    ///
    /// This is the onion itself, for code that composes its own links around a core without
    /// making a transport of them (a client's hooks and retries around its middleware).
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - middleware: The links, outermost first.
    ///   - core: What the innermost link's `next` calls: the transport, or more links.
    /// - Returns: The response the outermost link returns.
    /// - Throws: Whatever a link or the core throws.
    public static func run(
        _ request: TransportRequest,
        through middleware: ArraySlice<any TransportMiddleware>,
        core: TransportMiddleware.Next
    ) async throws -> TransportResponse {
        guard let outermost = middleware.first else { return try await core(request) }
        let inner = middleware.dropFirst()
        // The innermost link calls the core itself: no frame of `run` and its closure between.
        guard !inner.isEmpty else { return try await outermost.intercept(request, next: core) }
        return try await outermost.intercept(request) { request in
            try await run(request, through: inner, core: core)
        }
    }
}
