import Foundation
import HTTPTypes
import Mapping
import MockBackend
import Retry
import ServerTestSupport
import TestSupport
import Testing
import Transport
import TransportCurl

/// `AuthenticationMiddleware` against the mock server's token routes.
@Suite struct AuthenticationTests {
    /// Bearer tokens from the mock server, refreshed through a transport without the middleware.
    struct BearerTokens: Authenticator {
        let transport: any HTTPTransport
        let refreshURL: String
        var classifier: (any ResponseClassifier)? { EnvelopeClassifier(expiredCodes: [401]) }

        func apply(_ token: String, to request: inout TransportRequest) throws {
            try request.setHeader("Authorization", "Bearer \(token)")
        }

        func refresh(_ token: String?) async throws -> String {
            var request = try TransportRequest(method: .post, url: refreshURL)
            if let token { try request.setHeader("Authorization", "Bearer \(token)") }
            let response = try await transport.data(for: request)
            guard response.status == .ok else {
                throw TransportError(.other, message: "The refresh failed with HTTP \(response.status.code).")
            }
            return try ResponseDecoder().decode(String.self, from: response, at: "data.token")
        }
    }

    func login(_ server: MockServer, _ transport: some HTTPTransport) async throws -> String {
        let response = try await transport.data(
            for: try TransportRequest(method: .post, url: server.url("/auth/login")))
        return try ResponseDecoder().decode(String.self, from: response, at: "data.token")
    }

    func expireTokens(_ server: MockServer, _ transport: some HTTPTransport) async throws {
        _ = try await transport.data(for: try TransportRequest(method: .post, url: server.url("/auth/expire")))
    }

    func stats(_ server: MockServer, _ transport: some HTTPTransport) async throws -> [String: Any] {
        try object(
            try await transport.data(for: try TransportRequest(method: .get, url: server.url("/auth/stats"))).body)
    }

    /// Sends `count` protected requests at once; their results, in no order.
    func sendAll(
        _ count: Int, to url: String, through transport: some HTTPTransport
    ) async throws -> [Result<DataResponse, any Error>] {
        await withTaskGroup(of: Result<DataResponse, any Error>.self) { group in
            for _ in 0..<count {
                group.addTask {
                    do {
                        return .success(try await transport.data(for: try TransportRequest(method: .get, url: url)))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
    }

    @Test(arguments: [false, true])
    func fiftyRequestsThatMeetAnExpiredTokenShareOneRefresh(httpStatus: Bool) async throws {
        try await withServerAndTransport { server, curl in
            let token = try await login(server, curl)
            try await expireTokens(server, curl)
            let auth = AuthenticationMiddleware(
                BearerTokens(transport: curl, refreshURL: server.url("/auth/refresh?delay=200")), credential: token)
            let transport = MiddlewareTransport(curl, middleware: [auth])
            let results = try await sendAll(
                50, to: server.url("/auth/protected" + (httpStatus ? "?http=1" : "")), through: transport)
            let decoder = ResponseDecoder()
            for result in results {
                let response = try result.get()
                #expect(try decoder.decode(String.self, from: response, at: "data.token") != token)
            }
            let counts = try await stats(server, curl)
            #expect(counts["refreshes"] as? Int == 1)
            #expect((counts["protected"] as? [String: Any])?["accepted"] as? Int == 50)
            #expect(auth.credential != token)
        }
    }

    @Test func aFailingRefreshFailsEveryWaitingRequest() async throws {
        try await withServerAndTransport { server, curl in
            let token = try await login(server, curl)
            try await expireTokens(server, curl)
            let auth = AuthenticationMiddleware(
                BearerTokens(transport: curl, refreshURL: server.url("/auth/refresh?delay=200&fail=503")),
                credential: token)
            let transport = MiddlewareTransport(curl, middleware: [auth])
            let results = try await sendAll(50, to: server.url("/auth/protected"), through: transport)
            for result in results {
                #expect(throws: TransportError.self) { try result.get() }
                if case .failure(let error as TransportError) = result {
                    #expect(error.message == "The refresh failed with HTTP 503.")
                }
            }
            let counts = try await stats(server, curl)
            #expect(counts["failedRefreshes"] as? Int == 1)
            #expect(auth.credential == token, "a failed refresh keeps the old credential")
        }
    }

    @Test func aRefreshThatLoopsIsStopped() async throws {
        try await withServerAndTransport { server, curl in
            /// Hands out a token the server never accepts.
            final class Useless: Authenticator {
                let count = PThreadMutex(0)
                func apply(_ token: String, to request: inout TransportRequest) throws {
                    try request.setHeader("Authorization", "Bearer \(token)")
                }
                func refresh(_ token: String?) async throws -> String {
                    count.withLock { $0 += 1 }
                    return "never-valid"
                }
            }
            let scheme = Useless()
            let auth = AuthenticationMiddleware(scheme, credential: "stale", refreshLimit: 5)
            let transport = MiddlewareTransport(curl, middleware: [auth])
            let url = server.url("/auth/protected?http=1")
            for _ in 0..<5 {
                let response = try await transport.data(for: try TransportRequest(method: .get, url: url))
                #expect(response.status == .unauthorized, "the replay's answer stands")
            }
            let error = await #expect(throws: TransportError.self) {
                try await transport.data(for: try TransportRequest(method: .get, url: url))
            }
            #expect(error?.category == .authenticationFailed)
            #expect(error?.message.contains("refreshing again would loop") == true)
            #expect(scheme.count.withLock { $0 } == 5)
        }
    }

    @Test func aRequestWithoutACredentialLogsInThroughTheRefresh() async throws {
        try await withServerAndTransport { server, curl in
            struct LogIn: Authenticator {
                let loginURL: String
                let transport: any HTTPTransport
                var classifier: (any ResponseClassifier)? { EnvelopeClassifier(expiredCodes: [401]) }
                func apply(_ token: String, to request: inout TransportRequest) throws {
                    try request.setHeader("Authorization", "Bearer \(token)")
                }
                func refresh(_ token: String?) async throws -> String {
                    let response = try await transport.data(for: try TransportRequest(method: .post, url: loginURL))
                    return try ResponseDecoder().decode(String.self, from: response, at: "data.token")
                }
            }
            let auth = AuthenticationMiddleware(
                LogIn(loginURL: server.url("/auth/login"), transport: curl), credential: nil)
            let transport = MiddlewareTransport(curl, middleware: [auth])
            let response = try await transport.data(
                for: try TransportRequest(method: .get, url: server.url("/auth/protected")))
            #expect(try ResponseDecoder().success(from: response).code == 200)
            #expect(auth.credential != nil)
        }
    }
}
