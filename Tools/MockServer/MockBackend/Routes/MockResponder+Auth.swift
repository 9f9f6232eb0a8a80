import Foundation
import HTTPTypes
import Hummingbird

// The routes of a backend that issues bearer tokens, for token-refresh tests. They answer in the
// backend's business envelope: HTTP 200 with `{"code": Int, "message": String, "data": …}`,
// code 200 for success.
extension MockResponder {
    /// Dispatches to the endpoint's handler.
    func auth(_ endpoint: MockRoute.AuthEndpoint, request: Request, target: RequestTarget) async throws -> Response {
        switch endpoint {
        case .login: try login(request, target: target)
        case .refresh: try await refresh(request, target: target)
        case .expire: try expire(request)
        case .protected: try protected(request, target: target)
        case .stats: try .json(tokens.statistics())
        }
    }

    /// `POST /auth/login?expires-in=S`: a new token living `S` seconds (3600 by default, 0 for
    /// one expired already): `{"code": 200, "message": "ok", "data": {"token", "expiresIn"}}`.
    private func login(_ request: Request, target: RequestTarget) throws -> Response {
        try Self.requirePost(request, "/auth/login")
        let lifetime = try Self.lifetime(target)
        return try Self.tokenEnvelope(tokens.login(lifetime: lifetime), lifetime: lifetime)
    }

    /// `POST /auth/refresh?expires-in=S&fail=CODE&delay=MS&after-rejections=N` with
    /// `Authorization: Bearer T`: after waiting `MS` milliseconds (0 by default, at most 10000),
    /// a new token in the shape of `/auth/login`'s when `T` was issued by this server, expired
    /// or not.
    ///
    /// With `after-rejections=N` the answer also waits until `N` protected requests in all have
    /// been rejected (for at most 30 s), so that a test's concurrent requests have all seen
    /// their rejection before the refresh ends, however slowly a busy machine sends them.
    ///
    /// A missing or unknown token gets envelope code 401, "Unknown token; log in again". With
    /// `fail=CODE` (400–599) the answer is HTTP `CODE` with a short text body and no token.
    /// Both count as failed refreshes.
    private func refresh(_ request: Request, target: RequestTarget) async throws -> Response {
        try Self.requirePost(request, "/auth/refresh")
        let lifetime = try Self.lifetime(target)
        let failure = try target.value("fail").map { try RequestTarget.integer($0, named: "fail", in: 400...599) }
        let delay = try target.integer("delay", in: 0...10_000, default: 0)
        let rejections = try target.integer("after-rejections", in: 0...100_000, default: 0)
        if delay > 0 {
            try await Task.sleep(for: .milliseconds(delay))
        }
        let giveUp = ContinuousClock.now + .seconds(30)
        while tokens.rejectedCount < rejections, ContinuousClock.now < giveUp {
            try await Task.sleep(for: .milliseconds(10))
        }
        if let failure {
            tokens.countFailedRefresh()
            return .text("refresh failing with \(failure)\n", status: HTTPResponse.Status(code: failure))
        }
        guard let token = tokens.refresh(Self.bearerToken(of: request), lifetime: lifetime) else {
            return try .envelope(code: 401, message: "Unknown token; log in again", data: .null)
        }
        return try Self.tokenEnvelope(token, lifetime: lifetime)
    }

    /// `POST /auth/expire`: expires every token issued so far, `{"data": {"expired": count}}`.
    private func expire(_ request: Request) throws -> Response {
        try Self.requirePost(request, "/auth/expire")
        return try .envelope(data: .object(["expired": .int(tokens.expireAll())]))
    }

    /// `/auth/protected` (and below), any method, with `Authorization: Bearer T`: envelope
    /// 200 with `{"token": T, "requests": accepted protected requests so far}` when `T` is
    /// valid and unexpired.
    ///
    /// Otherwise HTTP 200 with `{"code": 401, "message": "Token expired", "data": null}`, or
    /// with `http=1` HTTP 401, `WWW-Authenticate: Bearer error="invalid_token"` and
    /// `{"error": "invalid_token", "message": "Token expired"}`.
    private func protected(_ request: Request, target: RequestTarget) throws -> Response {
        let token = Self.bearerToken(of: request)
        guard let token, let requests = tokens.authorize(token) else {
            if target.value("http") == "1" {
                return try .json(
                    .object(["error": .string("invalid_token"), "message": .string("Token expired")]),
                    status: .unauthorized,
                    headerFields: [.wwwAuthenticate: #"Bearer error="invalid_token""#]
                )
            }
            return try .envelope(code: 401, message: "Token expired", data: .null)
        }
        return try .envelope(data: .object(["token": .string(token), "requests": .int(requests)]))
    }

    // MARK: - Helpers

    /// Throws 405 unless `request` is a POST.
    static func requirePost(_ request: Request, _ path: String) throws {
        guard request.method == .post else {
            throw RouteError(
                .methodNotAllowed, "\(path) accepts POST, not \(request.method.rawValue)",
                headerFields: [.allow: "POST"])
        }
    }

    /// The `expires-in` query item: seconds, 3600 by default.
    private static func lifetime(_ target: RequestTarget) throws -> Int {
        try target.integer("expires-in", in: 0...(1 << 31), default: 3600)
    }

    /// The token of an `Authorization: Bearer T` field (the scheme in any case), or `nil`.
    static func bearerToken(of request: Request) -> String? {
        guard let authorization = request.headers[.authorization] else { return nil }
        let parts = authorization.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }

    /// The envelope of a new token: `data` is `{"token", "expiresIn"}`.
    private static func tokenEnvelope(_ token: String, lifetime: Int) throws -> Response {
        try .envelope(data: .object(["token": .string(token), "expiresIn": .int(lifetime)]))
    }
}
