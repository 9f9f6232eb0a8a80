import Foundation
import HTTPTypes
public import Logging
import Mapping
public import Transport

/// Runs the attempts of one logical request under a ``RetryPolicy``: the one retry loop of
/// the library, behind Forms' requests and uploads and ``RetryMiddleware``.
///
/// Each failed attempt is judged by ``RetryPolicy/decide(after:of:retriesSoFar:elapsed:)``;
/// before each retry the loop reports a `RetryEvent` to ``onRetry`` and logs a line, then
/// waits. When the policy stops, the last outcome stands, with what the loop learned added:
///
/// - A transport error is thrown with "Not retried: …" or "Gave up after N attempts …"
///   appended to its message; when the budget stopped it, as a `retryBudgetExhausted` error.
/// - A response (a `503` after the last retry) is returned, so that the layers above report
///   it as they report any status; but when the budget, the deadline or a too-long
///   `Retry-After` stopped the retries early, a ``/Transport/TransportError`` of category
///   `retryBudgetExhausted`, `deadlineExceeded` or `retryAfterTooLong` says so instead.
///
/// When the retries of a network failure are over, ``reloadPrompt`` (a person, through
/// ``Reloadable``) may start a new round.
public struct RetryLoop: Sendable {
    /// The rules.
    public var policy: RetryPolicy
    /// What the logical request remembers between runs.
    public var memory: RetryMemory
    /// Where retries and give-ups are logged; `nil` for nowhere.
    public var logger: Logger?
    /// Asked whether to start again once a network failure's retries are over; `nil` never asks.
    public var reloadPrompt: (any ReloadPrompt)?
    /// Receives each retry before its wait.
    public var onRetry: @Sendable (RetryEvent) -> Void

    /// Creates a loop.
    public init(
        policy: RetryPolicy,
        memory: RetryMemory = RetryMemory(),
        logger: Logger? = nil,
        reloadPrompt: (any ReloadPrompt)? = nil,
        onRetry: @escaping @Sendable (RetryEvent) -> Void = { _ in }
    ) {
        self.policy = policy
        self.memory = memory
        self.logger = logger
        self.reloadPrompt = reloadPrompt
        self.onRetry = onRetry
    }

    /// Runs attempts until one stands.
    ///
    /// - Parameters:
    ///   - describe: The request, for the policy's rules, the budget and the messages; made
    ///     only when an attempt fails (or a success must refill a depleted budget), so that a
    ///     request that succeeds at once pays nothing for it.
    ///   - attempt: Sends one attempt. It is given the time left before the policy's deadline
    ///     (`nil` without one) to cut its own transfer deadline to; it must send the same
    ///     request each time, with ``RetryMemory/idempotencyKey`` when there is one.
    /// - Returns: The response that stands.
    /// - Throws: The failure that stands (see the type's description); `.cancelled` when the
    ///   task is cancelled during a wait.
    public func run<Response: RetryableResponse>(
        _ describe: @autoclosure () -> RetryRequest,
        attempt: (_ remaining: Duration?) async throws -> Response
    ) async throws -> Response {
        let clock = policy.clock
        try await waitForServer(describe, clock: clock)
        var start = clock.now
        var retries = 0
        var described: RetryRequest?
        while true {
            let remaining = policy.deadline.map { max(.zero, $0 - (clock.now - start)) }
            let outcome: Result<Response, TransportError>
            do {
                outcome = .success(try await attempt(remaining))
            } catch let error as TransportError {
                outcome = .failure(error)
            } catch is CancellationError {
                throw Self.cancelled(describe())
            }
            let attempts = memory.countAttempt()
            let failure: RetryFailure
            switch outcome {
            case .success(let response):
                guard let responseFailure = judge(response) else {
                    if let budget = policy.budget, budget.hasDepletedHosts {
                        budget.recordSuccess(for: describe().host)
                    }
                    return response
                }
                failure = responseFailure
            case .failure(let error):
                failure = .transport(error)
            }

            let elapsed = clock.now - start
            let request = described ?? describe()
            described = request
            switch policy.decide(after: failure, of: request, retriesSoFar: retries, elapsed: elapsed) {
            case .retry(let delay, let serverAsked):
                if case .success(let response) = outcome { response.discard() }
                retries += 1
                let event = RetryEvent(
                    attempt: retries + 1, maximumAttempts: policy.maximumAttempts, reason: failure.reason,
                    delay: delay, serverAsked: serverAsked)
                onRetry(event)
                logger?.notice(
                    Logger.Message(
                        stringLiteral: LogRedaction.redactedText(
                            "Retrying \(request.method.rawValue) \(request.url) in \(Self.format(delay))"
                                + "\(serverAsked ? ", the server asked" : ""): attempt \(retries + 1) of "
                                + "\(policy.maximumAttempts), after \(failure.reason)")))
                do {
                    try await clock.sleep(for: delay)
                } catch {
                    throw Self.cancelled(request)
                }
            case .stop(let stop):
                remember(failure, clock: clock)
                if case .failure(let error) = outcome,
                    await offersReload(error, stop: stop, request: request, attempts: attempts)
                {
                    retries = 0
                    start = clock.now
                    continue
                }
                // A first attempt under a policy of no retries has nothing to explain.
                if stop != .final, stop != .retriesSpent(retries: 0) {
                    logger?.warning(
                        Logger.Message(
                            stringLiteral: LogRedaction.redactedText(
                                "Not retrying \(request.method.rawValue) \(request.url) after \(failure.reason): "
                                    + Self.explain(stop, attempts: retries + 1, elapsed: elapsed))))
                }
                switch outcome {
                case .failure(let error):
                    throw Self.finalError(error, stop: stop, attempts: retries + 1, elapsed: elapsed)
                case .success(let response):
                    if let error = Self.finalError(for: failure, stop: stop, attempts: retries + 1) {
                        response.discard()
                        throw error
                    }
                    return response
                }
            }
        }
    }

    // MARK: - Steps

    /// Waits out a `Retry-After` an earlier run of the same request was given.
    private func waitForServer(_ describe: () -> RetryRequest, clock: any RetryClock) async throws {
        guard let notBefore = memory.earliestNextAttempt else { return }
        let wait = notBefore - clock.now
        guard wait > .zero else { return }
        onRetry(
            RetryEvent(
                attempt: 1, maximumAttempts: policy.maximumAttempts, reason: "the server asked to wait", delay: wait,
                serverAsked: true))
        do {
            try await clock.sleep(for: wait)
        } catch {
            throw Self.cancelled(describe())
        }
    }

    /// Remembers the server's `Retry-After` for a later run.
    private func remember(_ failure: RetryFailure, clock: any RetryClock) {
        guard let value = failure.head?.headerFields[.retryAfter],
            let wait = RetryAfter.delay(from: value, now: clock.date)
        else { return }
        memory.earliestNextAttempt = clock.now + wait
    }

    /// The failure a response is, when it is one the policy may retry.
    private func judge(_ response: some RetryableResponse) -> RetryFailure? {
        if policy.retryableStatuses.contains(response.head.status.code) {
            return .status(response.head, url: response.url)
        }
        guard !policy.retryableBusinessCodes.isEmpty, (200..<300).contains(response.head.status.code),
            let body = response.bodyInMemory
        else { return nil }
        let decoder = ResponseDecoder(envelope: SilentEnvelope(format: policy.envelope))
        do {
            try decoder.success(from: body)
        } catch let error as BusinessError where policy.retryableBusinessCodes.contains(error.code) {
            return .business(error.code, message: error.serverMessage, head: response.head, url: response.url)
        } catch {
            return nil
        }
        return nil
    }

    /// Asks the prompt, for a network failure whose retries are over.
    private func offersReload(
        _ error: TransportError, stop: RetryStop, request: RetryRequest, attempts: Int
    ) async -> Bool {
        guard let reloadPrompt, !Task.isCancelled,
            let context = policy.reloadOffer(after: error, stop: stop, of: request, attempts: attempts)
        else { return false }
        let reload = await reloadPrompt.shouldReload(after: context)
        if reload {
            logger?.notice(
                "Reloading \(request.method.rawValue) \(LogRedaction.redactedURL(request.url)) at the person's request")
        }
        return reload && !Task.isCancelled
    }

    // MARK: - Errors

    static func cancelled(_ request: RetryRequest) -> TransportError {
        TransportError(
            .cancelled, message: "The request to \(request.url) was cancelled while it waited to be retried.",
            url: request.url)
    }

    /// A transport error with the policy's verdict added.
    static func finalError(
        _ error: TransportError, stop: RetryStop, attempts: Int, elapsed: Duration
    ) -> TransportError {
        var final = error
        switch stop {
        case .final:
            return error
        case .retriesSpent(let retries) where retries == 0:
            return error
        case .budgetExhausted:
            final.category = .retryBudgetExhausted
        case .notRetryable, .retriesSpent, .deadline, .retryAfterTooLong:
            break
        }
        final.message += " " + explain(stop, attempts: attempts, elapsed: elapsed)
        return final
    }

    /// The error for a response whose retries stopped early; `nil` when the response stands.
    static func finalError(for failure: RetryFailure, stop: RetryStop, attempts: Int) -> TransportError? {
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
        case .status(_, let answered), .business(_, _, _, let answered): url = answered
        }
        return TransportError(
            category,
            message: "The server at \(url) answered \(failure.reason). "
                + explain(stop, attempts: attempts, elapsed: nil),
            url: url)
    }

    /// The verdict as a sentence.
    package static func explain(_ stop: RetryStop, attempts: Int, elapsed: Duration?) -> String {
        let tried = attempts == 1 ? "1 attempt" : "\(attempts) attempts"
        let over = elapsed.map { " over \(format($0))" } ?? ""
        switch stop {
        case .final:
            return ""
        case .notRetryable(let reason):
            return "Not retried: \(reason)"
        case .retriesSpent:
            return "Gave up after \(tried)\(over), the retry policy's limit."
        case .deadline(let deadline):
            return "Gave up after \(tried)\(over): another would not start before the deadline of \(format(deadline))."
        case .retryAfterTooLong(let asked, let allowed, let byDeadline):
            let limit =
                byDeadline
                ? "the \(format(allowed)) left before the deadline"
                : "the longest wait the retry policy allows (\(format(allowed)))"
            return "The server asked to wait \(format(asked)) before trying again (Retry-After), longer than \(limit); "
                + "not retried. Try again later."
        case .budgetExhausted(let host):
            return "Not retried: so many recent attempts to \(host) failed that its retry budget is spent; retries "
                + "resume as requests to it succeed again."
        }
    }

    /// `1.5 s`, `2 min 5 s`, `250 ms`.
    package static func format(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        if seconds < 1 { return "\(Int((seconds * 1000).rounded())) ms" }
        if seconds < 60 { return String(format: "%.1f s", seconds) }
        let whole = Int(seconds.rounded())
        return whole % 60 == 0 ? "\(whole / 60) min" : "\(whole / 60) min \(whole % 60) s"
    }
}
