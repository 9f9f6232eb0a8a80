import HTTPTypes
import Hummingbird
import NIOCore

// The route of a server that honours `Idempotency-Key`, for retry tests of unsafe methods.
extension MockResponder {
    /// `POST /idempotent?resets=N&scope=S`: a server that applies a request once per
    /// `Idempotency-Key`, and whose first `N` answers (0 by default, at most 1000) are lost.
    ///
    /// The body has been read to its end before this runs. For scope `S` (`default` by default)
    /// the attempt's key (the `Idempotency-Key` field, or none) is recorded, and the request is
    /// applied unless a request with the same non-empty key was applied in the scope before; a
    /// request without a key is applied every time. Then:
    ///
    /// - the first `N` attempts of the scope get no answer at all: the connection is closed
    ///   before a byte of response is written (curl: `CURLE_GOT_NOTHING`, "Empty reply from
    ///   server"), after the request was applied, as when a server dies before it can answer;
    /// - a later attempt whose key is not empty and differs from the first key the scope saw
    ///   gets 422 with `{"error": "Idempotency-Key changed between attempts", …}`;
    /// - any other gets 200 with the scope's summary: `{"applied": times applied, "attempts":
    ///   attempts received, "keys": [key per attempt, null when absent], "sameKey": whether
    ///   every attempt carried the same non-empty key}`.
    ///
    /// Other methods get 405. libcurl itself sends a request again, once, on a fresh connection
    /// when a reused connection closes without a byte of answer, so a client that reused a
    /// connection may not see the first drop: the scope's `attempts` show what reached the server.
    func idempotent(_ request: Request, target: RequestTarget, context: MockRequestContext) async throws -> Response {
        guard request.method == .post else {
            throw RouteError(
                .methodNotAllowed,
                "/idempotent accepts POST, not \(request.method.rawValue)",
                headerFields: [.allow: "POST"]
            )
        }
        let resets = try target.integer("resets", in: 0...1000, default: 0)
        let attempt = idempotency.record(key: MockResponder.idempotencyKey(of: request), in: Self.scope(of: target))
        if attempt.number <= resets {
            // Closing the channel before the handler returns means Hummingbird has nothing to
            // write to: the client reads end of stream where the status line should be. The body
            // was read to its end first, so no unread bytes turn the close into a reset.
            try? await context.channel.close()
            throw ConnectionDropped()
        }
        if attempt.keyChanged {
            return try .json(
                attempt.summary.json(error: "Idempotency-Key changed between attempts"),
                status: HTTPResponse.Status(code: 422)
            )
        }
        return try .json(attempt.summary.json())
    }

    /// `/idempotent/stats?scope=S`: the summary `/idempotent` answers with, for scope `S`
    /// (`default` by default), without recording or applying anything.
    func idempotentStats(target: RequestTarget) throws -> Response {
        try .json(idempotency.summary(of: Self.scope(of: target)).json())
    }

    /// The `scope` query item, `default` when absent or empty.
    private static func scope(of target: RequestTarget) -> String {
        guard let scope = target.value("scope"), !scope.isEmpty else { return "default" }
        return scope
    }

    /// The request's `Idempotency-Key` values joined with `, `, `nil` when it has none.
    private static func idempotencyKey(of request: Request) -> String? {
        let values = request.headers.filter { $0.name.canonicalName == "idempotency-key" }.map(\.value)
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }
}
