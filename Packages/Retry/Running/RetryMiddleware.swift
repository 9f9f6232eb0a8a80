public import Logging
public import Transport

/// Retries requests sent through a `MiddlewareTransport`, for code that uses a transport
/// directly (Forms' clients retry through their ``RetryPolicy`` setting instead).
///
/// Put it outermost, so that each attempt goes through the other middleware (an
/// authenticator re-applies its credential) again:
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

    /// Creates the middleware.
    ///
    /// - Parameters:
    ///   - policy: The rules; the defaults when omitted.
    ///   - logger: Where retries are logged; nowhere by default.
    public init(policy: RetryPolicy = RetryPolicy(), logger: Logger? = nil) {
        self.policy = policy
        self.logger = logger
    }

    /// Runs the request's attempts.
    public func intercept(_ request: TransportRequest, next: Next) async throws -> TransportResponse {
        let events = request.options.eventHandler
        let loop = RetryLoop(policy: policy, logger: logger, onRetry: { events?(.retry($0)) })
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
