public import HTTPTypes
public import Transport

/// A failed attempt, as a ``RetryPolicy`` sees it.
public enum RetryFailure: Sendable {
    /// The transfer failed.
    case transport(TransportError)
    /// The server answered with a status the policy may retry (its head carries any `Retry-After`).
    case status(HTTPResponse, url: String)
    /// The server answered with a body the policy's ``RetryPolicy/classifier`` read as a
    /// failure (an envelope's "server busy" code).
    case business(ResponseClassification, head: HTTPResponse, url: String)

    /// A few words for events and log lines: `HTTP 503 Service Unavailable`, the transport's
    /// message, or the business code and message.
    public var reason: String {
        switch self {
        case .transport(let error): error.message
        case .status(let head, _): "HTTP \(Self.describe(head.status))"
        case .business(let classification, _, _): classification.reason
        }
    }

    /// The response head, for the failures that have one.
    public var head: HTTPResponse? {
        switch self {
        case .transport: nil
        case .status(let head, _), .business(_, let head, _): head
        }
    }

    static func describe(_ status: HTTPResponse.Status) -> String {
        status.reasonPhrase.isEmpty ? "\(status.code)" : "\(status.code) \(status.reasonPhrase)"
    }
}

/// Whether a failure is of a kind a ``RetryPolicy`` retries, before any limit is counted.
public enum RetryClassification: Sendable, Hashable {
    /// Retried, limits permitting.
    case retryable
    /// Never retried; `reason` completes "Not retried: …" in the error.
    case notRetryable(reason: String)
    /// Not retried, with nothing to explain: a cancellation or a shutdown.
    case final
}

/// What a ``RetryPolicy`` does after a failed attempt.
public enum RetryDecision: Sendable, Hashable {
    /// Send the request again after `delay`; `serverAsked` when `Retry-After` chose it.
    case retry(after: Duration, serverAsked: Bool)
    /// Stop: the failure stands.
    case stop(RetryStop)
}

/// Why a ``RetryPolicy`` stopped retrying.
public enum RetryStop: Sendable, Hashable {
    /// The failure is of a kind never retried; the reason completes "Not retried: …".
    case notRetryable(reason: String)
    /// A cancellation or a shutdown: nothing to retry, nothing to say.
    case final
    /// ``RetryPolicy/maximumRetries`` retries were made.
    case retriesSpent(retries: Int)
    /// The next retry could not start before the deadline.
    case deadline(Duration)
    /// The server asked to wait `asked`, longer than `allowed` (the policy's longest wait, or
    /// the time left before the deadline).
    case retryAfterTooLong(asked: Duration, allowed: Duration, byDeadline: Bool)
    /// The host's ``RetryBudget`` is spent.
    case budgetExhausted(host: String)
}

extension RetryPolicy {
    // MARK: - Classification

    /// Whether `failure` of `request` is of a kind this policy retries, before the limits
    /// (retries, deadline, budget, `Retry-After`) are counted.
    ///
    /// | Failure | GET, HEAD, PUT, DELETE, OPTIONS | POST, PATCH with a key or opted in | without |
    /// |---|---|---|---|
    /// | did not reach the server (`mayHaveReachedServer == false`) and retryable | retry | retry | retry |
    /// | reset, timeout, stall, incomplete body, empty reply | retry | retry | not retried |
    /// | 408, 429, 500, 502, 503, 504, a body the classifier calls retryable | retry | retry | not retried |
    /// | TLS failure, another 4xx, an invalid request | not retried | not retried | not retried |
    /// | cancellation, shutdown | final | final | final |
    ///
    /// A one-shot body is never sent twice, whatever the failure.
    ///
    /// - Parameters:
    ///   - failure: What went wrong.
    ///   - request: The request it happened to.
    /// - Returns: The classification; a `notRetryable` reason says why, for the error.
    public func classify(_ failure: RetryFailure, of request: RetryRequest) -> RetryClassification {
        switch failure {
        case .transport(let error):
            if error.category == .cancelled || error.category == .shutDown { return .final }
            guard retryableFailures.contains(error.category) else {
                return .notRetryable(reason: Self.neverRetried(error.category))
            }
            if let refusal = bodyRefusal(request) { return refusal }
            if !error.mayHaveReachedServer { return .retryable }
            return methodRefusal(request, after: "it failed after it may have reached the server") ?? .retryable
        case .status(let head, _):
            guard retryableStatuses.contains(head.status.code) else {
                return .notRetryable(reason: "HTTP \(head.status.code) is not a status a retry can change.")
            }
            if let refusal = bodyRefusal(request) { return refusal }
            return methodRefusal(request, after: "the server answered \(head.status.code)") ?? .retryable
        case .business(let classification, _, _):
            guard classification.verdict == .retryable else {
                return .notRetryable(reason: "code \(classification.code) is not one the policy's classifier retries.")
            }
            if let refusal = bodyRefusal(request) { return refusal }
            return methodRefusal(request, after: "the server answered code \(classification.code)") ?? .retryable
        }
    }

    private func bodyRefusal(_ request: RetryRequest) -> RetryClassification? {
        guard request.body == .oneShot else { return nil }
        return .notRetryable(
            reason: "the request body is a one-shot stream, which can be sent only once. Make it with "
                + "RequestBody.stream(length:_:) and a factory to let it be retried.")
    }

    private func methodRefusal(_ request: RetryRequest, after what: String) -> RetryClassification? {
        if request.isIdempotentMethod || request.idempotencyKey != nil || retriesNonIdempotentRequests { return nil }
        return .notRetryable(
            reason: "a \(request.method.rawValue) is not idempotent and \(what), so the server may already have "
                + "applied it. Send an Idempotency-Key (the form's idempotencyKey) to make it safe to retry, or "
                + "opt in with retriesNonIdempotentRequests.")
    }

    private static func neverRetried(_ category: TransportError.Category) -> String {
        switch category {
        case .tlsFailure:
            "a TLS failure (a certificate or handshake problem) does not go away by trying again."
        case .invalidURL, .invalidHeader, .invalidBody:
            "the request itself is invalid, so every attempt would fail the same way."
        case .deadlineExceeded:
            "the request's deadline has passed."
        case .retryBudgetExhausted, .retryAfterTooLong:
            "a retry already decided against it."
        default:
            "\(category) failures come back the same on every attempt."
        }
    }

    // MARK: - Deciding

    /// What to do after a failed attempt: retry after a wait, or stop and why.
    ///
    /// The checks, in order: the ``classify(_:of:)`` rules; the retry count; the host's budget
    /// (an attempt that failed retryably takes a token, here); the server's `Retry-After`
    /// against ``longestRetryAfter`` and the deadline; the backoff against the deadline.
    ///
    /// - Parameters:
    ///   - failure: What went wrong.
    ///   - request: The request.
    ///   - retriesSoFar: Retries already made (0 after the first attempt).
    ///   - elapsed: Time since the first attempt started.
    /// - Returns: The decision.
    public func decide(
        after failure: RetryFailure, of request: RetryRequest, retriesSoFar: Int, elapsed: Duration
    ) -> RetryDecision {
        switch classify(failure, of: request) {
        case .final: return .stop(.final)
        case .notRetryable(let reason): return .stop(.notRetryable(reason: reason))
        case .retryable: break
        }
        let budgetAllows = budget?.recordFailure(for: request.host) ?? true
        guard retriesSoFar < maximumRetries else { return .stop(.retriesSpent(retries: max(0, retriesSoFar))) }
        guard budgetAllows else { return .stop(.budgetExhausted(host: request.host)) }
        let remaining = deadline.map { $0 - elapsed }
        if let value = failure.head?.headerFields[.retryAfter],
            let asked = RetryAfter.delay(from: value, now: clock.date)
        {
            if asked > longestRetryAfter {
                return .stop(.retryAfterTooLong(asked: asked, allowed: longestRetryAfter, byDeadline: false))
            }
            if let remaining, asked >= remaining {
                return .stop(.retryAfterTooLong(asked: asked, allowed: max(.zero, remaining), byDeadline: true))
            }
            return .retry(after: asked, serverAsked: true)
        }
        let delay = backoff(beforeRetry: retriesSoFar + 1)
        if let deadline, let remaining, delay >= remaining { return .stop(.deadline(deadline)) }
        return .retry(after: delay, serverAsked: false)
    }

    /// Records an attempt that got an answer a retry would not change, refilling the host's budget.
    ///
    /// - Parameter request: The request that was answered.
    public func recordSuccess(of request: RetryRequest) {
        budget?.recordSuccess(for: request.host)
    }
}
