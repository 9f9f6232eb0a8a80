public import HTTPTypes
public import Transport

/// A business type that offers a person to send a request again after the automatic retries
/// gave up on a network failure: the seeds' "network error screen, tap to re-request".
///
/// Adopt it beside `Requestable`; requests the type sends then ask ``reloadPrompt`` before
/// they fail for good:
///
/// ```swift
/// struct ForecastScreen: WeatherAPI, Reloadable {}   // asks through ReloadSystem.prompt
/// ```
///
/// Only network failures are offered (a refused, reset or timed-out connection, a DNS failure,
/// a stall, an empty reply or an incomplete body), after the policy's own retries are spent,
/// its budget is exhausted, or its rules forbade retrying (a POST without an `Idempotency-Key`:
/// the prompt then says that the request may already have been applied). A request whose body
/// cannot be replayed, or whose deadline has passed, is not offered.
public protocol Reloadable {
    /// Who is asked: ``ReloadSystem/prompt`` by default. `nil` never asks.
    var reloadPrompt: (any ReloadPrompt)? { get }
}

extension Reloadable {
    /// ``ReloadSystem/prompt``.
    public var reloadPrompt: (any ReloadPrompt)? { ReloadSystem.prompt }
}

/// Asks whether a failed request is sent again: FeedbackConsole's `ConsoleReloadPrompt` asks
/// the person at the terminal; a test can answer from a script.
public protocol ReloadPrompt: Sendable {
    /// Whether to send the request again.
    ///
    /// - Parameter failure: What failed, after how many attempts, and whether it may already
    ///   have been applied.
    /// - Returns: `true` to send it again (with its retries renewed), `false` to fail.
    func shouldReload(after failure: ReloadContext) async -> Bool
}

/// What a ``ReloadPrompt`` is told about the failure it asks about.
public struct ReloadContext: Sendable {
    /// The request's method.
    public var method: HTTPRequest.Method
    /// The request's URL, unredacted (credentials included), for programs; a prompt shows
    /// ``error``'s message, which is redacted.
    public var url: String
    /// The last attempt's failure.
    public var error: TransportError
    /// The attempts made so far, counting every earlier reload's.
    public var attempts: Int
    /// Whether the server may already have applied the request: it may have reached the
    /// server, and repeating it is not known to be safe (not idempotent, no `Idempotency-Key`).
    public var mayHaveBeenApplied: Bool
    /// Why the automatic retries stopped, as a sentence.
    public var reason: String

    /// Creates a context.
    public init(
        method: HTTPRequest.Method, url: String, error: TransportError, attempts: Int, mayHaveBeenApplied: Bool,
        reason: String
    ) {
        self.method = method
        self.url = url
        self.error = error
        self.attempts = attempts
        self.mayHaveBeenApplied = mayHaveBeenApplied
        self.reason = reason
    }
}

/// The application's one reload prompt, in the style of swift-log's `LoggingSystem`: the
/// composition root installs it once; every ``Reloadable`` asks it unless it names its own.
public enum ReloadSystem {
    private static let current = PThreadMutex<(any ReloadPrompt)?>(nil)

    /// Installs the prompt (or `nil` for none, such as with `--no-input`).
    ///
    /// - Parameter prompt: The prompt every ``Reloadable`` asks from now on.
    public static func bootstrap(_ prompt: (any ReloadPrompt)?) {
        current.withLock { $0 = prompt }
    }

    /// The installed prompt; `nil` until ``bootstrap(_:)``.
    public static var prompt: (any ReloadPrompt)? {
        current.withLock { $0 }
    }
}

extension RetryPolicy {
    /// What a ``ReloadPrompt`` is asked after the automatic retries stopped on `error`, or
    /// `nil` when the failure is not offered: only network failures (the policy's
    /// ``retryableFailures``) whose retries were spent, stopped by the budget, or refused by
    /// the rules (a POST without a key), and whose body can be sent again.
    ///
    /// - Parameters:
    ///   - error: The failure that stands.
    ///   - stop: Why the policy stopped.
    ///   - request: The request.
    ///   - attempts: The attempts made so far.
    /// - Returns: The context to ask with, or `nil`.
    public func reloadOffer(
        after error: TransportError, stop: RetryStop, of request: RetryRequest, attempts: Int
    ) -> ReloadContext? {
        guard retryableFailures.contains(error.category), request.body != .oneShot else { return nil }
        switch stop {
        case .retriesSpent, .budgetExhausted, .notRetryable: break
        case .final, .deadline, .retryAfterTooLong: return nil
        }
        let safe = request.isIdempotentMethod || request.idempotencyKey != nil
        return ReloadContext(
            method: request.method, url: request.url, error: error, attempts: attempts,
            mayHaveBeenApplied: error.mayHaveReachedServer && !safe,
            reason: RetrySession.explain(stop, attempts: attempts, elapsed: nil))
    }
}
