public import Logging
public import Transport

/// The retry link of the middleware onion: runs a request's attempts under a ``RetryPolicy``.
///
/// Forms' clients put one in their onion from their ``RetryPolicy`` setting; code that uses a
/// transport directly puts it in a `MiddlewareTransport`. It goes outside authentication, the
/// cache, sharing and the concurrency limit, so that each attempt goes through them again (an
/// authenticator re-applies its credential, a revalidation may answer it) and a cache hit,
/// which never fails, ends the loop at its first attempt:
///
/// ```swift
/// let transport = MiddlewareTransport(
///     try CurlTransport(), middleware: [RetryMiddleware(policy: RetryPolicy()), authenticator])
/// ```
///
/// Each retry is reported to the request's `TransferOptions.eventHandler` as a
/// ``/Transport/TransferEvent/retry(_:)`` before the wait. A request with an `Idempotency-Key`
/// keeps it on every attempt; generate one with ``IdempotencyKey``.
public struct RetryMiddleware: TransportMiddleware {
    /// The rules.
    public var policy: RetryPolicy
    /// Where retries are logged; `nil` for nowhere.
    public var logger: Logger?
    /// What the logical request keeps between runs (its `Idempotency-Key`, the server's wait),
    /// for a link made for one logical request and its reloads; `nil` (the default) gives each
    /// request a memory of its own.
    public var memory: RetryMemory?
    /// Asked whether to start again once a network failure's retries are over; `nil` (the
    /// default) never asks.
    public var reloadPrompt: (any ReloadPrompt)?

    /// Creates the middleware.
    ///
    /// - Parameters:
    ///   - policy: The rules; the defaults when omitted.
    ///   - logger: Where retries are logged; nowhere by default.
    public init(policy: RetryPolicy = RetryPolicy(), logger: Logger? = nil) {
        self.policy = policy
        self.logger = logger
    }

    /// Runs the request's attempts; each retry is reported to the request's
    /// `TransferOptions.eventHandler` before its wait.
    public func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
        let events = request.options.eventHandler
        let loop = RetryLoop(
            policy: policy, memory: memory ?? RetryMemory(), logger: logger, reloadPrompt: reloadPrompt,
            onRetry: { events?(.retry($0)) })
        return try await loop.run(RetryRequest(request)) { remaining in
            try await next(request.cappingDeadline(to: remaining))
        }
    }
}

extension TransportRequest {
    /// The request with its transfer deadline no later than `remaining`.
    ///
    /// - Parameter remaining: The time left before a retry policy's deadline, if it has one.
    /// - Returns: The request, its deadline cut when needed.
    public func cappingDeadline(to remaining: Duration?) -> TransportRequest {
        guard let remaining else { return self }
        // An engine reads a zero deadline as "none": the last instant is a millisecond.
        let limit = max(remaining, .milliseconds(1))
        var request = self
        request.options.deadline = min(request.options.deadline ?? limit, limit)
        return request
    }
}
