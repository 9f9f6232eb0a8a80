import HTTPTypes
public import Transport

/// The one retry machine: what to do after each attempt of one logical request, as a value.
///
/// Events go in (the session started, an attempt succeeded, failed with or without bytes
/// moved, or was sent again at once; a wait ended; a person accepted a reload), actions come
/// out (send, with the time left before the deadline; wait this long, reporting this retry;
/// offer a reload; finish; stop with this conclusion). The session owns every decision about
/// retrying: it counts attempts and retries, keeps the deadline, asks ``RetryPolicy`` for the
/// backoff, `Retry-After` and budget verdicts, offers reloads by
/// ``RetryPolicy/reloadOffer(after:stop:of:attempts:)``, and words the notices, log lines
/// and errors (``RetryConclusion``).
///
/// It does no I/O: it reads no clock and waits for nothing. Its callers send, read the
/// policy's clock for each event, and perform the actions: ``RetryLoop`` for requests, uploads
/// and ``RetryMiddleware``, and the Downloads module's runs for downloads. The state it
/// shares is the policy's: the host's ``RetryBudget``, which each retryable failure draws on,
/// and the clock's wall time, against which a `Retry-After` date is read.
///
/// ```swift
/// var session = RetrySession(policy: policy)
/// var action = session.receive(.started(at: clock.now))
/// while true {
///     switch action {
///     case .send(let remaining):
///         do {
///             let response = try await send(cappedTo: remaining)
///             action = session.receive(.attemptSucceeded(of: request))
///         } catch let error as TransportError {
///             action = session.receive(.attemptFailed(.transport(error), of: request, at: clock.now))
///         }
///     case .wait(let delay, let retry):
///         report(retry)
///         try await clock.sleep(for: delay)
///         action = session.receive(.waited(at: clock.now))
///     case .offerReload(let context, let conclusion):
///         guard await prompt.shouldReload(after: context) else { throw conclusion.error(standingFor: lastError) }
///         action = session.receive(.reloadAccepted(at: clock.now))
///     case .stop(let conclusion):
///         throw conclusion.error(standingFor: lastError)
///     case .finish:
///         return
///     }
/// }
/// ```
public struct RetrySession: Sendable {
    /// How retries are counted against ``RetryPolicy/maximumRetries``.
    public enum Counting: Sendable, Hashable {
        /// Every retry of a round counts (requests and uploads): at most
        /// ``RetryPolicy/maximumAttempts`` attempts a round, which retry events report.
        case perRound
        /// Only failures in a row count (downloads, which resume from the bytes they have): an
        /// attempt that moved bytes before it failed starts the count afresh and takes nothing
        /// from the host's budget, since the host was serving the file. Retry events then have
        /// no most attempts, and number the requests of the whole run.
        case inARow
    }

    /// Something that happened to the request; see ``receive(_:)`` for the action each one gives.
    public enum Event: Sendable {
        /// The request is about to be sent for the first time, at a reading of the policy's
        /// clock. `notBefore` is a reading before which the server asked an earlier run not to
        /// come back (``RetryConclusion/notBefore``), if any.
        case started(at: Duration, notBefore: Duration? = nil)
        /// An attempt got an answer that stands: a success, or a status or body no retry can
        /// change. `request` is the request, for the budget to refill; `nil` when no host of
        /// the budget needs a refill (``RetryBudget/hasDepletedHosts`` is `false`), so that a
        /// caller need not describe a request that succeeded.
        case attemptSucceeded(of: RetryRequest?)
        /// An attempt failed in a way the policy may retry, at a reading of the clock.
        /// `madeProgress` when it moved bytes before it failed, which matters when counting
        /// ``Counting/inARow``.
        case attemptFailed(RetryFailure, of: RetryRequest, madeProgress: Bool = false, at: Duration)
        /// An attempt ended without an outcome and is sent again at once (a download whose
        /// server could not continue the partial, which it discarded): it counts as a request,
        /// not as a failure.
        case attemptRepeated(at: Duration)
        /// The wait of a ``Action/wait(for:report:)`` is over.
        case waited(at: Duration)
        /// The person accepted the reload of a ``Action/offerReload(_:otherwise:)``: a new
        /// round, with the count and the deadline started afresh.
        case reloadAccepted(at: Duration)
    }

    /// What the caller does next.
    public enum Action: Sendable {
        /// Send the request, with its transfer deadline cut to `remaining` (the time left
        /// before the policy's deadline; `nil` without one).
        case send(remaining: Duration?)
        /// Report `report`, wait `for`, then send ``Event/waited(at:)``.
        case wait(for: Duration, report: RetryEvent)
        /// Ask a person whether to send the request again; on a yes send
        /// ``Event/reloadAccepted(at:)``, on a no (or a cancelled task) stop with `otherwise`.
        case offerReload(ReloadContext, otherwise: RetryConclusion)
        /// The answer stands: nothing more to do.
        case finish
        /// The retries are over: the failure stands, as the conclusion words it.
        case stop(RetryConclusion)
    }

    /// The rules.
    public let policy: RetryPolicy
    /// How retries are counted.
    public let counting: Counting
    /// Whether reloads are offered (a caller with a ``ReloadPrompt``).
    public let offersReloads: Bool
    /// Attempts made, this session's and those ``init(policy:counting:attemptsBefore:offersReloads:)``
    /// counted before it.
    public private(set) var attempts: Int
    /// Retries made in this round (in a row, counting ``Counting/inARow``).
    public private(set) var retries = 0
    /// Attempts made in this session, across rounds.
    private var sessionAttempts = 0
    /// The clock reading the round's deadline counts from.
    private var roundStart: Duration = .zero
    /// Whether the wait in progress is the server's, asked by an earlier run: the round starts
    /// when it ends.
    private var waitingForServer = false
    /// The request and failure of the last retry decided, for its notice.
    private var lastRetry: (request: RetryRequest, failure: RetryFailure)?

    /// Creates the session of one logical request.
    ///
    /// - Parameters:
    ///   - policy: The rules.
    ///   - counting: How retries are counted: ``Counting/perRound`` by default.
    ///   - attemptsBefore: Attempts earlier runs of the same request made (``RetryMemory/attemptCount``),
    ///     which a reload offer counts; 0 by default.
    ///   - offersReloads: Whether to offer reloads: `false` by default.
    public init(
        policy: RetryPolicy, counting: Counting = .perRound, attemptsBefore: Int = 0, offersReloads: Bool = false
    ) {
        self.policy = policy
        self.counting = counting
        self.attempts = max(0, attemptsBefore)
        self.offersReloads = offersReloads
    }

    /// The action for an event.
    ///
    /// | Event | Action |
    /// |---|---|
    /// | ``Event/started(at:notBefore:)`` | wait out the server's earlier `Retry-After` (reported as attempt 1, asked by the server), or send |
    /// | ``Event/attemptSucceeded(of:)`` | finish, giving the budget back |
    /// | ``Event/attemptFailed(_:of:madeProgress:at:)`` | ``RetryPolicy/decide(after:of:retriesSoFar:elapsed:)``: wait then send again, or stop; a stopped network failure is offered for a reload when ``offersReloads`` |
    /// | ``Event/attemptRepeated(at:)`` | send |
    /// | ``Event/waited(at:)`` | send |
    /// | ``Event/reloadAccepted(at:)`` | send, in a new round |
    ///
    /// - Parameter event: What happened.
    /// - Returns: What to do.
    public mutating func receive(_ event: Event) -> Action {
        switch event {
        case .started(let now, let notBefore):
            roundStart = now
            if let notBefore, notBefore - now > .zero {
                waitingForServer = true
                let wait = notBefore - now
                return .wait(
                    for: wait,
                    report: RetryEvent(
                        attempt: 1, maximumAttempts: maximumAttemptsReported, reason: "the server asked to wait",
                        delay: wait, serverAsked: true))
            }
            return .send(remaining: remaining(at: now))
        case .attemptSucceeded(let request):
            countAttempt()
            if let request { policy.recordSuccess(of: request) }
            return .finish
        case .attemptFailed(let failure, let request, let madeProgress, let now):
            countAttempt()
            return decide(after: failure, of: request, madeProgress: madeProgress, at: now)
        case .attemptRepeated(let now):
            countAttempt()
            return .send(remaining: remaining(at: now))
        case .waited(let now):
            if waitingForServer {
                waitingForServer = false
                roundStart = now
            }
            return .send(remaining: remaining(at: now))
        case .reloadAccepted(let now):
            retries = 0
            roundStart = now
            return .send(remaining: remaining(at: now))
        }
    }

    /// The time left before the policy's deadline at a clock reading, never below zero; `nil`
    /// without a deadline.
    ///
    /// - Parameter now: A reading of the policy's clock.
    public func remaining(at now: Duration) -> Duration? {
        policy.deadline.map { max(.zero, $0 - (now - roundStart)) }
    }

    /// The log line for a retry this session decided: `Retrying GET URL in 1.5 s, the server
    /// asked: attempt 2 of 4, after HTTP 503`, credentials redacted.
    ///
    /// - Parameter retry: The retry, as a ``Action/wait(for:report:)`` reported it.
    /// - Returns: The line; `nil` for the wait before the first attempt, which follows no failure.
    public func notice(for retry: RetryEvent) -> String? {
        guard let (request, failure) = lastRetry, !waitingForServer else { return nil }
        let delay = retry.delay.map { " in \(Self.format($0))" } ?? ""
        let of = retry.maximumAttempts.map { " of \($0)" } ?? ""
        return LogRedaction.redactedText(
            "Retrying \(request.method.rawValue) \(request.url)\(delay)\(retry.serverAsked ? ", the server asked" : ""): "
                + "attempt \(retry.attempt)\(of), after \(failure.reason)")
    }

    // MARK: - Deciding

    /// The most attempts retry events report: the policy's, counting per round.
    private var maximumAttemptsReported: Int? {
        counting == .perRound ? policy.maximumAttempts : nil
    }

    private mutating func countAttempt() {
        attempts += 1
        sessionAttempts += 1
    }

    private mutating func decide(
        after failure: RetryFailure, of request: RetryRequest, madeProgress: Bool, at now: Duration
    ) -> Action {
        let verdict: RetryDecision
        let elapsed = now - roundStart
        if counting == .inARow, madeProgress {
            // Bytes added reset the count: only failures in a row are counted. Such an attempt
            // also takes nothing from the host's budget, which is there to spare a service that
            // fails for everyone, not one that is serving the file.
            retries = 0
            var judge = policy
            judge.budget = nil
            verdict = judge.decide(after: failure, of: request, retriesSoFar: retries, elapsed: elapsed)
        } else {
            verdict = policy.decide(after: failure, of: request, retriesSoFar: retries, elapsed: elapsed)
        }
        switch verdict {
        case .retry(let delay, let serverAsked):
            retries += 1
            lastRetry = (request, failure)
            let attempt = counting == .perRound ? retries + 1 : sessionAttempts + 1
            return .wait(
                for: delay,
                report: RetryEvent(
                    attempt: attempt, maximumAttempts: maximumAttemptsReported, reason: failure.reason, delay: delay,
                    serverAsked: serverAsked))
        case .stop(let stop):
            if case .notRetryable = stop, case .status(let head, _) = failure,
                !policy.retryableStatuses.contains(head.status.code)
            {
                // An answer no retry can change: the host is up, as for a success.
                policy.recordSuccess(of: request)
            }
            let conclusion = RetryConclusion(
                stop: stop, failure: failure, request: request, counting: counting,
                attempts: counting == .perRound ? retries + 1 : sessionAttempts, elapsed: elapsed,
                notBefore: Self.serverWait(after: failure, policy: policy).map { now + $0 })
            if offersReloads, case .transport(let error) = failure,
                let context = policy.reloadOffer(after: error, stop: stop, of: request, attempts: attempts)
            {
                return .offerReload(context, otherwise: conclusion)
            }
            return .stop(conclusion)
        }
    }

    /// The wait a failure's `Retry-After` asks for, read against the policy's clock.
    private static func serverWait(after failure: RetryFailure, policy: RetryPolicy) -> Duration? {
        guard let value = failure.head?.headerFields[.retryAfter] else { return nil }
        return RetryAfter.delay(from: value, now: policy.clock.date)
    }
}
