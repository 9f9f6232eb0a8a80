import Foundation
import HTTPTypes
import Mapping
import Retry
import TestSupport
import Testing
import Transport

@Suite struct RetryLoopTests {
    let clock = VirtualClock()
    let get = RetryRequest(method: .get, url: "http://h/x", host: "h")

    func response(_ code: Int, retryAfter: String? = nil, body: String = "") -> DataResponse {
        var head = HTTPResponse(status: .init(code: code))
        if let retryAfter { head.headerFields[.retryAfter] = retryAfter }
        return DataResponse(head: head, body: Data(body.utf8), url: "http://h/x")
    }

    /// Answers with the scripted outcomes in turn, then the last one again.
    final class Script: Sendable {
        let outcomes: [Result<DataResponse, TransportError>]
        let count = PThreadMutex(0)
        init(_ outcomes: [Result<DataResponse, TransportError>]) { self.outcomes = outcomes }
        func next() throws -> DataResponse {
            let index = count.withLock { count in
                defer { count += 1 }
                return count
            }
            return try outcomes[min(index, outcomes.count - 1)].get()
        }
        var attempts: Int { count.withLock { $0 } }
    }

    @Test func aRetryableStatusIsRetriedThenTheSuccessStands() async throws {
        let events = LockedRecorder<RetryEvent>()
        let script = Script([.success(response(503)), .success(response(502)), .success(response(200))])
        let loop = RetryLoop(policy: .testing(clock: clock, jitter: 1), onRetry: { events.append($0) })
        let answer = try await loop.run(get) { _ in try script.next() }
        #expect(answer.head.status == .ok)
        #expect(script.attempts == 3)
        #expect(clock.waits == [.milliseconds(500), .seconds(1)])
        #expect(events.all.map(\.attempt) == [2, 3])
        #expect(events.all.allSatisfy { $0.maximumAttempts == 4 && !$0.serverAsked })
        #expect(events.all.first?.reason == "HTTP 503")
    }

    @Test func theLastResponseStandsWhenTheRetriesAreSpent() async throws {
        let script = Script([.success(response(503))])
        let loop = RetryLoop(policy: .testing(clock: clock))
        let answer = try await loop.run(get) { _ in try script.next() }
        #expect(answer.head.status == .serviceUnavailable)
        #expect(script.attempts == 4)
    }

    @Test func aNetworkFailureThatStandsSaysHowManyAttempts() async throws {
        let script = Script([
            .failure(TransportError(.connectionRefused, message: "Refused.", mayHaveReachedServer: false))
        ])
        let loop = RetryLoop(policy: .testing(clock: clock))
        let error = await #expect(throws: TransportError.self) { try await loop.run(get) { _ in try script.next() } }
        #expect(error?.category == .connectionRefused)
        #expect(error?.message.hasPrefix("Refused. Gave up after 4 attempts") == true)
        #expect(script.attempts == 4)
    }

    @Test func aPostWithoutAKeyIsSentOnceAndTheErrorSaysWhy() async throws {
        let post = RetryRequest(method: .post, url: "http://h/x", host: "h", body: .replayable)
        let script = Script([.failure(TransportError(.emptyReply, message: "Empty reply."))])
        let loop = RetryLoop(policy: .testing(clock: clock))
        let error = await #expect(throws: TransportError.self) { try await loop.run(post) { _ in try script.next() } }
        #expect(script.attempts == 1)
        #expect(error?.category == .emptyReply)
        #expect(error?.message.contains("Not retried: a POST is not idempotent") == true)
    }

    @Test func theServersWaitIsReportedAsAsked() async throws {
        let events = LockedRecorder<RetryEvent>()
        let script = Script([.success(response(429, retryAfter: "2")), .success(response(200))])
        let loop = RetryLoop(policy: .testing(clock: clock), onRetry: { events.append($0) })
        _ = try await loop.run(get) { _ in try script.next() }
        #expect(clock.waits == [.seconds(2)])
        #expect(
            events.all == [
                RetryEvent(attempt: 2, maximumAttempts: 4, reason: "HTTP 429", delay: .seconds(2), serverAsked: true)
            ])
    }

    @Test func aWaitLongerThanThePolicyAllowsFailsNamingIt() async throws {
        let script = Script([.success(response(503, retryAfter: "3600"))])
        let loop = RetryLoop(policy: .testing(clock: clock))
        let error = await #expect(throws: TransportError.self) { try await loop.run(get) { _ in try script.next() } }
        #expect(error?.category == .retryAfterTooLong)
        #expect(error?.message.contains("asked to wait 60 min") == true)
        #expect(script.attempts == 1)
    }

    @Test func theDeadlineCutsEachAttemptAndStopsTheRetries() async throws {
        var policy = RetryPolicy.testing(clock: clock, jitter: 1)
        policy.deadline = .seconds(2)
        let remainders = LockedRecorder<Duration?>()
        let script = Script([.success(response(503))])
        let error = await #expect(throws: TransportError.self) {
            try await RetryLoop(policy: policy).run(get) { remaining in
                remainders.append(remaining)
                clock.advance(by: .milliseconds(300))
                return try script.next()
            }
        }
        #expect(error?.category == .deadlineExceeded)
        #expect(remainders.all == [.seconds(2), .milliseconds(1200)])
        #expect(script.attempts == 2)
    }

    @Test func aRetryableBusinessCodeIsRetried() async throws {
        var policy = RetryPolicy.testing(clock: clock)
        policy.classifier = EnvelopeClassifier(retryableCodes: [5031])
        let script = Script([
            .success(response(200, body: #"{"code": 5031, "message": "busy"}"#)),
            .success(response(200, body: #"{"code": 200, "data": 1}"#)),
        ])
        let answer = try await RetryLoop(policy: policy).run(get) { _ in try script.next() }
        #expect(String(decoding: answer.body, as: UTF8.self).contains("200"))
        #expect(script.attempts == 2)
    }

    @Test func theClassifiersReadingStaysWithTheAnswerThatStands() async throws {
        // Given a server that keeps answering "busy" in an envelope, and one retry
        var policy = RetryPolicy.testing(clock: clock)
        policy.maximumRetries = 1
        policy.classifier = EnvelopeClassifier(retryableCodes: [5031])
        let script = Script([.success(response(200, body: #"{"code": 5031, "message": "busy", "data": null}"#))])

        // When the retry is spent
        let answer = try await RetryLoop(policy: policy).run(get) { _ in try script.next() }

        // Then the last answer stands with what the classifier read, for the decoder to use
        #expect(script.attempts == 2)
        #expect(answer.classification?.verdict == .retryable)
        #expect(answer.classification?.reason == "code 5031 (busy)")
        let error = #expect(throws: BusinessError.self) { try ResponseDecoder().success(from: answer) }
        #expect(error?.code == 5031)
    }

    @Test func theBudgetErrorHasItsOwnCategory() async throws {
        let budget = RetryBudget()
        for _ in 0..<5 { _ = budget.recordFailure(for: "h") }
        let script = Script([.failure(TransportError(.connectionReset, message: "Reset."))])
        let error = await #expect(throws: TransportError.self) {
            try await RetryLoop(policy: .testing(clock: clock, budget: budget)).run(get) { _ in try script.next() }
        }
        #expect(error?.category == .retryBudgetExhausted)
        #expect(error?.message.contains("retry budget is spent") == true)
        #expect(script.attempts == 1)
    }

    @Test func cancellingDuringAWaitStopsAtOnce() async throws {
        var policy = RetryPolicy.testing(clock: clock)
        policy.clock = SystemRetryClock()
        policy.baseDelay = .seconds(30)
        policy.random = { 1 }
        let loop = RetryLoop(policy: policy)
        let task = Task { try await loop.run(get) { _ in response(503) } }
        try await Task.sleep(for: .milliseconds(100))
        task.cancel()
        let error = await #expect(throws: TransportError.self) { try await task.value }
        #expect(error?.category == .cancelled)
    }

    // MARK: - Memory and reloads

    @Test func aLaterRunWaitsOutTheServersRetryAfter() async throws {
        var policy = RetryPolicy.testing(clock: clock)
        policy.maximumRetries = 0
        let memory = RetryMemory(idempotencyKey: "k")
        let events = LockedRecorder<RetryEvent>()
        let loop = RetryLoop(policy: policy, memory: memory, onRetry: { events.append($0) })
        _ = try await loop.run(get) { _ in response(503, retryAfter: "5") }
        clock.advance(by: .seconds(2))
        _ = try await loop.run(get) { _ in response(200) }
        #expect(clock.waits == [.seconds(3)])
        #expect(events.all.first?.serverAsked == true)
        #expect(memory.attemptCount == 2)
    }

    final class ScriptedPrompt: ReloadPrompt {
        let answers: PThreadMutex<[Bool]>
        let asked = LockedRecorder<ReloadContext>()
        init(_ answers: [Bool]) { self.answers = PThreadMutex(answers) }
        func shouldReload(after failure: ReloadContext) async -> Bool {
            asked.append(failure)
            return answers.withLock { $0.isEmpty ? false : $0.removeFirst() }
        }
    }

    @Test func aPromptCanStartANewRoundAfterTheRetriesAreSpent() async throws {
        var policy = RetryPolicy.testing(clock: clock)
        policy.maximumRetries = 1
        let prompt = ScriptedPrompt([true])
        let script = Script([
            .failure(TransportError(.connectionRefused, message: "Refused.", mayHaveReachedServer: false)),
            .failure(TransportError(.connectionRefused, message: "Refused.", mayHaveReachedServer: false)),
            .success(response(200)),
        ])
        let answer = try await RetryLoop(policy: policy, reloadPrompt: prompt).run(get) { _ in try script.next() }
        #expect(answer.head.status == .ok)
        #expect(prompt.asked.all.count == 1)
        #expect(prompt.asked.all.first?.attempts == 2)
        #expect(prompt.asked.all.first?.mayHaveBeenApplied == false)
    }

    @Test func aDeclinedPromptLetsTheFailureStand() async throws {
        let prompt = ScriptedPrompt([false])
        let post = RetryRequest(method: .post, url: "http://h/x", host: "h", body: .replayable)
        let script = Script([.failure(TransportError(.connectionReset, message: "Reset."))])
        await #expect(throws: TransportError.self) {
            try await RetryLoop(policy: .testing(clock: clock), reloadPrompt: prompt).run(post) { _ in try script.next()
            }
        }
        #expect(script.attempts == 1)
        #expect(prompt.asked.all.first?.mayHaveBeenApplied == true, "a POST without a key may have been applied")
    }

    @Test func statusFailuresAreNotOfferedToThePrompt() async throws {
        let prompt = ScriptedPrompt([true])
        _ = try await RetryLoop(policy: .testing(clock: clock), reloadPrompt: prompt).run(get) { _ in response(503) }
        #expect(prompt.asked.all.isEmpty)
    }
}
