import Foundation
import HTTPTypes
import Logging
import MockBackend
import Retry
import ServerTestSupport
import Synchronization
import TestSupport
import Testing
import Transport
import TransportCurl

/// The policy and the loop against the mock server's fault routes, through `RetryMiddleware`.
@Suite struct RetryAgainstServerTests {
    /// A policy with real waits, kept short.
    func quickPolicy(budget: RetryBudget? = RetryBudget()) -> RetryPolicy {
        var policy = RetryPolicy()
        policy.baseDelay = .milliseconds(20)
        policy.budget = budget
        return policy
    }

    @Test func aFlakyRouteIsRetriedUntilItAnswers() async throws {
        try await withServerAndTransport { server, curl in
            let events = LockedRecorder<TransferEvent>()
            let transport = MiddlewareTransport(curl, middleware: [RetryMiddleware(policy: quickPolicy())])
            var request = try TransportRequest(method: .get, url: server.url("/flaky/2?key=a&retry-after=0"))
            request.options.eventHandler = events.handler
            let response = try await transport.data(for: request)
            #expect(response.status == .ok)
            let retries = events.all.compactMap { if case .retry(let retry) = $0 { retry } else { nil } }
            #expect(retries.map(\.attempt) == [2, 3])
            #expect(retries.allSatisfy { $0.serverAsked && $0.delay == .zero && $0.maximumAttempts == 4 })
            #expect(server.receivedRequests().count == 3)
        }
    }

    @Test func theBudgetKeepsTwentyClientsFromStormingAFailingRoute() async throws {
        try await withServerAndTransport { server, curl in
            let policy = quickPolicy()
            let transport = MiddlewareTransport(curl, middleware: [RetryMiddleware(policy: policy)])
            let url = server.url("/status/503")
            let errors = try await withThrowingTaskGroup(of: TransportError?.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        do {
                            _ = try await transport.data(for: try TransportRequest(method: .get, url: url))
                            return nil
                        } catch let error as TransportError {
                            return error
                        }
                    }
                }
                return try await group.reduce(into: [TransportError?]()) { $0.append($1) }
            }
            let attempts = server.receivedRequests().count
            // Without a budget: 20 × 4 = 80 attempts. With it, at most 4 retries pass before
            // the host holds half its tokens.
            #expect(attempts <= 25, "the server saw \(attempts) attempts")
            #expect(errors.allSatisfy { $0?.category == .retryBudgetExhausted })
            #expect(errors.first??.message.contains("retry budget is spent") == true)
        }
    }

    @Test func aPostWithAKeyIsRetriedAndAppliedOnce() async throws {
        try await withServerAndTransport { server, curl in
            let transport = MiddlewareTransport(curl, middleware: [RetryMiddleware(policy: quickPolicy())])
            var request = try TransportRequest(
                method: .post, url: server.url("/idempotent?resets=1&scope=keyed"), body: .string("order"))
            try request.setHeader("Idempotency-Key", IdempotencyKey.generated.resolve())
            let response = try await transport.data(for: request)
            #expect(response.status == .ok)
            let document = try object(response.body)
            #expect(document["applied"] as? Int == 1)
            #expect(document["attempts"] as? Int == 2)
            #expect(document["sameKey"] as? Bool == true)
        }
    }

    @Test func aPostWithoutAKeyIsNotRetriedAndSaysWhy() async throws {
        try await withServerAndTransport { server, curl in
            let transport = MiddlewareTransport(curl, middleware: [RetryMiddleware(policy: quickPolicy())])
            let request = try TransportRequest(
                method: .post, url: server.url("/idempotent?resets=1&scope=bare"), body: .string("order"))
            let error = await #expect(throws: TransportError.self) { try await transport.data(for: request) }
            #expect(error?.category == .emptyReply || error?.category == .connectionReset)
            #expect(error?.message.contains("Not retried: a POST is not idempotent") == true)
            let stats = try await curl.data(
                for: try TransportRequest(method: .get, url: server.url("/idempotent/stats?scope=bare")))
            #expect(try object(stats.body)["attempts"] as? Int == 1)
        }
    }

    @Test func aRetryAfterLongerThanTheDeadlineFailsAtOnceNamingTheWait() async throws {
        try await withServerAndTransport { server, curl in
            // A deadline well past the first answer, even on a loaded machine, and still shorter
            // than the 30 s the server asks for: the wait is what is refused, not the time spent.
            var policy = quickPolicy()
            policy.deadline = .seconds(20)
            let transport = MiddlewareTransport(curl, middleware: [RetryMiddleware(policy: policy)])
            let request = try TransportRequest(method: .get, url: server.url("/status/503?retry-after=30"))
            let error = await #expect(throws: TransportError.self) { try await transport.data(for: request) }
            #expect(error?.category == .retryAfterTooLong)
            #expect(error?.message.contains("asked to wait 30.0 s") == true)
            #expect(server.receivedRequests().count == 1)
        }
    }

    @Test func aRetryAfterDateIsWaitedFor() async throws {
        try await withServerAndTransport { server, curl in
            // The policy's clock reads 2026-11-22 03:00:00 GMT; the server asks for 03:00:12.
            let clock = VirtualClock()
            var policy = RetryPolicy.testing(clock: clock)
            policy.budget = RetryBudget()
            let transport = MiddlewareTransport(curl, middleware: [RetryMiddleware(policy: policy)])
            let date = "Sun, 22 Nov 2026 03:00:12 GMT".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let events = LockedRecorder<TransferEvent>()
            var request = try TransportRequest(method: .get, url: server.url("/flaky/1?key=date&retry-after=\(date)"))
            request.options.eventHandler = events.handler
            let response = try await transport.data(for: request)
            #expect(response.status == .ok)
            let retry = events.all.compactMap { if case .retry(let retry) = $0 { retry } else { nil } }.first
            #expect(retry?.serverAsked == true)
            #expect(retry?.delay == .seconds(12))
            #expect(clock.waits == [.seconds(12)])
        }
    }

    @Test func aRefusedConnectionIsRetriedThenReportedWithTheAttempts() async throws {
        let curl = try CurlTransport()
        defer { Task { await curl.shutdown() } }
        let logs = LogCapture()
        let transport = MiddlewareTransport(
            curl, middleware: [RetryMiddleware(policy: quickPolicy(), logger: logs.logger())])
        // Port 9 (discard) is closed on the test machines: the connection is refused.
        let request = try TransportRequest(method: .get, url: "http://127.0.0.1:9/")
        let error = await #expect(throws: TransportError.self) { try await transport.data(for: request) }
        #expect(error?.category == .connectionRefused)
        #expect(error?.message.contains("Gave up after 4 attempts") == true)
        #expect(logs.messages.filter { $0.hasPrefix("Retrying GET http://127.0.0.1:9/") }.count == 3)
    }
}
