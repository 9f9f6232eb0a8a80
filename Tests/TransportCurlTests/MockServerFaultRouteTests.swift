import Foundation
import HTTPTypes
import MockBackend
import Testing
import Transport
import TransportCurl

/// The mock server's routes for retry and token-refresh tests, driven through `CurlTransport`:
/// `/idempotent` (a server honouring `Idempotency-Key` whose first answers are lost), the
/// `/auth` token routes, and `Retry-After` dates on `/status`.
@Suite struct MockServerFaultRouteTests {
    // MARK: - /idempotent

    @Test func dropsTheFirstAttemptWithoutAnswerThenAppliesTheKeyOnce() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                // Given a server whose first answer in the scope is lost
                let url = server.url("/idempotent?resets=1&scope=same")
                let request = try TransportRequest(
                    method: .post, url: url, headers: ["Idempotency-Key": "key-1"], body: .string("order"))

                // When the client sends, fails, and sends again with the same key
                let error = await #expect(throws: TransportError.self) { try await transport.data(for: request) }
                let response = try await transport.data(for: request)

                // Then the first attempt saw no response at all, and the request was applied once
                #expect(error?.category == .emptyReply)
                #expect(error?.mayHaveReachedServer == true)
                #expect(response.status == .ok)
                let summary = try Summary(response.body)
                #expect(summary.applied == 1)
                #expect(summary.attempts == 2)
                #expect(summary.keys == ["key-1", "key-1"])
                #expect(summary.sameKey)
                #expect(summary.error == nil)
                #expect(server.receivedRequests().map(\.bodyLength) == [5, 5])
            }
        }
    }

    @Test func answers422WhenTheKeyChangesBetweenAttempts() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let url = server.url("/idempotent?resets=1&scope=changed")
                await #expect(throws: TransportError.self) {
                    try await transport.data(
                        for: TransportRequest(
                            method: .post, url: url, headers: ["Idempotency-Key": "first"], body: .string("x")))
                }

                let response = try await transport.data(
                    for: TransportRequest(
                        method: .post, url: url, headers: ["Idempotency-Key": "second"], body: .string("x")))

                // A new key is a new operation: applied twice, and the server says so.
                #expect(response.status.code == 422)
                let summary = try Summary(response.body)
                #expect(summary.error == "Idempotency-Key changed between attempts")
                #expect(summary.applied == 2)
                #expect(summary.keys == ["first", "second"])
                #expect(!summary.sameKey)
            }
        }
    }

    @Test func appliesARequestWithoutAKeyEveryTime() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let request = try TransportRequest(
                    method: .post, url: server.url("/idempotent?resets=2"), body: .string("x"))
                for _ in 0..<2 {
                    let error = await #expect(throws: TransportError.self) { try await transport.data(for: request) }
                    #expect(error?.category == .emptyReply)
                }

                let response = try await transport.data(for: request)
                let stats = try await transport.data(
                    for: TransportRequest(method: .get, url: server.url("/idempotent/stats")))

                #expect(response.status == .ok)
                let summary = try Summary(response.body)
                #expect(summary.applied == 3)
                #expect(summary.attempts == 3)
                #expect(summary.keys == [nil, nil, nil])
                #expect(!summary.sameKey)
                // The stats repeat the summary without applying anything.
                #expect(try Summary(stats.body) == summary)
            }
        }
    }

    @Test func keepsScopesApartAndRefusesOtherMethods() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let applied = try await transport.data(
                    for: TransportRequest(
                        method: .post, url: server.url("/idempotent?scope=one"), headers: ["Idempotency-Key": "k"]))
                let other = try await transport.data(
                    for: TransportRequest(method: .get, url: server.url("/idempotent/stats?scope=two")))
                let wrongMethod = try await transport.data(
                    for: TransportRequest(method: .put, url: server.url("/idempotent?scope=one"), body: .string("x")))
                let after = try await transport.data(
                    for: TransportRequest(method: .get, url: server.url("/idempotent/stats?scope=one")))

                #expect(try Summary(applied.body) == Summary(applied: 1, attempts: 1, keys: ["k"], sameKey: true))
                #expect(try Summary(other.body) == Summary(applied: 0, attempts: 0, keys: [], sameKey: false))
                #expect(wrongMethod.status == .methodNotAllowed)
                #expect(wrongMethod.head.headerFields[.allow] == "POST")
                #expect(try Summary(after.body).attempts == 1)
            }
        }
    }

    // MARK: - /auth

    @Test func logsInExpiresAndRefreshesATokenInTheEnvelope() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                // Given a login
                let login = try await transport.data(
                    for: TransportRequest(method: .post, url: server.url("/auth/login")))
                let first = try #require(try Envelope<TokenData>(login.body).data)
                #expect(first.expiresIn == 3600)
                #expect(first.token.hasPrefix("t-1-"))

                // When its token is used, expired, refreshed and used again
                let accepted = try await protected(transport, server, token: first.token)
                let expire = try await transport.data(
                    for: TransportRequest(method: .post, url: server.url("/auth/expire")))
                let rejected = try await protected(transport, server, token: first.token)
                let refresh = try await transport.data(
                    for: TransportRequest(
                        method: .post, url: server.url("/auth/refresh?expires-in=60"),
                        headers: ["Authorization": "Bearer \(first.token)"]))
                let second = try #require(try Envelope<TokenData>(refresh.body).data)
                let acceptedAgain = try await protected(transport, server, token: second.token)
                let stats = try await transport.data(
                    for: TransportRequest(method: .get, url: server.url("/auth/stats")))

                // Then each answer is in the envelope, the expired token fails with the business 401
                #expect(accepted.status == .ok)
                #expect(
                    try Envelope<ProtectedData>(accepted.body).data == ProtectedData(token: first.token, requests: 1))
                #expect(try Envelope<Expired>(expire.body).data == Expired(expired: 1))
                #expect(rejected.status == .ok)
                let failure = try Envelope<ProtectedData>(rejected.body)
                #expect(failure.code == 401)
                #expect(failure.message == "Token expired")
                #expect(failure.data == nil)
                #expect(second.token.hasPrefix("t-2-"))
                #expect(second.expiresIn == 60)
                #expect(
                    try Envelope<ProtectedData>(acceptedAgain.body).data
                        == ProtectedData(token: second.token, requests: 2))
                #expect(
                    try JSONDecoder().decode(AuthStats.self, from: stats.body)
                        == AuthStats(
                            logins: 1, refreshes: 1, failedRefreshes: 0,
                            protected: AuthStats.Protected(accepted: 2, rejected: 1)))
            }
        }
    }

    @Test func answersARealUnauthorizedWithHTTP1() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let missing = try await transport.data(
                    for: TransportRequest(method: .get, url: server.url("/auth/protected/orders?http=1")))
                let unknown = try await protected(
                    transport, server, token: "t-9-unknown", path: "/auth/protected?http=1")

                for response in [missing, unknown] {
                    #expect(response.status == .unauthorized)
                    #expect(response.head.headerFields[.wwwAuthenticate] == #"Bearer error="invalid_token""#)
                    let body = try JSONSerialization.jsonObject(with: response.body) as? [String: String]
                    #expect(body?["error"] == "invalid_token")
                }
            }
        }
    }

    @Test func expiresATokenWhenItsLifetimeIsOver() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let login = try await transport.data(
                    for: TransportRequest(method: .post, url: server.url("/auth/login?expires-in=0")))
                let token = try #require(try Envelope<TokenData>(login.body).data).token

                let response = try await protected(transport, server, token: token)

                #expect(try Envelope<ProtectedData>(response.body).code == 401)
            }
        }
    }

    @Test func failsRefreshesOnDemandAndForUnknownTokens() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let login = try await transport.data(
                    for: TransportRequest(method: .post, url: server.url("/auth/login")))
                let token = try #require(try Envelope<TokenData>(login.body).data).token
                let clock = ContinuousClock()
                let start = clock.now

                let failing = try await transport.data(
                    for: TransportRequest(
                        method: .post, url: server.url("/auth/refresh?fail=503&delay=200"),
                        headers: ["Authorization": "Bearer \(token)"]))
                let unknown = try await transport.data(
                    for: TransportRequest(
                        method: .post, url: server.url("/auth/refresh"), headers: ["Authorization": "Bearer nope"]))
                let missing = try await transport.data(
                    for: TransportRequest(method: .post, url: server.url("/auth/refresh")))
                let stats = try await transport.data(
                    for: TransportRequest(method: .get, url: server.url("/auth/stats")))

                #expect(clock.now - start >= .milliseconds(200))
                #expect(failing.status == .serviceUnavailable)
                for response in [unknown, missing] {
                    #expect(response.status == .ok)
                    let envelope = try Envelope<TokenData>(response.body)
                    #expect(envelope.code == 401)
                    #expect(envelope.message == "Unknown token; log in again")
                }
                let counts = try JSONDecoder().decode(AuthStats.self, from: stats.body)
                #expect(counts.logins == 1)
                #expect(counts.refreshes == 0)
                #expect(counts.failedRefreshes == 3)
            }
        }
    }

    // MARK: - Retry-After

    @Test func sendsAPercentEncodedRetryAfterDate() async throws {
        try await MockServer.withRunning { server in
            try await withTransport { transport in
                let date = "Wed, 21 Oct 2015 07:28:00 GMT"
                let encoded = try #require(date.addingPercentEncoding(withAllowedCharacters: .alphanumerics))

                let response = try await transport.data(
                    for: TransportRequest(method: .get, url: server.url("/status/503?retry-after=\(encoded)")))

                #expect(response.status == .serviceUnavailable)
                #expect(response.head.headerFields[.retryAfter] == date)
                #expect(RetryAfter.delay(from: date, now: Date(timeIntervalSince1970: 1_445_412_470)) == .seconds(10))
            }
        }
    }

    // MARK: - Helpers

    /// A request to a protected path with `Authorization: Bearer token`.
    private func protected(
        _ transport: CurlTransport,
        _ server: MockServer,
        token: String,
        path: String = "/auth/protected"
    ) async throws -> DataResponse {
        try await transport.data(
            for: TransportRequest(method: .get, url: server.url(path), headers: ["Authorization": "Bearer \(token)"]))
    }

    /// `/idempotent`'s answer.
    private struct Summary: Decodable, Equatable {
        var applied: Int
        var attempts: Int
        var keys: [String?]
        var sameKey: Bool
        var error: String?

        init(applied: Int, attempts: Int, keys: [String?], sameKey: Bool) {
            self.applied = applied
            self.attempts = attempts
            self.keys = keys
            self.sameKey = sameKey
        }

        init(_ data: Data) throws {
            self = try JSONDecoder().decode(Summary.self, from: data)
        }
    }

    private struct TokenData: Decodable {
        var token: String
        var expiresIn: Int
    }

    private struct ProtectedData: Decodable, Equatable {
        var token: String
        var requests: Int
    }

    private struct Expired: Decodable, Equatable {
        var expired: Int
    }

    private struct AuthStats: Decodable, Equatable {
        struct Protected: Decodable, Equatable {
            var accepted: Int
            var rejected: Int
        }

        var logins: Int
        var refreshes: Int
        var failedRefreshes: Int
        var protected: Protected
    }
}
