import Foundation
import HTTPTypes
import Retry
import Testing
import Transport

/// The retry machine as decision tables, without a clock or a transport: a policy, then events
/// in order → the action each one gives. Every row runs on a policy whose jitter draws the whole
/// ceiling (waits of 0.5 s, 1 s, 2 s …) and without a budget unless the row names one.
///
/// Checked to fail without each rule: with progress no longer resetting the count in a row,
/// "an attempt that added bytes starts the count afresh" stops early; with the budget taken
/// also after progress, "bytes added spare the budget" stops at its second row; with the round
/// not restarted by a reload, "a reload starts a new round" stops instead of waiting; with the
/// earlier run's wait not moving the round's start, its deadline row sends with 2 s left.
@Suite struct RetrySessionTests {
    /// A stop, without the words of its reason.
    enum StopKind: Sendable, Equatable {
        case notRetryable
        case final
        case retriesSpent(Int)
        case deadline(Duration)
        case retryAfterTooLong(asked: Duration, byDeadline: Bool)
        case budgetExhausted
    }

    /// What a step expects of the session.
    enum Expected: Sendable, Equatable {
        /// Send, with this time left before the deadline.
        case send(remaining: Duration?)
        /// Wait this long, reporting this attempt of at most this many; `serverAsked` when the
        /// server chose the wait.
        case wait(Duration, attempt: Int, of: Int?, serverAsked: Bool)
        /// Offer a reload, counting these attempts.
        case offerReload(attempts: Int, mayHaveBeenApplied: Bool)
        /// Nothing more to do.
        case finish
        /// Stop, the verdict counting these attempts.
        case stop(StopKind, attempts: Int)

        init(_ action: RetrySession.Action) {
            switch action {
            case .send(let remaining):
                self = .send(remaining: remaining)
            case .wait(let delay, let retry):
                self = .wait(
                    delay, attempt: retry.attempt, of: retry.maximumAttempts, serverAsked: retry.serverAsked)
            case .offerReload(let context, _):
                self = .offerReload(attempts: context.attempts, mayHaveBeenApplied: context.mayHaveBeenApplied)
            case .finish:
                self = .finish
            case .stop(let conclusion):
                let kind: StopKind =
                    switch conclusion.stop {
                    case .notRetryable: .notRetryable
                    case .final: .final
                    case .retriesSpent(let retries): .retriesSpent(retries)
                    case .deadline(let deadline): .deadline(deadline)
                    case .retryAfterTooLong(let asked, _, let byDeadline):
                        .retryAfterTooLong(asked: asked, byDeadline: byDeadline)
                    case .budgetExhausted: .budgetExhausted
                    }
                self = .stop(kind, attempts: conclusion.attempts)
            }
        }
    }

    /// One table: a session, then events and the action each must give.
    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let policy: RetryPolicy
        let counting: RetrySession.Counting
        let offersReloads: Bool
        let attemptsBefore: Int
        let steps: [(RetrySession.Event, Expected)]
        var testDescription: String { name }

        init(
            _ name: String, counting: RetrySession.Counting = .perRound, offersReloads: Bool = false,
            attemptsBefore: Int = 0, configure: (inout RetryPolicy) -> Void = { _ in },
            _ steps: [(RetrySession.Event, Expected)]
        ) {
            var policy = RetryPolicy()
            policy.clock = VirtualClock()
            policy.random = { 1 }
            policy.budget = nil
            configure(&policy)
            self.name = name
            self.policy = policy
            self.counting = counting
            self.offersReloads = offersReloads
            self.attemptsBefore = attemptsBefore
            self.steps = steps
        }
    }

    // MARK: - Events

    static let get = RetryRequest(method: .get, url: "http://h/x", host: "h")
    static let post = RetryRequest(method: .post, url: "http://h/x", host: "h", body: .replayable)
    static let reset = RetryFailure.transport(TransportError(.connectionReset, message: "Reset."))
    static let refused = RetryFailure.transport(
        TransportError(.connectionRefused, message: "Refused.", mayHaveReachedServer: false))
    static let cancelled = RetryFailure.transport(TransportError(.cancelled, message: "Cancelled."))

    static func status(_ code: Int, retryAfter: String? = nil) -> RetryFailure {
        var head = HTTPResponse(status: .init(code: code))
        if let retryAfter { head.headerFields[.retryAfter] = retryAfter }
        return .status(head, url: "http://h/x")
    }

    static func seconds(_ value: Double) -> Duration { .milliseconds(Int64((value * 1000).rounded())) }

    static func started(_ at: Double = 0, notBefore: Double? = nil) -> RetrySession.Event {
        .started(at: seconds(at), notBefore: notBefore.map(seconds))
    }

    static func failed(
        _ failure: RetryFailure, _ request: RetryRequest = get, progress: Bool = false, at: Double = 0
    ) -> RetrySession.Event {
        .attemptFailed(failure, of: request, madeProgress: progress, at: seconds(at))
    }

    static func waited(_ at: Double = 0) -> RetrySession.Event { .waited(at: seconds(at)) }

    static func wait(_ delay: Double, attempt: Int, of most: Int? = 4, serverAsked: Bool = false) -> Expected {
        .wait(seconds(delay), attempt: attempt, of: most, serverAsked: serverAsked)
    }

    static let send = Expected.send(remaining: nil)

    // MARK: - Per round: requests and uploads

    static let perRoundRows: [Row] = [
        Row("a success at once finishes", [(started(), send), (.attemptSucceeded(of: nil), .finish)]),
        Row(
            "a retryable status is retried with the doubling backoff until the limit",
            configure: { $0.maximumRetries = 2 },
            [
                (started(), send),
                (failed(status(503)), wait(0.5, attempt: 2, of: 3)),
                (waited(0.5), send),
                (failed(status(503), at: 0.5), wait(1, attempt: 3, of: 3)),
                (waited(1.5), send),
                (failed(status(503), at: 1.5), .stop(.retriesSpent(2), attempts: 3)),
            ]),
        Row(
            "the server's Retry-After replaces the backoff",
            [(started(), send), (failed(status(429, retryAfter: "2")), wait(2, attempt: 2, serverAsked: true))]),
        Row(
            "a Retry-After longer than the longest wait stops at once",
            [
                (started(), send),
                (
                    failed(status(503, retryAfter: "600")),
                    .stop(.retryAfterTooLong(asked: .seconds(600), byDeadline: false), attempts: 1)
                ),
            ]),
        Row(
            "the deadline cuts each attempt and stops a backoff that would end past it",
            configure: { $0.deadline = .seconds(2) },
            [
                (started(), .send(remaining: .seconds(2))),
                (failed(status(503), at: 0.3), wait(0.5, attempt: 2)),
                (waited(0.8), .send(remaining: seconds(1.2))),
                (failed(status(503), at: 1.1), .stop(.deadline(.seconds(2)), attempts: 2)),
            ]),
        Row(
            "a Retry-After longer than the time left stops",
            configure: { $0.deadline = .seconds(5) },
            [
                (started(), .send(remaining: .seconds(5))),
                (
                    failed(status(503, retryAfter: "8"), at: 1),
                    .stop(.retryAfterTooLong(asked: .seconds(8), byDeadline: true), attempts: 1)
                ),
            ]),
        Row(
            "a POST without a key is not repeated once it may have reached the server",
            [(started(), send), (failed(reset, post), .stop(.notRetryable, attempts: 1))]),
        Row(
            "a POST that never left is repeated",
            [(started(), send), (failed(refused, post), wait(0.5, attempt: 2))]),
        Row(
            "a status no retry changes stands",
            [(started(), send), (failed(status(404)), .stop(.notRetryable, attempts: 1))]),
        Row("a cancellation is final", [(started(), send), (failed(cancelled), .stop(.final, attempts: 1))]),
        Row(
            "an earlier run's Retry-After is waited out first, and the round starts after it",
            configure: { $0.deadline = .seconds(5) },
            [
                (started(10, notBefore: 13), wait(3, attempt: 1, serverAsked: true)),
                (waited(13), .send(remaining: .seconds(5))),
                (failed(status(503), at: 14), wait(0.5, attempt: 2)),
                (waited(14.5), .send(remaining: seconds(3.5))),
            ]),
        Row(
            "an earlier run's Retry-After that is over is not waited",
            [(started(10, notBefore: 9), send)]),
        Row(
            "the budget stops retries at half its tokens",
            configure: {
                $0.budget = RetryBudget(maximumTokens: 4, tokensPerSuccess: 1)
                $0.maximumRetries = 5
            },
            [
                (started(), send),
                (failed(reset), wait(0.5, attempt: 2, of: 6)),
                (waited(0.5), send),
                (failed(reset, at: 0.5), .stop(.budgetExhausted, attempts: 2)),
            ]),
    ]

    @Test(arguments: perRoundRows)
    func countingPerRound(_ row: Row) {
        run(row)
    }

    // MARK: - Reloads

    static let reloadsRows: [Row] = [
        Row(
            "spent network retries are offered, counting earlier runs' attempts",
            offersReloads: true, attemptsBefore: 2, configure: { $0.maximumRetries = 1 },
            [
                (started(), send),
                (failed(refused), wait(0.5, attempt: 2, of: 2)),
                (waited(0.5), send),
                (failed(refused, at: 0.5), .offerReload(attempts: 4, mayHaveBeenApplied: false)),
            ]),
        Row(
            "a reload starts a new round, with the count and the deadline afresh",
            offersReloads: true,
            configure: {
                $0.maximumRetries = 1
                $0.deadline = .seconds(2)
            },
            [
                (started(), .send(remaining: .seconds(2))),
                (failed(refused, at: 1), wait(0.5, attempt: 2, of: 2)),
                (waited(1.5), .send(remaining: seconds(0.5))),
                (failed(refused, at: 1.6), .offerReload(attempts: 2, mayHaveBeenApplied: false)),
                (.reloadAccepted(at: .seconds(30)), .send(remaining: .seconds(2))),
                (failed(refused, at: 30.2), wait(0.5, attempt: 2, of: 2)),
            ]),
        Row(
            "a POST without a key is offered, saying it may have been applied",
            offersReloads: true,
            [(started(), send), (failed(reset, post), .offerReload(attempts: 1, mayHaveBeenApplied: true))]),
        Row(
            "statuses are not offered",
            offersReloads: true, configure: { $0.maximumRetries = 0 },
            [(started(), send), (failed(status(503)), .stop(.retriesSpent(0), attempts: 1))]),
        Row(
            "a deadline that stopped the retries is not offered",
            offersReloads: true, configure: { $0.deadline = .seconds(1) },
            [
                (started(), .send(remaining: .seconds(1))),
                (failed(reset, at: 0.6), .stop(.deadline(.seconds(1)), attempts: 1)),
            ]),
        Row(
            "nothing is offered without a prompt",
            configure: { $0.maximumRetries = 0 },
            [(started(), send), (failed(refused), .stop(.retriesSpent(0), attempts: 1))]),
    ]

    @Test(arguments: reloadsRows)
    func offeringReloads(_ row: Row) {
        run(row)
    }

    // MARK: - In a row: downloads

    static let inARowRows: [Row] = [
        Row(
            "failures in a row count, and retries number the run's requests without a maximum",
            counting: .inARow, configure: { $0.maximumRetries = 1 },
            [
                (started(), send),
                (failed(reset), wait(0.5, attempt: 2, of: nil)),
                (waited(0.5), send),
                (failed(reset, at: 0.5), .stop(.retriesSpent(1), attempts: 2)),
            ]),
        Row(
            "an attempt that added bytes starts the count afresh",
            counting: .inARow, configure: { $0.maximumRetries = 1 },
            [
                (started(), send),
                (failed(reset, progress: true), wait(0.5, attempt: 2, of: nil)),
                (waited(0.5), send),
                (failed(reset, progress: true, at: 0.5), wait(0.5, attempt: 3, of: nil)),
                (waited(1), send),
                (failed(reset, at: 1), .stop(.retriesSpent(1), attempts: 3)),
            ]),
        Row(
            "progress does not reset a count per round",
            configure: { $0.maximumRetries = 1 },
            [
                (started(), send),
                (failed(reset, progress: true), wait(0.5, attempt: 2, of: 2)),
                (waited(0.5), send),
                (failed(reset, progress: true, at: 0.5), .stop(.retriesSpent(1), attempts: 2)),
            ]),
        Row(
            "bytes added spare the budget, failures without them draw on it",
            counting: .inARow,
            configure: {
                $0.budget = RetryBudget(maximumTokens: 4, tokensPerSuccess: 0)
                $0.maximumRetries = 5
            },
            [
                (started(), send),
                (failed(reset, progress: true), wait(0.5, attempt: 2, of: nil)),
                (waited(), send),
                (failed(reset, progress: true), wait(0.5, attempt: 3, of: nil)),
                (waited(), send),
                (failed(reset, progress: true), wait(0.5, attempt: 4, of: nil)),
                (waited(), send),
                (failed(reset), wait(1, attempt: 5, of: nil)),
                (waited(), send),
                (failed(reset), .stop(.budgetExhausted, attempts: 5)),
            ]),
        Row(
            "a partial discarded and asked for again is a request, not a failure",
            counting: .inARow, configure: { $0.deadline = .seconds(10) },
            [
                (started(), .send(remaining: .seconds(10))),
                (failed(status(503)), wait(0.5, attempt: 2, of: nil)),
                (waited(0.5), .send(remaining: seconds(9.5))),
                (.attemptRepeated(at: .seconds(1)), .send(remaining: .seconds(9))),
                (failed(status(503), at: 2), wait(1, attempt: 4, of: nil)),
            ]),
        Row(
            "a download's reload resumes the count in a row afresh",
            counting: .inARow, offersReloads: true, configure: { $0.maximumRetries = 0 },
            [
                (started(), send),
                (failed(refused), .offerReload(attempts: 1, mayHaveBeenApplied: false)),
                (.reloadAccepted(at: .seconds(5)), send),
                (failed(refused, at: 5), .offerReload(attempts: 2, mayHaveBeenApplied: false)),
            ]),
        Row(
            "a finished download finishes",
            counting: .inARow,
            [(started(), send), (.attemptSucceeded(of: get), .finish)]),
    ]

    @Test(arguments: inARowRows)
    func countingInARow(_ row: Row) {
        run(row)
    }

    func run(_ row: Row) {
        var session = RetrySession(
            policy: row.policy, counting: row.counting, attemptsBefore: row.attemptsBefore,
            offersReloads: row.offersReloads)
        for (index, (event, expected)) in row.steps.enumerated() {
            let action = Expected(session.receive(event))
            #expect(action == expected, "step \(index + 1)")
            guard action == expected else { return }
        }
    }

    // MARK: - The budget

    @Test func anAnswerThatStandsGivesTheBudgetBack() {
        let budget = RetryBudget(maximumTokens: 10, tokensPerSuccess: 1)
        for _ in 0..<3 { _ = budget.recordFailure(for: "h") }
        var policy = RetryPolicy()
        policy.budget = budget
        var session = RetrySession(policy: policy)
        _ = session.receive(.started(at: .zero))
        _ = session.receive(.attemptSucceeded(of: nil))
        #expect(budget.tokens(for: "h") == 7, "without the request, nothing to refill")
        var refilling = RetrySession(policy: policy)
        _ = refilling.receiveAll([.started(at: .zero), .attemptSucceeded(of: Self.get)])
        #expect(budget.tokens(for: "h") == 8)
        // A status a retry cannot change is an answer too: the host is up.
        var refused = RetrySession(policy: policy, counting: .inARow)
        _ = refused.receiveAll([.started(at: .zero), Self.failed(Self.status(404))])
        #expect(budget.tokens(for: "h") == 9)
    }

    // MARK: - Wording

    @Test func theNoticeOfARetryNamesTheRequestTheWaitAndTheFailure() throws {
        var policy = RetryPolicy()
        policy.random = { 1 }
        policy.budget = nil
        var session = RetrySession(policy: policy)
        _ = session.receive(.started(at: .zero))
        let action = session.receive(
            .attemptFailed(
                Self.status(503, retryAfter: "2"),
                of: RetryRequest(method: .get, url: "http://user:secret@h/x", host: "h"), at: .zero))
        guard case .wait(_, let retry) = action else {
            Issue.record("no wait: \(action)")
            return
        }
        let notice = try #require(session.notice(for: retry))
        #expect(notice.hasPrefix("Retrying GET http://"))
        #expect(!notice.contains("secret"), "credentials are redacted")
        #expect(notice.hasSuffix("/x in 2.0 s, the server asked: attempt 2 of 4, after HTTP 503"))

        var waiting = RetrySession(policy: policy)
        guard case .wait(_, let first) = waiting.receive(.started(at: .zero, notBefore: .seconds(3))) else {
            Issue.record("the earlier run's wait was not asked for")
            return
        }
        #expect(waiting.notice(for: first) == nil, "no failure to tell of before the first attempt")
    }

    /// The conclusion's sentences and errors: counting × why the retries stopped.
    struct Wording: Sendable, CustomTestStringConvertible {
        let counting: RetrySession.Counting
        let stop: RetryStop
        let attempts: Int
        /// The explanation followed by "Kept." (in a row) or alone (per round).
        let explanation: String
        /// The category and the message of `Refused.` as it stands.
        let category: TransportError.Category
        let message: String
        var testDescription: String { "\(counting), \(stop)" }
    }

    static let wordings: [Wording] = [
        Wording(
            counting: .perRound, stop: .retriesSpent(retries: 3), attempts: 4,
            explanation: "Gave up after 4 attempts over 3.2 s, the retry policy's limit.",
            category: .connectionRefused,
            message: "Refused. Gave up after 4 attempts over 3.2 s, the retry policy's limit."),
        Wording(
            counting: .perRound, stop: .retriesSpent(retries: 0), attempts: 1,
            explanation: "Gave up after 1 attempt over 3.2 s, the retry policy's limit.",
            category: .connectionRefused, message: "Refused."),
        Wording(
            counting: .perRound, stop: .notRetryable(reason: "it is not safe."), attempts: 1,
            explanation: "Not retried: it is not safe.", category: .connectionRefused,
            message: "Refused. Not retried: it is not safe."),
        Wording(
            counting: .perRound, stop: .budgetExhausted(host: "h:80"), attempts: 2,
            explanation: "Not retried: so many recent attempts to h:80 failed that its retry budget is spent; retries "
                + "resume as requests to it succeed again.",
            category: .retryBudgetExhausted,
            message: "Refused. Not retried: so many recent attempts to h:80 failed that its retry budget is spent; "
                + "retries resume as requests to it succeed again."),
        Wording(
            counting: .perRound, stop: .deadline(.seconds(5)), attempts: 2,
            explanation: "Gave up after 2 attempts over 3.2 s: another would not start before the deadline of 5.0 s.",
            category: .connectionRefused,
            message: "Refused. Gave up after 2 attempts over 3.2 s: another would not start before the deadline of "
                + "5.0 s."),
        Wording(
            counting: .perRound, stop: .final, attempts: 1, explanation: "", category: .connectionRefused,
            message: "Refused."),
        Wording(
            counting: .inARow, stop: .retriesSpent(retries: 2), attempts: 5,
            explanation: "Gave up after 3 attempts in a row; Kept.", category: .connectionRefused,
            message: "Refused. Gave up after 3 attempts in a row; Kept."),
        Wording(
            counting: .inARow, stop: .retriesSpent(retries: 0), attempts: 1,
            explanation: "Gave up after 1 attempt; Kept.", category: .connectionRefused,
            message: "Refused. Gave up after 1 attempt; Kept."),
        Wording(
            counting: .inARow, stop: .notRetryable(reason: "never."), attempts: 1,
            explanation: "Not retried: never. Kept.", category: .connectionRefused, message: "Refused."),
        Wording(
            counting: .inARow, stop: .deadline(.seconds(5)), attempts: 3,
            explanation: "Gave up after 3 attempts over 3.2 s: another would not start before the deadline of 5.0 s. "
                + "Kept.",
            category: .deadlineExceeded,
            message: "The server answered. Gave up after 3 attempts over 3.2 s: another would not start before the "
                + "deadline of 5.0 s. Kept."),
        Wording(
            counting: .inARow,
            stop: .retryAfterTooLong(asked: .seconds(120), allowed: .seconds(60), byDeadline: false), attempts: 2,
            explanation: "The server asked to wait 2 min before trying again (Retry-After), longer than the longest "
                + "wait the retry policy allows (1 min); not retried. Try again later. Kept.",
            category: .retryAfterTooLong,
            message: "The server answered. The server asked to wait 2 min before trying again (Retry-After), longer "
                + "than the longest wait the retry policy allows (1 min); not retried. Try again later. Kept."),
        Wording(
            counting: .inARow, stop: .budgetExhausted(host: "h:80"), attempts: 2,
            explanation: "Not retried: so many recent attempts to h:80 failed that its retry budget is spent; retries "
                + "resume as requests to it succeed again. Kept.",
            category: .retryBudgetExhausted,
            message: "The server answered. Not retried: so many recent attempts to h:80 failed that its retry budget "
                + "is spent; retries resume as requests to it succeed again. Kept."),
    ]

    @Test(arguments: wordings)
    func theConclusionWordsTheVerdict(_ wording: Wording) {
        let refused = TransportError(.connectionRefused, message: "Refused.", url: "http://h/x")
        let conclusion = RetryConclusion(
            stop: wording.stop, failure: .transport(refused), request: Self.get, counting: wording.counting,
            attempts: wording.attempts, elapsed: .milliseconds(3200))
        let next: String? = wording.counting == .inARow ? "Kept." : nil
        #expect(conclusion.explanation(followedBy: next) == wording.explanation)
        let error = conclusion.error(standingFor: refused, answer: "The server answered.", then: next)
        #expect(error.category == wording.category)
        #expect(error.message == wording.message)
    }

    @Test func anAnswerStandsUnlessSomethingButTheCountStoppedIt() {
        func conclusion(_ stop: RetryStop) -> RetryConclusion {
            RetryConclusion(
                stop: stop, failure: Self.status(503), request: Self.get, counting: .perRound, attempts: 2,
                elapsed: .seconds(1))
        }
        #expect(conclusion(.retriesSpent(retries: 3)).errorForAnswer == nil)
        #expect(conclusion(.notRetryable(reason: "no.")).errorForAnswer == nil)
        let error = conclusion(.deadline(.seconds(2))).errorForAnswer
        #expect(error?.category == .deadlineExceeded)
        #expect(
            error?.message
                == "The server at http://h/x answered HTTP 503. Gave up after 2 attempts: another would not start "
                + "before the deadline of 2.0 s.")
        #expect(conclusion(.budgetExhausted(host: "h")).errorForAnswer?.category == .retryBudgetExhausted)
    }

    @Test func theWarningSaysWhatWasNotRetriedAndWhy() {
        let conclusion = RetryConclusion(
            stop: .retriesSpent(retries: 1), failure: Self.status(503), request: Self.get, counting: .perRound,
            attempts: 2, elapsed: .milliseconds(1500))
        #expect(
            conclusion.warning
                == "Not retrying GET http://h/x after HTTP 503: Gave up after 2 attempts over 1.5 s, the retry "
                + "policy's limit.")
        let alone = RetryConclusion(
            stop: .retriesSpent(retries: 0), failure: Self.status(503), request: Self.get, counting: .perRound,
            attempts: 1, elapsed: .zero)
        #expect(alone.warning == nil, "a policy without retries has nothing to explain")
    }

    @Test func aStopRemembersTheServersWait() {
        var policy = RetryPolicy()
        policy.budget = nil
        policy.maximumRetries = 0
        var session = RetrySession(policy: policy)
        _ = session.receive(.started(at: .seconds(10)))
        let action = session.receive(
            .attemptFailed(Self.status(503, retryAfter: "5"), of: Self.get, at: .seconds(11)))
        guard case .stop(let conclusion) = action else {
            Issue.record("no stop: \(action)")
            return
        }
        #expect(conclusion.notBefore == .seconds(16))
    }
}

extension RetrySession {
    /// Receives `events` in turn; the last action.
    fileprivate mutating func receiveAll(_ events: [Event]) -> Action? {
        var last: Action?
        for event in events { last = receive(event) }
        return last
    }
}
