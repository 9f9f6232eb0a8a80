import HTTPTypes
public import Logging
public import Transport

/// Runs the attempts of one logical request under a ``RetryPolicy``: the driver of a
/// ``RetrySession`` behind Forms' requests and uploads and ``RetryMiddleware``.
///
/// The loop sends, judges each answer (a retryable status, or a body the policy's
/// ``RetryPolicy/classifier`` calls retryable), feeds the outcome to the session, and performs
/// what it says: before each retry it reports a `RetryEvent` to ``onRetry`` and logs the
/// session's notice, then waits on the policy's clock. When the session stops, the last
/// outcome stands, as ``RetryConclusion`` words it:
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
        // Only a reload offer counts the attempts of earlier runs: without a prompt, they are not read.
        var session = RetrySession(
            policy: policy, attemptsBefore: reloadPrompt == nil ? 0 : memory.attemptCount,
            offersReloads: reloadPrompt != nil)
        var action = session.receive(.started(at: clock.now, notBefore: memory.earliestNextAttempt))
        var described: RetryRequest?
        // The last attempt's outcome, while the session decides what follows it.
        var last: Result<Response, TransportError>?
        while true {
            switch action {
            case .send(let remaining):
                var response: Response
                do {
                    response = try await attempt(remaining)
                } catch let error as TransportError {
                    _ = memory.countAttempt()
                    let request = described ?? describe()
                    described = request
                    last = .failure(error)
                    action = session.receive(.attemptFailed(.transport(error), of: request, at: clock.now))
                    continue
                } catch is CancellationError {
                    throw Self.cancelled(describe())
                }
                _ = memory.countAttempt()
                guard let failure = judge(&response) else {
                    let refills = policy.budget?.hasDepletedHosts ?? false
                    _ = session.receive(.attemptSucceeded(of: refills ? (described ?? describe()) : nil))
                    return response
                }
                let request = described ?? describe()
                described = request
                last = .success(response)
                action = session.receive(.attemptFailed(failure, of: request, at: clock.now))
            case .wait(let delay, let retry):
                if case .success(let response) = last { response.discard() }
                last = nil
                onRetry(retry)
                if let logger, let notice = session.notice(for: retry) {
                    logger.notice(Logger.Message(stringLiteral: notice))
                }
                do {
                    // In a task of its own when a request handle's run is current, so that the
                    // handle's cancel ends the wait as the task's cancellation does.
                    try await RequestCancellation.runCancellable { [clock] in try await clock.sleep(for: delay) }
                } catch {
                    throw Self.cancelled(described ?? describe())
                }
                action = session.receive(.waited(at: clock.now))
            case .offerReload(let context, let otherwise):
                if let reloadPrompt, !RequestCancellation.isCancelled,
                    (try? await RequestCancellation.runCancellable { await reloadPrompt.shouldReload(after: context) })
                        ?? false,
                    !RequestCancellation.isCancelled
                {
                    logger?.notice(
                        "Reloading \(context.method.rawValue) \(LogRedaction.redactedURL(context.url)) at the person's request"
                    )
                    action = session.receive(.reloadAccepted(at: clock.now))
                } else {
                    action = .stop(otherwise)
                }
            case .stop(let conclusion):
                if let notBefore = conclusion.notBefore { memory.earliestNextAttempt = notBefore }
                if let logger, let warning = conclusion.warning {
                    logger.warning(Logger.Message(stringLiteral: warning))
                }
                switch last {
                case .failure(let error):
                    throw conclusion.error(standingFor: error)
                case .success(let response):
                    if let error = conclusion.errorForAnswer {
                        response.discard()
                        throw error
                    }
                    return response
                case nil:
                    // Not reached: a session stops only after a failure, which `last` holds.
                    assertionFailure("the retry session stopped without a failure")
                    throw Self.cancelled(conclusion.request)
                }
            case .finish:
                // Not reached: a session finishes only on a success, which returns at once.
                assertionFailure("the retry session finished without a success")
                throw Self.cancelled(described ?? describe())
            }
        }
    }

    // MARK: - Steps

    /// The failure an answer is, when it is one the policy may retry: a retryable status, or
    /// a body the policy's classifier calls retryable. What the classifier read is kept with
    /// the response either way.
    private func judge<Response: RetryableResponse>(_ response: inout Response) -> RetryFailure? {
        // The status first: an answer that needs no more is judged without building its head.
        let status = response.status.code
        if policy.retryableStatuses.contains(status) {
            return .status(response.head, url: response.url)
        }
        guard let classifier = policy.classifier, (200..<300).contains(status),
            let body = response.bodyInMemory
        else { return nil }
        let head = response.head
        guard let classification = classifier.classify(head, body: body) else { return nil }
        response.keep(classification)
        guard classification.verdict == .retryable else { return nil }
        return .business(classification, head: head, url: response.url)
    }

    // MARK: - Errors

    static func cancelled(_ request: RetryRequest) -> TransportError {
        TransportError(
            .cancelled, message: "The request to \(request.url) was cancelled while it waited to be retried.",
            url: request.url)
    }
}
