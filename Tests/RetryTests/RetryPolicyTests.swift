import Foundation
import HTTPTypes
import Mapping
import Retry
import Testing
import Transport

@Suite struct RetryPolicyTests {
    // MARK: - Backoff

    @Test func theDefaultsAreThreeRetriesHalfASecondAndThirtySeconds() {
        let policy = RetryPolicy()
        #expect(policy.maximumRetries == 3)
        #expect(policy.maximumAttempts == 4)
        #expect(policy.baseDelay == .milliseconds(500))
        #expect(policy.maximumDelay == .seconds(30))
        #expect(policy.deadline == nil)
    }

    @Test(arguments: [(1, 500), (2, 1000), (3, 2000), (4, 4000), (7, 30_000), (60, 30_000)])
    func theCeilingDoublesUpToTheCap(retry: Int, milliseconds: Int64) {
        #expect(RetryPolicy().backoffCeiling(beforeRetry: retry) == .milliseconds(milliseconds))
    }

    @Test(arguments: [0.0, 0.25, 0.999])
    func theWaitIsDrawnUniformlyUnderTheCeiling(draw: Double) {
        var policy = RetryPolicy()
        policy.random = { draw }
        #expect(policy.backoff(beforeRetry: 3) == .milliseconds(2000) * draw)
    }

    @Test func realDrawsStayBetweenZeroAndTheCeiling() {
        let policy = RetryPolicy()
        let waits = (0..<200).map { _ in policy.backoff(beforeRetry: 2) }
        #expect(waits.allSatisfy { $0 >= .zero && $0 <= .seconds(1) })
        #expect(Set(waits).count > 100, "the jitter draws differ")
    }

    // MARK: - Classification

    static let retried: [TransportError.Category] = [
        .connectionRefused, .connectionReset, .dnsFailure, .connectTimeout, .stalledTransfer, .incompleteBody,
        .emptyReply,
    ]
    static let methods: [HTTPRequest.Method] = [.get, .head, .put, .delete, .options, .post, .patch]

    /// Each retryable failure × method × key: idempotent methods and keyed requests are retried;
    /// POST and PATCH without a key only when the failure proves the request never left.
    @Test(arguments: retried, methods)
    func networkFailures(category: TransportError.Category, method: HTTPRequest.Method) {
        let policy = RetryPolicy()
        let idempotent = ![.post, .patch].contains(method)
        for hasKey in [false, true] {
            for reached in [false, true] {
                let request = RetryRequest(
                    method: method, url: "http://h/", host: "h", idempotencyKey: hasKey ? "k" : nil, body: .replayable)
                let error = TransportError(category, message: "m", mayHaveReachedServer: reached)
                let verdict = policy.classify(.transport(error), of: request)
                if idempotent || hasKey || !reached {
                    #expect(verdict == .retryable, "\(method) key=\(hasKey) reached=\(reached)")
                } else {
                    guard case .notRetryable(let reason) = verdict else {
                        Issue.record("\(method) without a key was retried")
                        continue
                    }
                    #expect(reason.contains("Idempotency-Key"))
                    #expect(reason.contains("may already have applied"))
                }
            }
        }
    }

    @Test func postAndPatchAreRetriedWhenTheCallerOptsIn() {
        var policy = RetryPolicy()
        policy.retriesNonIdempotentRequests = true
        let request = RetryRequest(method: .post, url: "http://h/", host: "h", body: .replayable)
        #expect(policy.classify(.transport(TransportError(.connectionReset, message: "m")), of: request) == .retryable)
    }

    @Test(arguments: [408, 429, 500, 502, 503, 504])
    func retryableStatuses(code: Int) {
        let policy = RetryPolicy()
        for method in Self.methods {
            for hasKey in [false, true] {
                let request = RetryRequest(
                    method: method, url: "http://h/", host: "h", idempotencyKey: hasKey ? "k" : nil)
                let verdict = policy.classify(.status(HTTPResponse(status: .init(code: code)), url: "u"), of: request)
                let expectRetry = ![.post, .patch].contains(method) || hasKey
                #expect((verdict == .retryable) == expectRetry, "\(code) \(method) key=\(hasKey)")
            }
        }
    }

    @Test(arguments: [400, 401, 403, 404, 409, 422, 501, 505])
    func otherStatusesAreNeverRetried(code: Int) {
        let verdict = RetryPolicy().classify(
            .status(HTTPResponse(status: .init(code: code)), url: "u"),
            of: RetryRequest(method: .get, url: "u", host: "h"))
        #expect(verdict == .notRetryable(reason: "HTTP \(code) is not a status a retry can change."))
    }

    @Test(arguments: [
        TransportError.Category.tlsFailure, .invalidURL, .invalidHeader, .invalidBody, .tooManyRedirects,
        .responseTooLarge, .invalidResponse, .deadlineExceeded,
    ])
    func otherFailuresAreNeverRetriedAndSayWhy(category: TransportError.Category) {
        let verdict = RetryPolicy().classify(
            .transport(TransportError(category, message: "m")), of: RetryRequest(method: .get, url: "u", host: "h"))
        guard case .notRetryable(let reason) = verdict else {
            Issue.record("\(category) was retried")
            return
        }
        #expect(!reason.isEmpty)
        if category == .tlsFailure { #expect(reason.contains("TLS")) }
    }

    @Test(arguments: [TransportError.Category.cancelled, .shutDown])
    func cancellationIsFinal(category: TransportError.Category) {
        let verdict = RetryPolicy().classify(
            .transport(TransportError(category, message: "m")), of: RetryRequest(method: .get, url: "u", host: "h"))
        #expect(verdict == .final)
    }

    @Test func aOneShotBodyIsNeverSentTwice() {
        let request = RetryRequest(method: .put, url: "u", host: "h", idempotencyKey: "k", body: .oneShot)
        let verdict = RetryPolicy().classify(.transport(TransportError(.connectionReset, message: "m")), of: request)
        guard case .notRetryable(let reason) = verdict else {
            Issue.record("a one-shot body was retried")
            return
        }
        #expect(reason.contains("one-shot"))
    }

    @Test func aBusinessFailureIsRetriedWhenTheClassifierCallsItRetryable() {
        let policy = RetryPolicy()
        let get = RetryRequest(method: .get, url: "u", host: "h")
        func busy(_ verdict: ResponseClassification.Verdict) -> RetryFailure {
            .business(
                ResponseClassification(verdict: verdict, code: "5031", message: "busy"),
                head: HTTPResponse(status: .ok),
                url: "u")
        }
        #expect(policy.classify(busy(.failure), of: get) != .retryable)
        #expect(policy.classify(busy(.retryable), of: get) == .retryable)
        #expect(busy(.retryable).reason == "code 5031 (busy)")
        let post = RetryRequest(method: .post, url: "u", host: "h", body: .replayable)
        #expect(policy.classify(busy(.retryable), of: post) != .retryable, "a POST without a key is not repeated")
    }

    @Test func aRequestDescribesItsKeyAndBody() throws {
        var request = try TransportRequest(method: .post, url: "http://example.com:8080/x", body: .string("b"))
        #expect(RetryRequest(request).idempotencyKey == nil)
        #expect(RetryRequest(request).body == .replayable)
        #expect(RetryRequest(request).host == "example.com:8080")
        try request.setHeader("Idempotency-Key", "abc")
        #expect(RetryRequest(request).idempotencyKey == "abc")
        request.body = .stream(oneShot: AsyncStream<Data> { $0.finish() })
        #expect(RetryRequest(request).body == .oneShot)
    }

    // MARK: - Decisions

    let get = RetryRequest(method: .get, url: "http://h/x", host: "h")

    func unavailable(retryAfter: String? = nil) -> RetryFailure {
        var head = HTTPResponse(status: .serviceUnavailable)
        if let retryAfter { head.headerFields[.retryAfter] = retryAfter }
        return .status(head, url: "http://h/x")
    }

    @Test func retriesUntilTheLimitThenStops() {
        let policy = RetryPolicy.testing(clock: VirtualClock(), jitter: 1)
        for retries in 0..<3 {
            let decision = policy.decide(after: unavailable(), of: get, retriesSoFar: retries, elapsed: .zero)
            #expect(decision == .retry(after: policy.backoffCeiling(beforeRetry: retries + 1), serverAsked: false))
        }
        #expect(
            policy.decide(after: unavailable(), of: get, retriesSoFar: 3, elapsed: .zero)
                == .stop(.retriesSpent(retries: 3)))
    }

    @Test func retryAfterInSecondsReplacesTheBackoff() {
        let policy = RetryPolicy.testing(clock: VirtualClock())
        let decision = policy.decide(after: unavailable(retryAfter: "7"), of: get, retriesSoFar: 0, elapsed: .zero)
        #expect(decision == .retry(after: .seconds(7), serverAsked: true))
    }

    @Test func retryAfterAsADateIsCountedFromTheClocksDate() {
        let policy = RetryPolicy.testing(clock: VirtualClock())  // 03:00:00 GMT
        let decision = policy.decide(
            after: unavailable(retryAfter: "Sun, 22 Nov 2026 03:00:12 GMT"), of: get, retriesSoFar: 0, elapsed: .zero)
        #expect(decision == .retry(after: .seconds(12), serverAsked: true))
    }

    @Test func retryAfterInThePastMeansNow() {
        let policy = RetryPolicy.testing(clock: VirtualClock())
        let decision = policy.decide(
            after: unavailable(retryAfter: "Sat, 21 Nov 2026 03:00:00 GMT"), of: get, retriesSoFar: 0, elapsed: .zero)
        #expect(decision == .retry(after: .zero, serverAsked: true))
    }

    @Test(arguments: ["soon", "-1", "1.5", "Sun, 22 Nov 2026"])
    func aMalformedRetryAfterIsIgnored(value: String) {
        let policy = RetryPolicy.testing(clock: VirtualClock(), jitter: 0.5)
        let decision = policy.decide(after: unavailable(retryAfter: value), of: get, retriesSoFar: 1, elapsed: .zero)
        #expect(decision == .retry(after: .milliseconds(500), serverAsked: false))
    }

    @Test func aRetryAfterLongerThanThePolicyAllowsStops() {
        let policy = RetryPolicy.testing(clock: VirtualClock())
        let decision = policy.decide(after: unavailable(retryAfter: "600"), of: get, retriesSoFar: 0, elapsed: .zero)
        #expect(decision == .stop(.retryAfterTooLong(asked: .seconds(600), allowed: .seconds(60), byDeadline: false)))
    }

    @Test func aRetryAfterLongerThanTheDeadlineLeavesStops() {
        var policy = RetryPolicy.testing(clock: VirtualClock())
        policy.deadline = .seconds(10)
        let decision = policy.decide(
            after: unavailable(retryAfter: "8"), of: get, retriesSoFar: 0, elapsed: .seconds(4))
        #expect(decision == .stop(.retryAfterTooLong(asked: .seconds(8), allowed: .seconds(6), byDeadline: true)))
    }

    @Test func aBackoffThatWouldEndPastTheDeadlineStops() {
        var policy = RetryPolicy.testing(clock: VirtualClock(), jitter: 1)
        policy.deadline = .seconds(3)
        #expect(
            policy.decide(after: unavailable(), of: get, retriesSoFar: 2, elapsed: .seconds(1))
                == .stop(.deadline(.seconds(3))))
        #expect(
            policy.decide(after: unavailable(), of: get, retriesSoFar: 0, elapsed: .seconds(1))
                != .stop(.deadline(.seconds(3))))
    }

    // MARK: - Budget

    @Test func theBudgetStopsRetriesAtHalfItsTokens() {
        let budget = RetryBudget(maximumTokens: 10, tokensPerSuccess: 0.1)
        let policy = RetryPolicy.testing(clock: VirtualClock(), budget: budget)
        var decisions: [RetryDecision] = []
        for _ in 0..<6 {
            decisions.append(policy.decide(after: unavailable(), of: get, retriesSoFar: 0, elapsed: .zero))
        }
        #expect(decisions.prefix(4).allSatisfy { if case .retry = $0 { true } else { false } })
        #expect(decisions[4] == .stop(.budgetExhausted(host: "h")))
        #expect(budget.tokens(for: "h") == 4)
        #expect(budget.tokens(for: "other") == 10, "each host has its own bucket")
    }

    @Test func successesRefillTheBudget() {
        let budget = RetryBudget(maximumTokens: 10, tokensPerSuccess: 0.5)
        for _ in 0..<6 { _ = budget.recordFailure(for: "h") }
        #expect(!budget.allowsRetry(to: "h"))
        let policy = RetryPolicy.testing(clock: VirtualClock(), budget: budget)
        for _ in 0..<3 { policy.recordSuccess(of: get) }
        #expect(budget.tokens(for: "h") == 5.5)
        #expect(budget.allowsRetry(to: "h"))
        for _ in 0..<100 { budget.recordSuccess(for: "h") }
        #expect(budget.tokens(for: "h") == 10, "never above the maximum")
    }
}
