import HTTPTypes
public import Transport

/// Why a ``RetrySession`` stopped retrying, and how to say it: the one place the library words
/// a verdict on retries, for errors, log lines and reload prompts.
public struct RetryConclusion: Sendable {
    /// Why the retries stopped.
    public var stop: RetryStop
    /// The last attempt's failure.
    public var failure: RetryFailure
    /// The request.
    public var request: RetryRequest
    /// How the session counted.
    public var counting: RetrySession.Counting
    /// The attempts the verdict counts: the round's, counting per round; the run's, counting in
    /// a row.
    public var attempts: Int
    /// Time since the round's first attempt.
    public var elapsed: Duration
    /// The clock reading before which the server asked not to be asked again (the failure's
    /// `Retry-After`), when it did: a later run of the request waits it out first.
    public var notBefore: Duration?

    /// Creates a conclusion.
    ///
    /// - Parameters:
    ///   - stop: Why the retries stopped.
    ///   - failure: The last attempt's failure.
    ///   - request: The request.
    ///   - counting: How the session counted.
    ///   - attempts: The attempts the verdict counts.
    ///   - elapsed: Time since the round's first attempt.
    ///   - notBefore: The clock reading the server asked to wait for, if any.
    public init(
        stop: RetryStop, failure: RetryFailure, request: RetryRequest, counting: RetrySession.Counting,
        attempts: Int, elapsed: Duration, notBefore: Duration? = nil
    ) {
        self.stop = stop
        self.failure = failure
        self.request = request
        self.counting = counting
        self.attempts = attempts
        self.elapsed = elapsed
        self.notBefore = notBefore
    }

    /// Whether the verdict says anything: not for a cancellation, nor for the only attempt a
    /// policy without retries allows.
    public var hasExplanation: Bool {
        stop != .final && stop != .retriesSpent(retries: 0)
    }

    /// The verdict as a sentence, followed by `next` when given.
    ///
    /// `Gave up after 4 attempts over 3.2 s, the retry policy's limit.`; counting in a row,
    /// `Gave up after 3 attempts in a row; ` and then `next`.
    ///
    /// - Parameter next: What follows, such as what a download keeps; nothing by default.
    /// - Returns: The text; empty for a cancellation.
    public func explanation(followedBy next: String? = nil) -> String {
        if counting == .inARow, case .retriesSpent(let retries) = stop {
            let gaveUp = retries == 0 ? "Gave up after 1 attempt" : "Gave up after \(retries + 1) attempts in a row"
            return gaveUp + (next.map { "; \($0)" } ?? ".")
        }
        let sentence = RetrySession.explain(stop, attempts: attempts, elapsed: elapsed)
        return next.map { sentence.isEmpty ? $0 : "\(sentence) \($0)" } ?? sentence
    }

    /// The warning a client logs when it gives up: `Not retrying GET URL after HTTP 503: Gave
    /// up after …`, credentials redacted; `nil` when there is nothing to explain.
    public var warning: String? {
        guard hasExplanation else { return nil }
        return LogRedaction.redactedText(
            "Not retrying \(request.method.rawValue) \(request.url) after \(failure.reason): \(explanation())")
    }

    /// The error a transport failure stands as once the retries stopped.
    ///
    /// Counting per round (requests), the failure with the verdict appended ("Not retried: a
    /// POST is not idempotent …", "Gave up after 4 attempts over 3.2 s …"), as
    /// `retryBudgetExhausted` when the budget stopped it; unchanged when there is nothing to
    /// explain.
    ///
    /// Counting in a row (downloads), a failure the policy never retries stands as it is. Spent
    /// retries append "Gave up after N attempts in a row" and `next`, keeping the failure's
    /// category; the budget, a `Retry-After` too long and the deadline give the policy's
    /// category (`retryBudgetExhausted`, `retryAfterTooLong`, `deadlineExceeded`) and the
    /// message `answer` (or the failure's own), the verdict, and `next`.
    ///
    /// - Parameters:
    ///   - error: The last attempt's failure, as it will stand.
    ///   - answer: What the server answered, as a sentence that replaces the failure's message
    ///     (and its advice) when something other than the count stopped the retries in a row.
    ///   - next: What follows the verdict, such as what a download keeps.
    /// - Returns: The error.
    public func error(standingFor error: TransportError, answer: String? = nil, then next: String? = nil)
        -> TransportError
    {
        var final = error
        switch counting {
        case .perRound:
            guard hasExplanation else { return error }
            if case .budgetExhausted = stop { final.category = .retryBudgetExhausted }
            final.message += " " + explanation(followedBy: next)
        case .inARow:
            switch stop {
            case .final, .notRetryable:
                return error
            case .retriesSpent:
                final.message += " " + explanation(followedBy: next)
                return final
            case .budgetExhausted:
                final.category = .retryBudgetExhausted
            case .retryAfterTooLong:
                final.category = .retryAfterTooLong
            case .deadline:
                final.category = .deadlineExceeded
            }
            final.message = "\(answer ?? error.message) \(explanation(followedBy: next))"
        }
        return final
    }

    /// The error an answer (a `503`, a "server busy" envelope) stands as when something other
    /// than the count stopped its retries: `retryBudgetExhausted`, `deadlineExceeded` or
    /// `retryAfterTooLong`, naming the answer. `nil` when the answer itself stands: its retries
    /// were spent, or it was never retried, and the layers above report it as any answer.
    public var errorForAnswer: TransportError? {
        let category: TransportError.Category
        switch stop {
        case .final, .notRetryable, .retriesSpent: return nil
        case .budgetExhausted: category = .retryBudgetExhausted
        case .deadline: category = .deadlineExceeded
        case .retryAfterTooLong: category = .retryAfterTooLong
        }
        let url: String
        switch failure {
        case .transport(let error): url = error.url ?? ""
        case .status(_, let answered), .business(_, _, let answered): url = answered
        }
        return TransportError(
            category,
            message: "The server at \(url) answered \(failure.reason). "
                + RetrySession.explain(stop, attempts: attempts, elapsed: nil),
            url: url)
    }
}
