public import Transport

/// When and how a failed request is sent again.
///
/// The defaults are the rules most services expect of a client:
///
/// - **Backoff:** before retry `k`, a wait drawn uniformly from zero to
///   `min(maximumDelay, baseDelay × 2^(k−1))` ("full jitter"), so that clients that failed
///   together do not come back together. Three retries, 0.5 s base, 30 s cap.
/// - **What:** failures that did not reach the server or are safe to repeat (a refused, reset
///   or timed-out connection, a DNS failure, a stall, an incomplete body, an empty reply) and
///   the statuses 408, 429, 500, 502, 503 and 504; see ``classify(_:of:)``.
/// - **Which requests:** GET, HEAD, PUT, DELETE and OPTIONS. POST and PATCH only with an
///   `Idempotency-Key`, or when ``retriesNonIdempotentRequests`` is on, unless the failure
///   proves the request never left the machine. A body that cannot be replayed (a one-shot
///   stream) is never sent twice.
/// - **`Retry-After`:** a server's wait replaces the backoff; a wait longer than
///   ``longestRetryAfter`` or than the time left before ``deadline`` stops the retries, and
///   the error names the wait.
/// - **Budget:** every host shares a ``RetryBudget``, so a failing service is not stormed.
/// - **Bodies:** an answer whose body says "try again" (an envelope's "server busy" code in an
///   answer sent with HTTP 200) is retried like a `503` when the ``classifier`` calls it
///   retryable.
///
/// ```swift
/// var policy = RetryPolicy()
/// policy.maximumRetries = 5
/// policy.deadline = .seconds(20)                                   // over every attempt and wait
/// policy.classifier = EnvelopeClassifier(retryableCodes: [503_1])  // Mapping: the envelope's "server busy"
/// ```
///
/// ``RetrySession`` applies the policy to the attempts of one request; ``RetryLoop`` and the
/// downloads drive it.
public struct RetryPolicy: Sendable {
    /// How many times a request is sent again after its first attempt: 3 by default.
    public var maximumRetries: Int = 3
    /// The scale of the backoff (the ceiling of the first retry's wait): 0.5 s by default.
    public var baseDelay: Duration = .milliseconds(500)
    /// The largest ceiling the backoff grows to: 30 s by default.
    public var maximumDelay: Duration = .seconds(30)
    /// The time all attempts and waits must fit in, counted from the first attempt; `nil` (the
    /// default) for none. Each attempt's own transfer deadline is cut to the time left.
    public var deadline: Duration?
    /// The longest `Retry-After` the policy waits for: 60 s by default. A server that asks
    /// for longer gets no retry.
    public var longestRetryAfter: Duration = .seconds(60)
    /// The statuses retried: 408, 429, 500, 502, 503 and 504 by default.
    public var retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]
    /// The transport failures retried: by default those a new attempt may get past.
    ///
    /// libcurl does not tell a temporary DNS failure from a name that does not exist, so
    /// `dnsFailure` is retried either way; it never reached the server, so a retry is harmless.
    public var retryableFailures: Set<TransportError.Category> = [
        .connectionRefused, .connectionReset, .dnsFailure, .connectTimeout, .stalledTransfer, .incompleteBody,
        .emptyReply,
    ]
    /// Reads the bodies of answers whose status is a success for what the status does not say:
    /// `nil` (the default) reads none.
    ///
    /// An answer it calls ``/Transport/ResponseClassification/Verdict/retryable`` (an
    /// envelope's "server busy" code, for Mapping's `EnvelopeClassifier`) is retried like a
    /// `503`. It is asked only for a `2xx` answer whose body is in memory, once per answer, and
    /// what it read goes on with the response as its
    /// ``/Transport/DataResponse/classification``, where a decoder of the same format finds it.
    public var classifier: (any ResponseClassifier)?
    /// Whether POST, PATCH and other methods that are not idempotent are retried without an
    /// `Idempotency-Key`: `false` by default. Turn it on only for endpoints that are safe to
    /// repeat.
    public var retriesNonIdempotentRequests = false
    /// The budget retries are drawn from: ``RetryBudget/shared`` by default; `nil` for none.
    public var budget: RetryBudget? = .shared
    /// The clock waits and deadlines are measured on: the system's by default.
    public var clock: any RetryClock = SystemRetryClock()
    /// A number drawn uniformly from `0..<1` for the jitter: the system's generator by default.
    public var random: @Sendable () -> Double = { Double.random(in: 0..<1) }

    /// Creates the default policy.
    public init() {}

    /// A policy that never retries: the first attempt's outcome is final.
    public static var never: RetryPolicy {
        var policy = RetryPolicy()
        policy.maximumRetries = 0
        policy.budget = nil
        return policy
    }

    /// The most attempts a request gets: ``maximumRetries`` + 1.
    public var maximumAttempts: Int { max(0, maximumRetries) + 1 }

    // MARK: - Backoff

    /// The ceiling of the wait before retry `retry` (1 for the first retry):
    /// `min(maximumDelay, baseDelay × 2^(retry−1))`.
    ///
    /// - Parameter retry: The retry about to be made, from 1.
    /// - Returns: The ceiling; the wait is drawn from zero to it.
    public func backoffCeiling(beforeRetry retry: Int) -> Duration {
        let cap = max(.zero, maximumDelay)
        var ceiling = max(.zero, baseDelay)
        var doublings = max(0, retry - 1)
        while doublings > 0, ceiling < cap {
            ceiling *= 2
            doublings -= 1
        }
        return min(ceiling, cap)
    }

    /// The wait before retry `retry`: uniformly drawn from zero to ``backoffCeiling(beforeRetry:)``.
    ///
    /// - Parameter retry: The retry about to be made, from 1.
    /// - Returns: The wait.
    public func backoff(beforeRetry retry: Int) -> Duration {
        let fraction = min(max(random(), 0), 1)
        return backoffCeiling(beforeRetry: retry) * fraction
    }
}
