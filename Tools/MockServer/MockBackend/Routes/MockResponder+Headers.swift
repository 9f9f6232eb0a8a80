import HTTPTypes
import Hummingbird

// The routes about status lines and response headers.
extension MockResponder {
    /// `/status/{code}`: that status and `"status {code}\n"`, or no body at all for 204 and 304.
    ///
    /// `?retry-after=V` adds `Retry-After: V`, for retry-policy tests.
    func status(_ code: Int, target: RequestTarget) -> Response {
        let status = HTTPResponse.Status(code: code)
        var fields = HTTPFields()
        if let retryAfter = target.value("retry-after") {
            fields[.retryAfter] = retryAfter
        }
        if code == 204 || code == 304 {
            // These statuses have no body, so no Content-Length either (RFC 9110 §8.6).
            var response = Response(status: status, headers: fields)
            response.headers[.contentLength] = nil
            return response
        }
        return .text("status \(code)\n", status: status, headerFields: fields)
    }

    /// `/headers?name=value…` (or `/response-headers`): each query item becomes a response
    /// header, in order, and the body lists them as JSON.
    ///
    /// Framing headers (`Content-Length`, `Transfer-Encoding`) are refused with 400, because
    /// a wrong one would desynchronise the connection; use ``ScriptedSocketServer`` for that.
    /// A `Content-Type` item replaces the default `application/json`.
    func responseHeaders(target: RequestTarget) throws -> Response {
        var fields = HTTPFields()
        var listed: [String: [String]] = [:]
        for item in target.queryItems {
            guard let name = HTTPField.Name(item.name) else {
                throw RouteError(.badRequest, "'\(item.name)' is not a valid header name")
            }
            guard name != .contentLength, name != .transferEncoding else {
                throw RouteError(.badRequest, "/headers does not set framing headers such as \(item.name)")
            }
            fields.append(HTTPField(name: name, value: item.value))
            listed[name.canonicalName, default: []].append(item.value)
        }
        return try .json(.stringLists(listed), headerFields: fields)
    }

    /// `/large-headers?size=N`: one header `X-Large` of `N` × `a` (0 by default, at most
    /// 16 MiB) and the body `ok`.
    func largeHeaders(target: RequestTarget) throws -> Response {
        let size = try target.integer("size", in: 0...(16 << 20), default: 0)
        guard let name = HTTPField.Name("X-Large") else {
            throw RouteError(.internalServerError, "X-Large is not a valid header name")
        }
        return .text("ok\n", headerFields: [name: String(repeating: "a", count: size)])
    }

    /// `/cookies/set?name=value…`: a `Set-Cookie: name=value; Path=/` per query item, and the
    /// cookies set as `{"cookies": {name: value}}`.
    func setCookies(target: RequestTarget) throws -> Response {
        var fields = HTTPFields()
        var cookies: [String: JSONValue] = [:]
        for item in target.queryItems where !item.name.isEmpty {
            fields.append(HTTPField(name: .setCookie, value: "\(item.name)=\(item.value); Path=/"))
            cookies[item.name] = .string(item.value)
        }
        return try .json(.object(["cookies": .object(cookies)]), headerFields: fields)
    }

    /// `/flaky/{n}?status=CODE&key=K&retry-after=V`: the first `n` requests for key `K` fail
    /// with `CODE` (503 by default, 400–599), later ones answer 200 `{"attempt": a, "failures": n}`.
    ///
    /// The count is per server and per key; the key defaults to the path, so give each test its
    /// own `key` when several share one server.
    func flaky(failures: Int, target: RequestTarget) throws -> Response {
        let failureCode = try target.integer("status", in: 400...599, default: 503)
        let key = target.value("key") ?? target.path
        let attempt = flakyAttempts.nextAttempt(for: key)
        guard attempt > failures else {
            var fields = HTTPFields()
            if let retryAfter = target.value("retry-after") {
                fields[.retryAfter] = retryAfter
            }
            return .text(
                "attempt \(attempt) of \(failures) failing\n",
                status: HTTPResponse.Status(code: failureCode),
                headerFields: fields
            )
        }
        return try .json(.object(["attempt": .int(attempt), "failures": .int(failures)]))
    }
}
